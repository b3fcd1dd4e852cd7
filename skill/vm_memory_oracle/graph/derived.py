"""Derived indexes of the facts: entities.jsonl (each subject and short object, with the
facts naming it) and relations.jsonl (subject, predicate, object of each current fact),
rewritten with the facts and checked against them."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from ..model.fact import Fact, normalise

_VALUE_LIKE = re.compile(r"^[\d\s.,:/\-+%$€£¥]+$")
NAMES_HELD = 1 << 16


@dataclass(frozen=True, slots=True)
class Entity:
    """A line of entities.jsonl: a name as first written, its normalised key, and the ids
    of the facts naming it, in the facts' order."""

    name: str
    key: str
    fact_ids: tuple[str, ...]

    def to_json(self) -> dict:
        return {"name": self.name, "key": self.key, "fact_ids": list(self.fact_ids)}


@dataclass(frozen=True, slots=True)
class Relation:
    """A line of relations.jsonl: a predicate and how many current facts use it."""

    predicate: str
    count: int

    def to_json(self) -> dict:
        return {"predicate": self.predicate, "count": self.count}


def entity_names(fact: Fact) -> list[str]:
    """The subject, the named entities, and the object when it reads as a name, not a value."""
    names = [fact.subject, *fact.entities]
    obj = fact.object
    if len(obj) <= 64 and len(obj.split()) <= 4 and not _VALUE_LIKE.match(obj):
        names.append(obj)
    return names


class Entities(Sequence[Entity]):
    """The entities of some facts, by key, held as three columns: each one's name, its key,
    and the id of the one fact naming it or the ids of the several (a tuple); its Entity
    made when it is read. 100,000 facts each naming its own object made as many Entity
    records and tuples of one id: held after a remember, they took 12.5 MB, these 4.8."""

    __slots__ = ("_names", "_keys", "_ids")

    def __init__(self, names: list[str], keys: list[str], ids: list[str | tuple[str, ...]]):
        self._names, self._keys, self._ids = names, keys, ids

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, place: int) -> Entity: ...

    @overload
    def __getitem__(self, place: slice) -> list[Entity]: ...

    def __getitem__(self, place: int | slice) -> Entity | list[Entity]:
        if isinstance(place, slice):
            return [self[number] for number in range(len(self))[place]]
        ids = self._ids[place]
        held = (ids,) if isinstance(ids, str) else ids
        return Entity(self._names[place], self._keys[place], held)

    def __iter__(self) -> Iterator[Entity]:
        return (self[number] for number in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]


# The last facts entity_records was given and what it made of them: a consolidation asks
# for the entities of one list of facts twice (prune brings the file in step, the health
# check compares it), a second or more at 100,000 facts. Facts cannot change, and the
# list held keeps them alive, so the same objects in the same order make the same records.
_last: tuple[list[Fact], Entities] | None = None


def entity_records(facts: list[Fact]) -> Entities:
    """The entities that `facts` make, by key (the caller must not change them)."""
    global _last
    if _last is not None and _same(_last[0], facts):
        return _last[1]
    records = _entity_records(facts)
    _last = (list(facts), records)
    return records


def let_go_of_entities() -> None:
    """Hold no longer the last entities made (for a pass that needs the memory after the
    steps that ask for them: about 50 bytes a fact)."""
    global _last
    _last = None


def _same(held: list[Fact], facts: list[Fact]) -> bool:
    return len(held) == len(facts) and all(a is b for a, b in zip(held, facts))


def _entity_records(facts: list[Fact]) -> Entities:
    names: dict[str, str] = {}
    # key -> fact ids, in order, without repeats: a fact's names come one after another, so
    # a repeat is the last id; the one id of a key named once is held as itself (a list of
    # one id takes 64 bytes, a dictionary 232)
    mentions: dict[str, str | list[str]] = {}
    # A subject is named by thousands of facts: normalised once. Only the first NAMES_HELD
    # names are kept normalised: a million facts each naming its own object held a million.
    keys: dict[str, str] = {}
    for fact in facts:
        for name in entity_names(fact):
            key = keys.get(name)
            if key is None:
                key = normalise(name)
                key = name if key == name else key  # one string, not two equal ones
                if len(keys) < NAMES_HELD:
                    keys[name] = key
            names.setdefault(key, name)
            held = mentions.get(key)
            if held is None:
                mentions[key] = fact.id
            elif isinstance(held, str):
                if held != fact.id:
                    mentions[key] = [held, fact.id]
            elif held[-1] != fact.id:
                held.append(fact.id)
    keys.clear()
    ordered = sorted(mentions)
    # each key's ids let go as its column's entry is made
    ids = [_ids(mentions.pop(key)) for key in ordered]
    return Entities([names.pop(key) for key in ordered], ordered, ids)


def _ids(held: str | list[str]) -> str | tuple[str, ...]:
    return held if isinstance(held, str) else tuple(held)


def relation_records(facts: list[Fact]) -> list[Relation]:
    """The predicates of `facts`, by name, each with how many facts use it."""
    counts: dict[str, int] = {}
    for fact in facts:
        counts[fact.predicate] = counts.get(fact.predicate, 0) + 1
    return [Relation(name, count) for name, count in sorted(counts.items())]
