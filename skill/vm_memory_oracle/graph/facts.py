"""The store of facts: remember, forget, pin, archive, merge, restore and reinforce.

facts.jsonl holds each fact once (by id); activation-metadata.json holds what changes on
every recall (a0, last_accessed, access_count); entities.jsonl and relations.jsonl are
derived from the facts and rewritten with them. Every mutation re-reads under the lock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from ..clock import format_iso
from ..config import Settings
from ..errors import UnknownFactError
from ..model.activation import ActivationEntries, ActivationEntry, boosted
from ..model.archive import ArchiveById, ArchiveCause, Archived, cause_of
from ..model.fact import Fact
from ..storage.store import Store
from .derived import entity_records, relation_records
from .restatement import (
    MAX_SOURCES,
    PRECISE_SOURCE,
    REPETITION_BONUS,
    already_heard,
    archived_statement,
    merge_restatement,
)
from .supersession import Supersession
from .views import LiveFact, LiveView, live_fact

if TYPE_CHECKING:
    from .columns import ActivationsAt, FactColumns

RESTORED_ACTIVATION = 0.3


@dataclass
class Boost:
    """What a recall's boost did: each boosted fact's activation now, or why none was."""

    activations: dict[str, float] = field(default_factory=dict)
    warning: str | None = None


@dataclass
class RememberReport:
    added: list[str] = field(default_factory=list)
    reinforced: list[str] = field(default_factory=list)
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (old id, new id)
    known: list[str] = field(default_factory=list)  # the same line of a log read again
    archived: list[str] = field(default_factory=list)  # the known ones found in the archive
    stored: list[Fact] = field(default_factory=list)  # the stored fact of each candidate


class KnowledgeGraph:
    def __init__(self, store: Store, settings: Settings):
        self.store = store
        self.settings = settings
        self.layout = store.layout

    # -- reading ---------------------------------------------------------------------------
    def facts(self) -> list[Fact]:
        """Active facts (superseded ones included), in the order of facts.jsonl."""
        return self.store.read_facts()

    def archived_facts(self) -> list[Archived]:
        """The archive's records, in the order of archived-facts.jsonl."""
        records = self.store.read_records(self.layout.archive, "archived-fact", copy=False)
        return [Archived.of(record) for record in records]

    def live_view(self, now: datetime) -> LiveView:
        """Activation computed only for the facts asked about, and a Fact made only of those
        (recall looks at a few), each read from its line (storage/facts_places.py): the
        records are not held. A file with a line to set aside is read whole, which
        quarantines the line."""
        from ..storage.facts_places import facts_at

        records = facts_at(self.store)
        return LiveView(
            records if records is not None else self.store.facts_by_id(),
            self.store.activation_view(),
            now,
            half_life_days=self.settings.half_life_days,
        )

    def activations(
        self, position: Mapping[str, int], facts: FactColumns, now: datetime
    ) -> ActivationsAt:
        """The activation at `now` of each fact `position` numbers, whose own inputs `facts`
        holds in that numbering: the documented formula over arrays (graph.columns)."""
        from .columns import ActivationsAt, state_columns  # numpy: only commands that recall

        columns = state_columns(self.store, position, facts)
        return ActivationsAt(columns, facts, now, self.settings.half_life_days)

    def activation_values(
        self, facts: list[Fact], state: ActivationEntries, now: datetime
    ) -> list[float]:
        """activation_of each of `facts`, over arrays (graph.columns)."""
        from .columns import activation_values

        return activation_values(facts, state, now, self.settings.half_life_days)

    def live_facts(self, now: datetime) -> list[LiveFact]:
        """Every active fact (superseded ones included) with its activation at `now`."""
        state = self.store.read_activation()
        return [self._live(fact, state, now) for fact in self.facts()]

    def activation_of(
        self, fact: Fact, state: Mapping[str, ActivationEntry], now: datetime
    ) -> float:
        """The fact's activation at `now`, given the activation state."""
        return self._live(fact, state, now).activation

    def _live(self, fact: Fact, state: Mapping[str, ActivationEntry], now: datetime) -> LiveFact:
        return live_fact(fact, state, now, half_life_days=self.settings.half_life_days)

    # -- writing ---------------------------------------------------------------------------
    def remember(
        self, candidates: list[Fact], now: datetime, *, repetition_bonus: float = REPETITION_BONUS
    ) -> RememberReport:
        """Add new facts, reinforce known ones, let newer statements supersede older ones.

        `candidates` are complete facts (model.fact.new_fact); the same id twice in one
        batch counts as a reassertion, exactly as two separate calls would. A reassertion
        boosts activation like a recall and adds `repetition_bonus` to the fact's
        importance (repetition: +0.2).
        """
        report = RememberReport()
        stamp = format_iso(now)
        single_valued = self.settings.single_valued()
        with self.store.locked("remember"):
            # Fact id -> the fact as it stands in this batch, in the order of the file (a new
            # fact goes at the end); a change replaces the fact in place.
            by_id = {fact.id: fact for fact in self.facts()}
            state = self.store.read_activation()
            supersession = Supersession(by_id.values(), single_valued)
            appended: list[str] = []
            # Each candidate's stored fact: an archived one, or the id of the fact as this
            # batch leaves it.
            stored: list[Fact | str] = []
            rewrite = False
            archived: ArchiveById | None = None
            for candidate in candidates:
                existing = by_id.get(candidate.id)
                if existing is None and PRECISE_SOURCE.search(candidate.source):
                    if archived is None:
                        archived = self.archived_by_id()
                    heard = archived_statement(candidate, archived)
                    if heard is not None:
                        # A log line read again (the log was cut or edited above what was
                        # summarized), or a proposal accepted again, whose fact was
                        # archived since: heard, not new.
                        report.known.append(candidate.id)
                        report.archived.append(candidate.id)
                        stored.append(heard.fact)
                        continue
                if existing is not None:
                    stored.append(existing.id)
                    if existing.trusted and not candidate.trusted:
                        # What came from outside never adds to the owner's fact: it is
                        # kept as the episode it was said in.
                        report.known.append(existing.id)
                        continue
                    if already_heard(existing, state.get(existing.id), candidate.source):
                        # The same line read again (a retried summarize or acceptance):
                        # not a repetition.
                        state.setdefault(existing.id, ActivationEntry.initial(existing))
                        report.known.append(existing.id)
                        continue
                    fact = self._reasserted(
                        existing, candidate, state, now, stamp, repetition_bonus
                    )
                    if candidate.trusted and not existing.trusted:
                        fact = fact.changed(provenance=candidate.provenance)  # theirs now
                    report.reinforced.append(fact.id)
                    if fact.current:
                        if fact is not existing:
                            by_id[fact.id] = fact
                            rewrite = True
                        continue
                    # The older statement is made again: it is current once more.
                    fact = fact.changed(superseded_by=None, superseded_at=None)
                    by_id[fact.id] = fact
                    rewrite = True
                else:
                    fact = candidate
                    by_id[fact.id] = fact
                    appended.append(fact.id)
                    state[fact.id] = ActivationEntry.initial(fact, stamp)
                    report.added.append(fact.id)
                    stored.append(fact.id)
                for holder in _replaced(supersession, fact, by_id):
                    by_id[holder] = by_id[holder].changed(
                        superseded_by=fact.id, superseded_at=stamp
                    )
                    fact = by_id[fact.id] = fact.changed(supersedes=holder)
                    report.superseded.append((holder, fact.id))
                    rewrite = True
            report.stored = [by_id[item] if isinstance(item, str) else item for item in stored]
            self.store.note(_remember_note(report), [*report.added, *report.reinforced])
            self._write_remembered(by_id, state, appended=appended, rewrite=rewrite)
        return report

    def _reasserted(
        self,
        existing: Fact,
        candidate: Fact,
        state: ActivationEntries,
        now: datetime,
        stamp: str,
        repetition_bonus: float,
    ) -> Fact:
        """`existing` stated again by `candidate`, from a source not yet counted: what the
        repetition adds to it (unless that precise source is already among its sources), the
        source kept, and its activation boosted in `state`."""
        source = candidate.source if PRECISE_SOURCE.search(candidate.source) else None
        fact = existing
        if source is None or source not in existing.sources:
            fact = merge_restatement(fact, candidate, repetition_bonus)
            if source is not None:
                fact = fact.changed(sources=(*fact.sources, source)[-MAX_SOURCES:])
        state[fact.id] = self._boosted_entry(fact, state, now, stamp, heard=source)
        return fact

    def _write_remembered(
        self,
        by_id: dict[str, Fact],
        state: ActivationEntries,
        *,
        appended: list[str],
        rewrite: bool,
    ) -> None:
        """Write what a remember batch leaves: facts.jsonl rewritten when a fact changed,
        else only the new facts (`appended`) added to it; the activation state of the facts
        kept; the derived indexes."""
        facts = list(by_id.values())
        if rewrite:
            self.store.rewrite_facts(facts)
        else:
            self.store.append_facts(by_id[fact_id] for fact_id in appended)
        self.store.write_activation(state.only(by_id))
        self._write_indexes(facts)

    def reinstate_orphans(self) -> dict[str, str]:
        """Make current again each fact superseded by a fact that is in neither facts.jsonl
        nor the archive: a line lost to damage, since the tool never removes a fact without
        archiving it. Fact id -> why. (A fact superseded by one forgotten or pruned since
        stays superseded.)"""
        with self.store.locked("reinstate"):
            facts = self.facts()
            known = {fact.id for fact in facts} | set(self.archived_by_id())
            orphans = {
                fact.id: f"superseded by {fact.superseded_by}, which is in neither "
                "facts.jsonl nor the archive"
                for fact in facts
                if fact.superseded_by is not None and fact.superseded_by not in known
            }
            if not orphans:
                return {}
            self.store.rewrite_facts(
                fact.changed(superseded_by=None, superseded_at=None) if fact.id in orphans else fact
                for fact in facts
            )
            self.store.note(
                f"reinstated {len(orphans)} fact(s) superseded by a fact lost to damage",
                orphans,
                repair=True,
            )
        return orphans

    def archived_by_id(self, cause: str | None = None) -> ArchiveById:
        """The archive's records by fact id (each fact's last), only those archived for
        `cause` (an ArchiveCause code) when given; each read as an Archived when asked for."""
        records = self.store.read_records(self.layout.archive, "archived-fact", copy=False)
        if cause is not None:
            records = [record for record in records if cause_of(record).code == cause]
        return ArchiveById(records)

    def set_pinned(self, fact_id: str, pinned: bool, now: datetime) -> tuple[Fact, bool]:
        """Put a fact in the vault (pinned: it never decays, is never pruned or merged away,
        and always has its line in MEMORY.md's block) or take it out. Returns the fact and
        whether anything changed; pinning a pinned fact writes nothing.

        Either way its activation is taken as it stands `now`: pinning holds that value,
        and an unpinned fact starts decaying from it now, not from its last recall."""
        with self.store.locked("pin" if pinned else "unpin"):
            facts = self.facts()
            fact = next((fact for fact in facts if fact.id == fact_id), None)
            if fact is None:
                raise UnknownFactError(fact_id)
            if fact.pinned == pinned:
                return fact, False
            state = self.store.read_activation()
            entry = state.get(fact_id) or ActivationEntry.initial(fact)
            state[fact_id] = replace(
                entry,
                activation=self._live(fact, state, now).activation,
                last_accessed=format_iso(now),
            )
            fact = fact.changed(pinned=pinned)
            self.store.rewrite_facts(fact if other.id == fact_id else other for other in facts)
            self.store.write_activation(state, changed=[fact_id])
            self.store.note("pinned 1 fact" if pinned else "unpinned 1 fact", [fact_id])
        return fact, True

    def forget(self, fact_id: str, reason: str | None, now: datetime) -> Archived:
        """Move one fact to the archive; it leaves facts.jsonl only once the archive has it."""
        why = ArchiveCause("forgotten", reason or "")
        with self.store.locked("forget"):
            if not any(fact.id == fact_id for fact in self.facts()):
                raise UnknownFactError(fact_id)
            [archived] = self.archive({fact_id: why}, now, note=f"forgot 1 fact ({why.prose})")
        return archived

    def archive(
        self,
        chosen: dict[str, ArchiveCause],
        now: datetime,
        *,
        note: str | None = None,
        merged_into: dict[str, str] | None = None,
        amend: dict[str, dict] | None = None,
    ) -> list[Archived]:
        """Move the facts of `chosen` (fact id -> why) to the archive, as they are now.

        `merged_into` names the fact each merged one went into; `amend` changes facts that
        stay, in the same rewrite (a merge's sources; Fact.changed arguments by fact id). The
        archive is appended to (durably) before facts.jsonl is rewritten, so a crash leaves
        a fact in both files, never in neither; a retry at the same `now` finds its archive
        record already there and does not append it twice. The activation state keeps only
        the facts still active. Returns the archive record of each fact that left, whichever
        run appended it.
        """
        stamp = format_iso(now)
        merged_into, amend = merged_into or {}, amend or {}
        with self.store.locked("archive"):
            facts = self.facts()
            state = self.store.read_activation()
            done = {
                record["id"]: Archived.of(record)
                for record in self.store.read_records(
                    self.layout.archive, "archived-fact", copy=False
                )
                if record["archived_at"] == stamp
            }
            leaving = [fact for fact in facts if fact.id in chosen]
            records = [
                done.get(fact.id)
                or Archived.new(
                    fact,
                    stamp,
                    chosen[fact.id],
                    round(self.activation_of(fact, state, now), 6),
                    merged_into.get(fact.id),
                )
                for fact in leaving
            ]
            remaining = [
                fact.changed(**amend[fact.id]) if fact.id in amend else fact
                for fact in facts
                if fact.id not in chosen
            ]
            if leaving:
                self.store.note(
                    note or f"archived {len(leaving)} fact(s)", [fact.id for fact in leaving]
                )
                self.store.append_records(
                    self.layout.archive,
                    "archived-fact",
                    [record.to_json() for record in records if record.fact.id not in done],
                )
                self.store.rewrite_facts(remaining)
            self._write_indexes(remaining)
            kept = state.only(fact.id for fact in remaining)
            if len(kept) != len(state):  # some state is of facts that left
                self.store.write_activation(kept)
        return records

    def merge(self, pairs: dict[str, tuple[str, str]], now: datetime) -> dict[str, tuple[str, str]]:
        """Fold each duplicate into the fact that stays: `pairs` maps the id of the fact that
        leaves to (the id of the one that stays, why). The one that stays keeps its wording,
        gains the other's sources and takes the higher activation (max, not sum: two
        wordings of one statement are not two recalls); the other is archived with
        `merged_into`. Pairs whose facts changed meanwhile (one gone, superseded or pinned)
        are skipped. Every value is a max or a union, so a retry at the same `now` after a
        crash writes the same files. Returns the pairs merged."""
        with self.store.locked("merge"):
            by_id = {fact.id: fact for fact in self.facts()}
            merged = {
                gone: (kept, why)
                for gone, (kept, why) in pairs.items()
                if _mergeable(by_id.get(gone), by_id.get(kept))
            }
            if not merged:
                return {}
            state = self.store.read_activation()
            absorbed: dict[str, list[Fact]] = {}
            for gone, (kept, _) in merged.items():
                absorbed.setdefault(kept, []).append(by_id[gone])
            amend: dict[str, dict] = {}
            for kept, others in absorbed.items():
                fact = by_id[kept]
                sources = [fact.source, *fact.sources]
                for other in others:
                    sources += [other.source, *other.sources]
                amend[kept] = {"sources": tuple(dict.fromkeys(sources))[1:][-MAX_SOURCES:]}
                group = [fact, *others]
                entries = [state.get(item.id) or ActivationEntry.initial(item) for item in group]
                state[kept] = replace(
                    entries[0],
                    activation=max(self.activation_of(item, state, now) for item in group),
                    last_accessed=format_iso(now),
                    access_count=max(entry.access_count for entry in entries),
                )
            self.store.write_activation(state, changed=list(absorbed))
            self.archive(
                {
                    gone: ArchiveCause("merged", f"{kept}: {why}")
                    for gone, (kept, why) in merged.items()
                },
                now,
                note=f"merged {len(merged)} duplicate fact(s)",
                merged_into={gone: kept for gone, (kept, _) in merged.items()},
                amend=amend,
            )
        return merged

    def restore(
        self, archived: list[Archived], now: datetime, activation: float = RESTORED_ACTIVATION
    ) -> list[LiveFact]:
        """Bring archived facts back to the active set at `activation`.

        The fact is durably in facts.jsonl before it leaves the archive.
        """
        stamp = format_iso(now)
        wanted = {(record.fact.id, record.archived_at, record.reason) for record in archived}
        with self.store.locked("restore"):
            active = {fact.id for fact in self.facts()}
            archive = self.store.read_records(self.layout.archive, "archived-fact")
            chosen = [
                record
                for record in archive
                if record["id"] not in active
                and (record["id"], record["archived_at"], record["archive_reason"]) in wanted
            ]
            back = [Fact.from_archived(record) for record in chosen]
            if not back:
                return []
            self.store.note(
                f"restored {len(back)} archived fact(s) at activation {activation:g}",
                [fact.id for fact in back],
            )
            self.store.append_facts(back)
            state = self.store.read_activation()
            for fact in back:
                state[fact.id] = ActivationEntry(activation, stamp, 0)
            self.store.write_activation(state)
            # Only the archive records restored leave it; other records of the same fact
            # (an earlier forget) stay as history.
            self.store.rewrite_records(
                self.layout.archive,
                "archived-fact",
                [fact for fact in archive if not any(fact is record for record in chosen)],
            )
            self._write_indexes(self.facts())
        return [LiveFact(fact, activation, stamp, 0) for fact in back]

    def reinforce(
        self, facts: list[Fact], now: datetime, *, woken: frozenset[str] | set[str] = frozenset()
    ) -> Boost:
        """The recall boost: a0 = min(1, activation(now) + recall_boost), last_accessed = now.
        A fact of `woken` (found in the dormant tier, under search_threshold) is first made
        active again at RESTORED_ACTIVATION, as a fact restored from the archive is, and the
        audit log names it.

        The activation state is re-read under the lock, so concurrent recalls each add
        their boost. A fact with no state (a reset activation file) starts from its
        creation values; state left by a fact another process forgot meanwhile is dropped
        at the next remember, which keeps only the state of facts in facts.jsonl.

        The boost's journal lines and audit line are written but not fsynced, as Linux keeps
        a file's access time: no end of the process loses them, and a crash of the machine
        within the kernel's writeback delay loses only the boosts of its last seconds (a torn
        last line is quarantined like any other). Two fsyncs were a third of a recall.
        """
        stamp = format_iso(now)
        layout = self.store.layout
        needs = (layout.write_lock, layout.audit_log, layout.activation, layout.activation_journal)
        refused = next((refusal for refusal in map(self.store.refused, needs) if refusal), None)
        if refused is not None:  # what was recalled is returned all the same, not boosted
            return Boost(
                warning=f"{layout.relative(refused.path)}: {refused.problem}; "
                f"recalled facts were not boosted ({refused.fix})"
            )
        with self.store.locked("recall", needs=needs, durable=False):
            ids = {fact.id for fact in facts}
            if self.store.journal_room() > len(ids):  # only these facts' entries are written
                state = self.store.activation_entries(ids)
            else:  # the whole state is written, the journal folded into it
                state = self.store.read_activation()
            changed: dict[str, float] = {}
            awake: list[str] = []
            for fact in facts:
                if fact.id in changed:
                    continue
                floor = RESTORED_ACTIVATION if fact.id in woken else 0.0
                entry = self._boosted_entry(fact, state, now, stamp, floor=floor)
                state[fact.id] = entry
                changed[fact.id] = entry.activation
                if fact.id in woken:
                    awake.append(fact.id)
            if awake:
                self.store.note(
                    f"woke {len(awake)} dormant fact(s) at activation {RESTORED_ACTIVATION:g}",
                    awake,
                )
            if changed:
                self.store.note(
                    f"boosted the activation of {len(changed)} recalled fact(s)", changed
                )
                self.store.write_activation(state, changed=changed)
        return Boost(changed)

    def _boosted_entry(
        self,
        fact: Fact,
        state: ActivationEntries,
        now: datetime,
        stamp: str,
        *,
        heard: str | None = None,
        floor: float = 0.0,
    ) -> ActivationEntry:
        """A fact's activation state after a recall or reassertion:
        a0 = min(1, max(activation(now), floor) + recall_boost), last_accessed = now, one
        more access. `heard` is the precise source of a reassertion, kept so it boosts only
        once."""
        entry = state.get(fact.id) or ActivationEntry.initial(fact)
        sources = entry.heard
        if heard is not None and heard not in sources:
            sources = (*sources, heard)[-MAX_SOURCES:]
        return ActivationEntry(
            boosted(
                max(self._live(fact, state, now).activation, floor), self.settings.recall_boost
            ),
            stamp,
            entry.access_count + 1,
            sources,
        )

    def _write_indexes(self, facts: list[Fact]) -> None:
        """entities.jsonl and relations.jsonl as `facts` make them, written if they differ
        (so a crash between a rewrite of facts.jsonl and this is repaired by the next call);
        no snapshot of their records is kept (no command reads them but to check them)."""
        for path, kind, made in (
            (self.layout.entities, "entity", entity_records(facts)),
            (self.layout.relations, "relation", relation_records(facts)),
        ):
            lines = self.store.lines_in_step(path, kind, _records_of(made))
            if lines is not None:
                self.store.rewrite_records(path, kind, (), lines=lines, kept=False)


def _records_of(made: Sequence) -> Callable[[], Iterator[dict]]:
    """The records of entities or relations, made one at a time as they are read (a million
    facts' entities as dictionaries held 400 MB)."""
    return lambda: (record.to_json() for record in made)


def _replaced(supersession: Supersession, fact: Fact, by_id: dict[str, Fact]) -> list[str]:
    """The facts `fact` replaces: none when it is not trusted and would replace one that
    is (it then stays beside the owner's, which stands)."""
    if not fact.trusted and any(
        by_id[holder].trusted for holder in supersession.replaced(fact, take=False)
    ):
        return []
    return supersession.replaced(fact)


def _mergeable(gone: Fact | None, kept: Fact | None) -> bool:
    return (
        gone is not None
        and kept is not None
        and not gone.pinned
        and gone.current
        and kept.current
        and gone.trusted == kept.trusted  # the owner's facts and outside words stay apart
    )


def _remember_note(report: RememberReport) -> str:
    parts = [f"added {len(report.added)}", f"reinforced {len(report.reinforced)}"]
    if report.superseded:
        parts.append(f"superseded {len(report.superseded)}")
    return "remembered facts: " + ", ".join(parts)
