"""facts.jsonl as Fact records, read and written through the store. The Facts made of a
snapshot of the file are kept for this process (storage/derived.Derived, in memory, while
the file is unchanged), and a write of this process keeps the ones it wrote, so that the
next read makes no Fact again."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, KeysView, Mapping
from functools import cache

from ..model import fact as fact_module
from ..model.fact import Fact
from . import derived, facts_places, snapshot
from .jsonl import checked_line, line
from .layout import Layout
from .writer import Writer


class FactsById(Mapping[str, Fact]):
    """The facts of one snapshot of facts.jsonl by id, each record made a Fact when first
    looked up: a recall looks at a few of 10,000 facts, and a new process should not pay
    for making them all (that costs as much as parsing the file)."""

    def __init__(self, records: list[dict], *, made: list[Fact | None] | None = None):
        self._records = records
        self.made: list[Fact | None] = made if made is not None else [None] * len(records)
        # the last record of an id wins, as in a dict made of the facts in file order
        self._position = {record["id"]: number for number, record in enumerate(records)}
        self._all: list[Fact] | None = None

    def made_of(self, records: list[dict]) -> bool:
        return records is self._records

    def _fact(self, number: int) -> Fact:
        fact = self.made[number]
        if fact is None:
            fact = self.made[number] = Fact.from_record(self._records[number], checked=True)
        return fact

    def all(self) -> list[Fact]:
        """Every fact, in the order of the file (a new list)."""
        if self._all is None:
            self._all = [self._fact(number) for number in range(len(self._records))]
        return list(self._all)

    def __getitem__(self, fact_id: str) -> Fact:
        return self._fact(self._position[fact_id])

    def __contains__(self, fact_id: object) -> bool:
        return fact_id in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def keys(self) -> KeysView[str]:
        """The ids, as a set-like view a set operation reads without a Python loop."""
        return self._position.keys()

    def __len__(self) -> int:
        return len(self._position)


def _made_facts(layout: Layout) -> derived.Derived[FactsById]:
    """The facts of the snapshot of facts.jsonl as the file is, kept in this process."""
    path = layout.facts
    return derived.Derived(
        path.with_name(f"{path.name} facts"),  # a name only: kept in memory, never written
        layout=_layout(),
        sources=(path,),
        disk=False,
    )


@cache
def _layout() -> int:
    return derived.layout_of(None, (sys.modules[__name__], fact_module))


def facts_by_id(store: Writer) -> FactsById | facts_places.FactsAt:
    """The facts of facts.jsonl by id, each made a Fact when first looked up. A Fact
    cannot change, so the ones made from a snapshot of the file serve every later read
    of it.

    They are read at their places (facts_places.FactsAt), their records not held: parsed,
    the records of a million facts held 3.4 GB. A file with a line to set aside is read
    whole by read_records, which quarantines the line."""
    at = facts_places.facts_at(store)
    if at is not None:
        return at
    memo = _made_facts(store.layout)
    key = memo.key()  # before the read: what is kept was made of the file as it was then
    records = store.read_records(store.layout.facts, "fact", unique_key="id", copy=False)
    held = memo.held(key)
    if held is None or not held.made_of(records):
        held = FactsById(records)
        memo.keep(key, held)
    return held


def facts_of(store: Writer, records: list[dict]) -> list[Fact]:
    """The Facts of valid records of facts.jsonl as peek_records gave them: those already
    made of the same snapshot when there are some (a consolidation's health check reads
    the file its steps read), else new ones."""
    memo = _made_facts(store.layout)
    held = memo.held(memo.key())
    if held is not None and held.made_of(records):
        return held.all()
    return [Fact.from_record(record, checked=True) for record in records]


def rewrite_facts(store: Writer, facts: Iterable[Fact]) -> None:
    facts = list(facts)
    lines = _FactLines(store.layout, facts)
    store.rewrite_records(store.layout.facts, "fact", (), lines=lines, kept=False)
    facts_places.rewritten(store, lines.lengths, facts)
    facts_places.hold_facts(store, facts)


def append_facts(store: Writer, facts: Iterable[Fact]) -> None:
    facts = list(facts)
    path = store.layout.facts
    earlier = facts_places.held_facts(store)
    memo = _made_facts(store.layout)
    held = memo.held(memo.key())
    before = snapshot.load(store.layout.snapshot_for(path), snapshot.file_key(path), disk=False)
    lines = _FactLines(store.layout, facts)
    key_before = snapshot.file_key(path)
    if held is not None and before is not None and held.made_of(before):
        # read whole (a line was set aside): the records' snapshot kept in step
        records = [fact.to_record() for fact in facts]
        store.append_records(path, "fact", records, lines=lines, copy=False)
        _hold_facts(store, held.made, facts)
    else:
        store.append_records(path, "fact", (), lines=lines, kept=False)
    facts_places.appended(store, key_before, lines.lengths, facts)
    if earlier is not None:
        facts_places.hold_facts(store, [*earlier, *facts])


class _FactLines:
    """The lines of the records of `facts`, made one at a time as they are written (a
    million facts' lines held at once were 350 MB), and the length in bytes of each once
    written (`lengths`, their newlines not counted). Each fact not known to pass the schema
    (read from the file, or checked by intake) is checked first, when this is made: a
    refused one stops the write before a line of it is written."""

    def __init__(self, layout: Layout, facts: list[Fact]):
        self._layout, self._facts = layout, facts
        self.lengths: array[int] = array("q")
        for fact in facts:
            if not fact.checked:
                checked_line(layout, layout.facts, "fact", fact.to_record())
                fact.mark_checked()

    def __iter__(self) -> Iterator[str]:
        layout = self._layout
        lengths = self.lengths = array("q")
        for fact in self._facts:
            made = line(layout, layout.facts, "fact", fact.to_record())
            lengths.append(facts_places.byte_length(made))
            yield made


def _hold_facts(store: Writer, earlier: list[Fact | None], facts: list[Fact]) -> None:
    """What was just written is what the next read would make: keep it for that read."""
    path = store.layout.facts
    memo = _made_facts(store.layout)
    key = memo.key()
    records = snapshot.load(store.layout.snapshot_for(path), snapshot.file_key(path), disk=False)
    if records is not None and len(records) == len(earlier) + len(facts):
        memo.keep(key, FactsById(records, made=[*earlier, *facts]))
