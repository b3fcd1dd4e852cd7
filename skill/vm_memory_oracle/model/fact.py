"""What a fact is: its record (Fact), its normal form, its id, its sentence, and when one
fact replaces another.

Pure functions and values only; nothing here reads or writes a file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
import unicodedata
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .provenance import UNKNOWN, UNTRUSTED, Provenance

# uuid5 namespace of fact ids; fixed forever, or every id would change.
FACT_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://vm-memory-oracle/fact")

CATEGORIES = (
    "identity",
    "health",
    "preference",
    "relationship",
    "state",
    "decision",
    "action",
    "fact",
    "temporary",
)

# Intrinsic importance by category: what identifies a person or keeps them safe counts most.
INTRINSIC_IMPORTANCE = {
    "identity": 1.0,
    "health": 1.0,
    "preference": 0.8,
    "relationship": 0.8,
    "state": 0.8,
    "decision": 0.8,
    "action": 0.5,
    "fact": 0.5,
    "temporary": 0.2,
}

# A subject's names: each is an alias, never replaced by another (a person may be known by
# names in two scripts, "Priya Raman" and 王磊); a query naming one is about the subject.
NAME_PREDICATES = frozenset(("name", "is_named", "called", "叫", "名字"))

# Predicates that hold one value at a time for a subject: a new object replaces the old.
DEFAULT_SINGLE_VALUED = (
    "age",
    "birthday",
    "born_on",
    "lives_in",
    "located_in",
    "location",
    "home",
    "works_at",
    "employer",
    "job",
    "job_title",
    "role",
    "title",
    "timezone",
    "email",
    "phone",
    "status",
    "current_project",
    "spouse",
    "married_to",
    "住在",
    "居住在",
    "在_工作",
    "工作于",
    "职业",
    "年龄",
    "生日",
)

# Predicates with a polarity: the same subject and object under the opposite sign is a
# contradiction (likes/dislikes, 喜欢/讨厌), and the newer statement wins.
POLARITY = {
    "likes": 1,
    "like": 1,
    "loves": 1,
    "love": 1,
    "enjoys": 1,
    "prefers": 1,
    "prefer": 1,
    "wants": 1,
    "uses": 1,
    "always_uses": 1,
    "is": 1,
    "has": 1,
    "supports": 1,
    "agrees_with": 1,
    "dislikes": -1,
    "dislike": -1,
    "hates": -1,
    "hate": -1,
    "avoids": -1,
    "avoid": -1,
    "does_not_want": -1,
    "never_uses": -1,
    "is_not": -1,
    "does_not_have": -1,
    "opposes": -1,
    "disagrees_with": -1,
    "喜欢": 1,
    "爱": 1,
    "偏好": 1,
    "想要": 1,
    "使用": 1,
    "是": 1,
    "讨厌": -1,
    "不喜欢": -1,
    "厌恶": -1,
    "不想要": -1,
    "不使用": -1,
    "不是": -1,
}
_NEGATION_PREFIXES = ("not_", "does_not_", "doesn't_", "never_", "no_longer_", "不")

MAX_CONTEXT_CHARS = 2000
_SPACE = re.compile(r"\s+")
_PREDICATE_SEPARATORS = re.compile(r"[\s\-]+")


UNKNOWN_ORIGIN = Provenance(UNKNOWN)

# What an archive record adds to the fact it holds (archived-fact.schema.json).
ARCHIVE_KEYS = frozenset(
    ("archived_at", "archive_reason", "archive_cause", "final_activation", "merged_into", "purged")
)


# The properties whose values repeat from fact to fact (Fact.from_record's `shared`).
SHARED_VALUES = ("subject", "predicate", "source", "created", "category", "valid_from")
# The numbers among them: a few values (an activation of 1.0, an importance of 0.5) held as
# one object each, not as one float a fact (48 bytes a fact of the two).
SHARED_NUMBERS = ("activation", "importance", "salience", "confidence")


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact: one line of knowledge-graph/facts.jsonl (fact.schema.json), one field per
    property of the schema. Optional properties a record lacks read as None, except
    sources and entities (empty) and pinned (False).

    Facts are made from records the store has already checked against the schema, so
    from_record does not check them again: that would double the cost of every load.
    Frozen: a change is a new Fact (changed), which the graph writes back whole.
    """

    id: str
    subject: str
    predicate: str
    object: str
    source: str
    created: str
    activation: float
    sources: tuple[str, ...] = ()
    text: str | None = None
    context: str | None = None
    category: str | None = None
    importance: float | None = None
    salience: float | None = None
    pinned: bool = False
    entities: tuple[str, ...] = ()
    valid_from: str | None = None
    confidence: float | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    superseded_at: str | None = None
    # Who said it (model/provenance.py); None: a fact made before origins were kept, not
    # placed yet (graph/origins.py places it), read as `unknown` until then.
    provenance: Provenance | None = None
    # The keys of the record, in its order: to_record writes them back in that order, so
    # that reading and writing a file changes none of its bytes.
    _keys: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # Whether to_record is known to pass fact.schema.json: the store then writes it without
    # checking it a second time (a fifth of an import's time at 100,000 facts).
    _checked: bool = field(default=False, repr=False, compare=False)

    @classmethod
    def from_record(
        cls, record: Mapping[str, Any], *, checked: bool = False, shared: dict | None = None
    ) -> Fact:
        """The Fact of a record already checked against fact.schema.json (an unknown key
        still raises TypeError). `checked`: the record was checked by the store's reader
        (not only by whoever made it), so the Fact is written back unchecked. `shared`: a
        dictionary kept by a reader of many records, through which the values that repeat
        from fact to fact (SHARED_VALUES, the record's keys, its provenance) are one object
        for all the facts holding them, not one each as JSON parses them (100,000 facts
        read from facts.jsonl held 1.5 KB each, 448 bytes so)."""
        values = dict(record)
        keys = tuple(record)
        if "sources" in values:
            values["sources"] = tuple(values["sources"])
        if "entities" in values:
            values["entities"] = tuple(values["entities"])
        given = values.get("provenance")
        if shared is not None:
            for name in SHARED_VALUES:
                value = values.get(name)
                if value is not None:
                    values[name] = shared.setdefault(value, value)
            for name in SHARED_NUMBERS:
                value = values.get(name)
                if value is not None:
                    values[name] = shared.setdefault(number_key(value), value)
            keys = shared.setdefault(keys, keys)
            if isinstance(given, dict):
                held = ("provenance", *given.items())
                made = shared.get(held)
                if made is None:
                    made = shared[held] = Provenance.of(given) or Provenance(UNTRUSTED)
                values["provenance"] = made
                given = None
        if given is not None:
            values["provenance"] = Provenance.of(given) or Provenance(UNTRUSTED)
        return cls(**values, _keys=keys, _checked=checked)

    def mark_checked(self) -> Fact:
        """This fact, noted as passing fact.schema.json by whoever just checked its record
        (the only change made in place: any other change makes a new, unchecked Fact)."""
        object.__setattr__(self, "_checked", True)
        return self

    @property
    def checked(self) -> bool:
        """Whether to_record is known to pass fact.schema.json (see mark_checked)."""
        return self._checked

    @classmethod
    def from_archived(cls, record: Mapping[str, Any]) -> Fact:
        """The fact an archive record holds (the record without its archive keys)."""
        return cls.from_record({k: v for k, v in record.items() if k not in ARCHIVE_KEYS})

    def to_record(self) -> dict[str, Any]:
        """The record as facts.jsonl holds it: the keys it was read with, in their order,
        then the optional properties it gained since; an optional property never given
        stays absent."""
        record: dict[str, Any] = {}
        for name in self._keys:
            value = getattr(self, name)
            if value is not None:
                record[name] = _json_value(value)
        # A Fact made or replaced without `changed` still writes everything it holds.
        for name, default in _DEFAULTS:
            if name not in record:
                value = getattr(self, name)
                if value is not None and (default is _REQUIRED or value != default):
                    record[name] = _json_value(value)
        return record

    def changed(self, **changes: Any) -> Fact:
        """A copy with `changes`; a property it did not have goes after the others in its
        record, and None removes an optional property (as deleting the key always did)."""
        removed = {name for name, value in changes.items() if value is None}
        added = [name for name in changes if name not in removed and name not in self._keys]
        keys = tuple(name for name in self._keys if name not in removed) + tuple(added)
        return dataclasses.replace(self, **changes, _keys=keys, _checked=False)

    @property
    def current(self) -> bool:
        """Not replaced by a newer statement."""
        return self.superseded_by is None

    @property
    def sentence(self) -> str:
        """The fact as one line of prose (fact_sentence)."""
        return fact_sentence(self)

    @property
    def said_by(self) -> Provenance:
        """Who said it; a fact not placed yet is of unknown origin."""
        return self.provenance if self.provenance is not None else UNKNOWN_ORIGIN

    @property
    def trusted(self) -> bool:
        """Whether the owner or the agent answering them said it: what alone may reach
        MEMORY.md, be injected unasked, or replace or absorb another fact."""
        return self.provenance is not None and self.provenance.trusted


def _json_value(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Provenance):
        return value.to_json()
    return value


_REQUIRED = object()
_DEFAULTS = tuple(
    (spec.name, _REQUIRED if spec.default is dataclasses.MISSING else spec.default)
    for spec in dataclasses.fields(Fact)
    if spec.name not in ("_keys", "_checked")
)


def clean_text(text: str) -> str:
    """Whitespace runs (tabs and newlines too) become one space; ends trimmed."""
    if text.isascii():  # NFC leaves ASCII as it is; split() cuts where \s matches
        return " ".join(text.split())
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def normalise(text: str) -> str:
    """The comparison form: compatibility-normalised, case-folded, spaces collapsed."""
    if text.isascii():  # NFKC leaves ASCII as it is, and casefold is lower for it
        return " ".join(text.lower().split())
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def normalise_predicate(predicate: str) -> str:
    """'Lives in' and 'lives_in' are one relation: lower snake case."""
    return _PREDICATE_SEPARATORS.sub("_", normalise(predicate)).strip("_")


def fact_id(subject: str, predicate: str, obj: str) -> str:
    key = "|".join((normalise(subject), normalise_predicate(predicate), normalise(obj)))
    return f"fact-{_uuid5(key)}"


def _uuid5(name: str) -> str:
    """str(uuid.uuid5(FACT_NAMESPACE, name)) without making a UUID object (which took half
    of an import's time to name its facts)."""
    digest = bytearray(hashlib.sha1(FACT_NAMESPACE.bytes + name.encode("utf-8")).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def fact_sentence(fact: Fact) -> str:
    """The fact as one line of prose: its own text, or subject, predicate and object."""
    if fact.text:
        return fact.text
    return f"{fact.subject} {fact.predicate.replace('_', ' ')} {fact.object}"


def polarity(predicate: str) -> tuple[str, int] | None:
    """(base relation, +1 or -1) for predicates that have a sign, else None."""
    if predicate in POLARITY:
        sign = POLARITY[predicate]
        return (
            _POSITIVE_BASE.get(predicate, predicate)
            if sign > 0
            else _NEGATIVE_BASE.get(predicate, predicate)
        ), sign
    for prefix in _NEGATION_PREFIXES:
        if predicate.startswith(prefix) and len(predicate) > len(prefix):
            base = predicate[len(prefix) :]
            return (_POSITIVE_BASE.get(base, base), -1)
    return None


# Both signs of one relation share a base name so that they can be matched.
_POSITIVE_BASE = {
    "likes": "likes",
    "like": "likes",
    "loves": "likes",
    "love": "likes",
    "enjoys": "likes",
    "prefers": "prefers",
    "prefer": "prefers",
    "wants": "wants",
    "uses": "uses",
    "always_uses": "uses",
    "is": "is",
    "has": "has",
    "supports": "supports",
    "agrees_with": "agrees_with",
    "喜欢": "喜欢",
    "爱": "喜欢",
    "偏好": "prefers",
    "想要": "wants",
    "使用": "uses",
    "是": "is",
}
_NEGATIVE_BASE = {
    "dislikes": "likes",
    "dislike": "likes",
    "hates": "likes",
    "hate": "likes",
    "avoids": "prefers",
    "avoid": "prefers",
    "does_not_want": "wants",
    "never_uses": "uses",
    "is_not": "is",
    "does_not_have": "has",
    "opposes": "supports",
    "disagrees_with": "agrees_with",
    "讨厌": "喜欢",
    "不喜欢": "喜欢",
    "厌恶": "喜欢",
    "不想要": "wants",
    "不使用": "uses",
    "不是": "is",
}


def number_key(value: float) -> tuple:
    """A number's key among values held once for all that hold them: its type and its sign
    too, since 1 and 1.0, and 0.0 and -0.0, are equal but written otherwise (TypeError for
    what is no number)."""
    return (type(value), value, math.copysign(1.0, value))


def replacement_key(fact: Fact, single_valued: frozenset[str]) -> tuple | None:
    """Facts that share this key cannot both be current; None when the fact replaces nothing.

    A single-valued predicate (lives_in) keys on subject and predicate, so any new object
    replaces the old. A signed predicate (likes/dislikes) keys on subject, base relation and
    object, so only the opposite statement about the same thing replaces it.
    """
    subject = normalise(fact.subject)
    predicate = fact.predicate
    if predicate in single_valued:
        return ("single", subject, predicate)
    signed = polarity(predicate)
    if signed is not None:
        return ("polar", subject, signed[0], normalise(fact.object))
    return None


def new_fact(
    fields: dict,
    *,
    created: str,
    default_source: str,
    provenance: Provenance | None = None,
    shared: dict | None = None,
) -> Fact:
    """A complete fact from the fields a user gave (already schema-checked input), said by
    whom `provenance` names (set by the caller, never by the fields). `shared`: as for
    Fact.from_record, kept by the maker of many facts."""
    subject = clean_text(fields["subject"])
    predicate = normalise_predicate(fields["predicate"])
    obj = clean_text(fields["object"])
    record: dict = {
        "id": fact_id(subject, predicate, obj),
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "source": clean_text(fields.get("source") or default_source),
        "created": created,
        "activation": 1.0,
    }
    if fields.get("text"):
        record["text"] = clean_text(fields["text"])
    if fields.get("context"):
        context = clean_text(fields["context"])[:MAX_CONTEXT_CHARS]
        if context and context != record.get("text"):
            record["context"] = context
    category = fields.get("category")
    if category:
        record["category"] = category
    if "importance" in fields:
        record["importance"] = float(fields["importance"])
    elif category:
        record["importance"] = INTRINSIC_IMPORTANCE[category]
    if fields.get("pinned"):
        record["pinned"] = True
    if fields.get("entities"):
        names = [clean_text(name) for name in fields["entities"]]
        record["entities"] = list(dict.fromkeys(name for name in names if name))
    for key in ("valid_from", "confidence"):
        if key in fields:
            record[key] = fields[key]
    if "salience" in fields:
        record["salience"] = round(float(fields["salience"]), 3)
    if provenance is not None:
        record["provenance"] = provenance.to_json()
    return Fact.from_record(record, shared=shared)


def vector_id(fact_id: str) -> int:
    """A stable non-negative int64 from the fact's uuid (its top 63 bits): the fact's id in
    the vector index and the full-text index."""
    return int(fact_id[len("fact-") :].replace("-", ""), 16) >> 65


def stable_hash(data: bytes) -> int:
    """A stable non-negative 63-bit hash of `data` (Python's own hash() changes between
    processes): exact keys of recall's lexical snapshot, full-text documents' contents."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big") >> 1
