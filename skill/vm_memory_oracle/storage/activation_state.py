"""The per-fact activation state: activation-metadata.json, and the journal of recalls
(state/activation-journal.jsonl) applied over it, read, written and folded through the
store. The state is handed out and taken as ActivationEntries (model/activation.py): over
the file's packed records (activation_packed.PackedState, the changes held apart) where it
is read whole, over a few JSON records where only some facts' are read."""

from __future__ import annotations

import os
from collections import ChainMap
from collections.abc import Iterable, Mapping, MutableMapping
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from ..model.activation import ActivationEntries, ActivationEntry
from . import files, snapshot
from .activation_file import packed_file
from .activation_packed import (
    ActivationRecords,
    FileRecords,
    PackedActivation,
    PackedState,
    held_activation,
    keep_written,
    pack,
    packed_activation,
)
from .validation import problem
from .writer import Writer

JOURNAL_LIMIT = 2000


class ActivationState:
    """The activation state of one store's data directory (Store.read_activation and the
    others delegate here)."""

    def __init__(self, store: Writer):
        self.store = store
        # The journal's records (as read_records holds them) and the state they give.
        self._journal_view: tuple[list[dict], dict[str, dict]] | None = None

    def read(self) -> ActivationEntries:
        """Per-fact activation state: activation-metadata.json with the journal of recalls
        since its last full write applied over it. A corrupt file is set aside and reads as
        empty. The mapping is the caller's to change: the file's records stay packed, and
        what is changed is held apart (PackedState)."""
        state = PackedState(self.records())
        apply_journal(state, self.journal())
        return ActivationEntries(state)

    def view(self) -> ActivationEntries:
        """The state `read` gives, without reading the file's records: the journal's entries
        looked up first, then the file's, packed (for a recall, which reads the state of a
        few facts). An entry set in it is held apart, in the view alone."""
        # A ChainMap writes to its first mapping alone: the packed records are only read.
        records: Any = self.records()
        return ActivationEntries(ChainMap({}, self._journal_state(), records))

    def records(self) -> ActivationRecords:
        """The records activation-metadata.json holds by fact id, as its packed state gives
        them (storage/activation_packed.py): what a process that reads the state of a few
        facts, or every fact's a0 and last access as columns, holds."""
        store = self.store
        store.usable(store.layout.activation)
        return packed_activation(store, self._packed_file).records

    def _packed_file(self) -> PackedActivation:
        """The file packed: a piece at a time where it is in the form this tool writes,
        else read whole and checked (a damaged file is set aside and packs as none)."""
        packed = packed_file(self.store.layout.activation)
        return packed if packed is not None else pack(self._file_json())

    def entries(self, ids: set[str]) -> ActivationEntries:
        """The state of these facts alone, as `read` gives it (the caller's to change)."""
        journal = self._journal_state()
        held = self.records()
        return ActivationEntries(
            {
                fact_id: journal[fact_id] if fact_id in journal else held[fact_id]
                for fact_id in ids
                if fact_id in journal or fact_id in held
            }
        )

    def _journal_state(self) -> dict[str, dict]:
        """The journal's entries applied in order, by fact id (read only).

        Kept between calls: after an append by this process the journal's records begin with
        the ones already applied (the same objects), so only the new ones are applied, to a
        copy, which leaves a view handed out earlier as it was. A journal rewritten or read
        anew from disk is applied from its start."""
        entries = self.journal()
        held = self._journal_view
        if held is not None and held[0] is entries:
            return held[1]
        applied, journal = held if held is not None else ([], {})
        if applied and (
            len(entries) < len(applied) or entries[len(applied) - 1] is not applied[-1]
        ):
            applied, journal = [], {}
        journal = dict(journal)
        apply_journal(journal, entries[len(applied) :])
        self._journal_view = (entries, journal)
        return journal

    def journal_room(self) -> int:
        """How many entries the journal of recalls takes before `write` folds it into the
        activation file."""
        return JOURNAL_LIMIT - len(self.journal())

    def journal_since(self, start: int = 0) -> tuple[ActivationEntries, int]:
        """The state the journal's records from the `start`-th on give (each replaces its
        fact's, in order), and how many records the journal holds."""
        records = self.journal()
        state: dict[str, dict] = {}
        apply_journal(state, records[start:])
        return ActivationEntries(state), len(records)

    def journal(self) -> list[dict]:
        """The journal's records of recalls since the activation file was last written
        whole; each replaces the state of its fact, in order."""
        journal = self.store.layout.activation_journal
        if not journal.exists():
            return []
        return self.store.read_records(journal, "activation-journal", copy=False)

    def read_file(self) -> ActivationEntries:
        """The state activation-metadata.json holds, without the journal over it (the
        caller's to change, as read gives it)."""
        return ActivationEntries(PackedState(self.records()))

    def _file_json(self) -> dict[str, dict]:
        """The records activation-metadata.json holds by fact id, parsed (a corrupt file is
        set aside and reads as none)."""
        path = self.store.layout.activation
        self.store.usable(path)
        try:
            document = files.read_json(path)
        except FileNotFoundError:
            return {}
        except (ValueError, UnicodeDecodeError) as exc:
            self._set_aside(path, f"unreadable ({exc})")
            return {}
        fault = problem("activation-metadata", document)
        if fault:
            self._set_aside(path, fault)
            return {}
        return document["facts"]

    def write(
        self,
        state: Mapping[str, ActivationEntry],
        changed: Iterable[str] | None = None,
        *,
        journal_limit: int = JOURNAL_LIMIT,
    ) -> None:
        """Record the activation state.

        With `changed` (a recall's few boosted facts), only their entries are appended to
        state/activation-journal.jsonl, while it holds fewer than `journal_limit` lines: a
        recall then writes a few hundred bytes, not the whole file. Otherwise the whole state
        is written to activation-metadata.json (compact, one line) and the journal, now
        folded in, is emptied. Its entries hold values, not changes, so applying one twice
        is harmless: a crash between the two steps loses nothing.
        """
        store = self.store
        layout = store.layout
        journal = layout.activation_journal
        records = ActivationEntries.of(state).to_json()
        if changed is not None:
            entries = [{"id": fact_id, **records[fact_id]} for fact_id in changed]
            if len(self.journal()) + len(entries) < journal_limit:
                store.append_records(journal, "activation-journal", entries)
                return
        # The packed rows came from a file that passed the schema: only the records set
        # over them are checked (all 100,000 took a second at every remember), and the
        # state is packed, for the file to be written of, once they passed.
        checked: Mapping[str, dict]
        if isinstance(records, PackedState):
            changes, make = records.changes(), records.repacked
            # checked a block at a time (a million new facts' records, made at once, are
            # about 200 MB), and whole only when one fails, for the message a whole check
            # gives
            checked = {} if _pass(store.timestamp, changes) else dict(changes)
        else:
            changes = checked = dict(records)
            make = partial(pack, changes)
        facts = FileRecords(make)
        written = store.write_validated_json(
            layout.activation,
            "activation-metadata",
            {"updated": store.timestamp, "facts": facts},
            compact=True,
            checked={"updated": store.timestamp, "facts": checked},
        )
        if written:
            # What was written, packed already: the next command need not parse the file.
            keep_written(store, facts.packed)
        # The parsed copy of the whole file that earlier versions kept: no longer read.
        snapshot.discard(layout.snapshot_for(layout.activation))
        if journal.exists():
            store.rewrite_records(journal, "activation-journal", [])

    def fold(self, state: ActivationEntries) -> bool:
        """Write `state` as the whole activation file, with the journal folded in, unless the
        file already holds exactly that and the journal is empty. True when it wrote."""
        if not self.journal() and self.store.layout.activation.exists():
            held, records = state.to_json(), self.records()
            if (
                held.unchanged_from(records)
                if isinstance(held, PackedState)  # the file's, a copy of every record spared
                else records == held
            ):
                return False
        self.store.write_activation(state)
        return True

    def passes(self) -> bool:
        """Whether activation-metadata.json as it is now is known to pass its schema,
        without reading it whole: its packed state is kept (made only of a file that
        passed, or by the writer of what passed), or it packs as it is read (the writer's
        form, whose every record the schema passes). Writes nothing."""
        store = self.store
        path = store.layout.activation
        if store.refused(path) is not None or not path.exists():
            return False
        return held_activation(store) is not None or packed_file(path) is not None

    def peek(self) -> tuple[ActivationEntries, bool]:
        """(activation state, whether the file is damaged), writing nothing."""
        store = self.store
        path = store.layout.activation
        refused = store.refused(path) is not None  # never read, packed or otherwise
        held = None if refused else held_activation(store) or packed_file(path)
        damaged = False
        state: MutableMapping[str, dict]
        if held is not None:
            state = PackedState(held.records)
        elif refused:
            state = {}
        else:
            try:
                document = files.read_json(path)
                damaged = problem("activation-metadata", document) is not None
                state = {} if damaged else document["facts"]
            except FileNotFoundError:
                state = {}
            except (ValueError, UnicodeDecodeError):
                state, damaged = {}, True
        apply_journal(
            state, store.peek_records(store.layout.activation_journal, "activation-journal")[0]
        )
        return ActivationEntries(state), damaged

    def _set_aside(self, path: Path, reason: str) -> None:
        # Activation state is rebuilt from the facts (their creation activation and time);
        # the bad file is kept for a person to look at, never deleted.
        store = self.store
        aside = path.with_name(f"{path.name}.corrupt-{store.timestamp.replace(':', '')}")
        with store.locked(f"set aside {path.name}"):
            if path.exists():
                os.replace(path, aside)
                files.fsync_directory(path.parent)
                store.touched(path)
                store.note(f"set aside {store.layout.relative(path)} ({reason})", repair=True)
        store.warnings.append(
            f"{store.layout.relative(path)}: {reason}; moved to "
            f"{store.layout.relative(aside)}, activation reset from facts"
        )


# How many records set in a state are checked at once.
CHECKED_AT_ONCE = 4096


def _pass(updated: str, records: Mapping[str, dict]) -> bool:
    """Whether an activation file of `records`, updated at `updated`, passes the schema,
    checked CHECKED_AT_ONCE records at a time (the time alone is checked by the write)."""
    ids = iter(records)
    while block := {fact_id: records[fact_id] for fact_id in islice(ids, CHECKED_AT_ONCE)}:
        if problem("activation-metadata", {"updated": updated, "facts": block}):
            return False
    return True


def apply_journal(state: MutableMapping[str, dict], entries: list[dict]) -> None:
    """Each journal record replaces its fact's record in `state` (records by fact id, as the
    activation file holds them): records hold values, not changes."""
    for entry in entries:
        state[entry["id"]] = {key: value for key, value in entry.items() if key != "id"}
