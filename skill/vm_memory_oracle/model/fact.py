"""What a fact is: its normal form, its id, its sentence, and when one fact replaces another.

Pure functions only; nothing here reads or writes a file.
"""

from __future__ import annotations

import re
import unicodedata
import uuid

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

# Predicates that hold one value at a time for a subject: a new object replaces the old.
DEFAULT_SINGLE_VALUED = (
    "name",
    "is_named",
    "called",
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
    "叫",
    "名字",
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


def clean_text(text: str) -> str:
    """Whitespace runs (tabs and newlines too) become one space; ends trimmed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def normalise(text: str) -> str:
    """The comparison form: compatibility-normalised, case-folded, spaces collapsed."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def normalise_predicate(predicate: str) -> str:
    """'Lives in' and 'lives_in' are one relation: lower snake case."""
    return _PREDICATE_SEPARATORS.sub("_", normalise(predicate)).strip("_")


def fact_id(subject: str, predicate: str, obj: str) -> str:
    key = "|".join((normalise(subject), normalise_predicate(predicate), normalise(obj)))
    return f"fact-{uuid.uuid5(FACT_NAMESPACE, key)}"


def fact_sentence(fact: dict) -> str:
    """The fact as one line of prose: its own text, or subject, predicate and object."""
    if fact.get("text"):
        return fact["text"]
    return f"{fact['subject']} {fact['predicate'].replace('_', ' ')} {fact['object']}"


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


def replacement_key(fact: dict, single_valued: frozenset[str]) -> tuple | None:
    """Facts that share this key cannot both be current; None when the fact replaces nothing.

    A single-valued predicate (lives_in) keys on subject and predicate, so any new object
    replaces the old. A signed predicate (likes/dislikes) keys on subject, base relation and
    object, so only the opposite statement about the same thing replaces it.
    """
    subject = normalise(fact["subject"])
    predicate = fact["predicate"]
    if predicate in single_valued:
        return ("single", subject, predicate)
    signed = polarity(predicate)
    if signed is not None:
        return ("polar", subject, signed[0], normalise(fact["object"]))
    return None


def new_fact(fields: dict, *, created: str, default_source: str) -> dict:
    """A complete fact record from the fields a user gave (already schema-checked input)."""
    subject = clean_text(fields["subject"])
    predicate = normalise_predicate(fields["predicate"])
    obj = clean_text(fields["object"])
    fact = {
        "id": fact_id(subject, predicate, obj),
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "source": clean_text(fields.get("source") or default_source),
        "created": created,
        "activation": 1.0,
    }
    if fields.get("text"):
        fact["text"] = clean_text(fields["text"])
    if fields.get("context"):
        context = clean_text(fields["context"])[:MAX_CONTEXT_CHARS]
        if context and context != fact.get("text"):
            fact["context"] = context
    category = fields.get("category")
    if category:
        fact["category"] = category
    if "importance" in fields:
        fact["importance"] = float(fields["importance"])
    elif category:
        fact["importance"] = INTRINSIC_IMPORTANCE[category]
    if fields.get("pinned"):
        fact["pinned"] = True
    if fields.get("entities"):
        names = [clean_text(name) for name in fields["entities"]]
        fact["entities"] = list(dict.fromkeys(name for name in names if name))
    for key in ("valid_from", "confidence"):
        if key in fields:
            fact[key] = fields[key]
    if "salience" in fields:
        fact["salience"] = round(float(fields["salience"]), 3)
    return fact
