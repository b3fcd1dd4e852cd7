"""When two facts say the same thing, and when they say different things about one subject.

Every answer here is a check a user can repeat by hand, so that a merge or a supersession
can be verified rather than taken on trust:
- the significant words of a fact are the lexical tokens of its sentence (model.text: stop
  words of English and Chinese dropped, each CJK character one word), less its subject's;
- two facts about one subject are duplicates when they share at least 60% of the smaller
  set of significant words, or when their sentence embeddings are closer than a measured
  cosine threshold;
- but never when they disagree: a predicate of the opposite sign (likes / dislikes), a
  negation in one and not the other, or each naming a value the other never mentions
  ("dark mode" / "light mode": a contradiction, which supersession resolves, not a merge);
  for the cosine check, one word swapped for another.
Pure functions only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .fact import Fact, normalise, polarity
from .text import tokens

MIN_OVERLAP = 0.6
# Words that say one thing, compared as one (after model.text's light stemming): a fixed
# list anyone can read, not a model's judgment.
SYNONYMS = {
    **dict.fromkeys(("like", "love", "enjoy", "prefer", "favourite", "favorite", "fond"), "like"),
    **dict.fromkeys(("named", "called", "name"), "name"),
    **dict.fromkeys(("want", "wish", "would_like"), "want"),
}
# Chinese has no spaces, so its synonyms are replaced in the text before it is split.
CJK_SYNONYMS = (("偏好", "喜欢"), ("喜爱", "喜欢"), ("名叫", "叫"), ("名字叫", "叫"))
_NUMBER = re.compile(r"\d+(?:[-.:/,]\d+)*")
_NEGATION = re.compile(r"\b(?:not|no|never|nor|cannot|without)\b|n't\b|[不没别未]")


@dataclass(frozen=True, slots=True)
class Wording:
    """What the checks compare of one fact (slotted: the merge step holds one for each fact
    of a subject, 100,000 of the largest at a million facts)."""

    subject: str
    words: frozenset[str]  # significant words of the sentence, the subject's left out
    value: frozenset[str]  # significant words of the object
    negated: bool
    sign: int | None  # +1 likes, -1 dislikes, None for a predicate with no sign


def wording(fact: Fact) -> Wording:
    subject = normalise(fact.subject)
    own = set(significant_words(subject))
    sentence = fact.sentence
    signed = polarity(fact.predicate)
    return Wording(
        subject=subject,
        words=frozenset(significant_words(sentence)) - own,
        value=frozenset(significant_words(fact.object)) - own,
        negated=bool(_NEGATION.search(normalise(sentence).replace("\u2019", "'"))),
        sign=None if signed is None else signed[1],
    )


def significant_words(text: str) -> list[str]:
    """A number with its separators is one word: "0-1" is not "1-0", nor 14:30 30:14."""
    for word, canonical in CJK_SYNONYMS:
        text = text.replace(word, canonical)
    numbers = _NUMBER.findall(text)
    words = tokens(_NUMBER.sub(" ", text), pairs=False)
    return [SYNONYMS.get(word, word) for word in words] + numbers


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """Shared words over the smaller set's size (the overlap ratio)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def opposed(a: Wording, b: Wording) -> str | None:
    """Why two statements cannot both hold as one, or None: a predicate of the opposite
    sign (likes / dislikes), or a negation in one and not the other."""
    if a.sign is not None and b.sign is not None and a.sign != b.sign:
        return "predicates of opposite sign"
    if a.negated != b.negated:
        return "one is negated"
    return None


def other_values(a: Wording, b: Wording) -> str | None:
    """Each names a value the other never mentions ("fresh detail 5" / "... 7"), or None."""
    only_a, only_b = a.value - b.words, b.value - a.words
    if only_a and only_b:
        return f"different values ({', '.join(sorted(only_a))} / {', '.join(sorted(only_b))})"
    return None


def duplicate_reason(
    a: Wording, b: Wording, cosine: float | None = None, threshold: float | None = None
) -> str | None:
    """Why `a` and `b` say the same thing, or None when they do not (or may disagree).

    Words: 60% of the smaller set shared, and no value in one that the other never
    mentions. Cosine: at least `threshold`, and the sentences are not one word swapped
    for another (dark / light mode), which embeddings place closer than most paraphrases.
    """
    if a.subject != b.subject or opposed(a, b) is not None:
        return None
    shared = overlap(a.words, b.words)
    if shared >= MIN_OVERLAP and other_values(a, b) is None:
        return f"same subject, {shared:.0%} of significant words shared"
    if (
        cosine is not None
        and threshold is not None
        and cosine >= threshold
        and not one_word_swapped(a.words, b.words)
    ):
        return f"same subject, cosine {cosine:.3f} >= {threshold:g}"
    return None


def one_word_swapped(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> bool:
    """They share words and differ in exactly one word each."""
    return bool(a & b) and len(a - b) == 1 and len(b - a) == 1
