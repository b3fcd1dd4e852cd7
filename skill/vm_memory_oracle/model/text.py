"""Tokens for lexical matching in English and Chinese (which has no spaces between words).

Latin-script text splits into words (lightly stemmed); runs of CJK characters become their
single characters and overlapping pairs, so "花生过敏" matches "对花生过敏" without a
dictionary.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .fact import clean_text, normalise

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# The speaker of themself ("I", "my", 我; not 我们): salience's feature, an article's voice
# (extract/pasted.py) and a query about the user (recall/corpus.py) read it alike.
_SELF_WORDS = "i|i'm|i've|i'll|i'd|my|mine|myself"
FIRST_PERSON = re.compile(rf"\b(?:{_SELF_WORDS}|me)\b|我(?!们)", re.IGNORECASE)
# The speaker as the subject or owner of what they say ("I", "my"), not only its object: "can
# you tell me more?" says nothing of the one asking, "how do I keep my living room clean?" does.
OF_THEMSELF = re.compile(rf"\b(?:{_SELF_WORDS})\b|我(?!们)", re.IGNORECASE)
# The one spoken to ("you", 你; not 你们) and the speaker with others ("we", 我们): salience's
# features, and together the words that turn a question to the one answering or to what the
# two said together ("what did you suggest?", "in our last chat"): the asker asks of more
# than their own doings (recall/query.py).
_YOU_WORDS = "you|you're|you've|your|yours|yourself"
_WE_WORDS = "we|we're|we've|us|our|ours"
SECOND_PERSON = re.compile(rf"\b(?:{_YOU_WORDS})\b|[你您](?!们)", re.IGNORECASE)
FIRST_PLURAL = re.compile(rf"\b(?:{_WE_WORDS})\b|我们", re.IGNORECASE)
TO_THE_OTHER = re.compile(rf"\b(?:{_YOU_WORDS}|{_WE_WORDS})\b|你|您|我们", re.IGNORECASE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")

STOPWORDS = frozenset(
    """
a an the and or but if of to in on at by for with from as is are was were be been being am
do does did have has had i me my we our you your he him his she her it its they them their
this that these those what which who whom whose when where why how there here about into
than then so not no yes can could would should will shall may might must just also very
please tell know remember recall any some all s t
""".split()
)
CJK_STOP_CHARS = frozenset("的了是在吗呢吧啊和与也都就么什我你他她它们这那个有")
CONTEXT_CHARS = 1000  # of a turn's context, at most: its end is kept
# Of the question a turn answers, at most: its end, where a long turn asks ("... Would you
# like a packing list?"). A short answer is found by the question's words, and the model's
# cost is its tokens.
ASKED_CHARS = 300


def question_of(speaker: str, text: str) -> str:
    """The question a turn asked, as "speaker: text": at most its last ASKED_CHARS
    characters, from the start of a word."""
    said = clean_text(text)
    if len(said) > ASKED_CHARS:
        tail = said[-ASKED_CHARS:]
        space = tail.find(" ")
        said = tail[space + 1 :] if 0 <= space < ASKED_CHARS // 2 else tail
    return f"{speaker}: {said}"


def turn_context(speaker: str, text: str, asked: str | None = None) -> str:
    """A turn as the semantic indexes embed it: who said what, after the question of another
    speaker it answers ("Bob: Where to? Ann: Sweden, four years ago"), on one line, at most
    its last CONTEXT_CHARS characters. A fact's context (extract/rules.py) and its turn's
    episode (episodes/) are this one text, so the model embeds it once for both."""
    said = clean_text(f"{asked} {speaker}: {text}" if asked else f"{speaker}: {text}")
    return said[-CONTEXT_CHARS:].lstrip()


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=4096)
def evidence_sequence(text: str) -> tuple[str, ...]:
    """The evidence terms of `text` in the order they come: its words and numbers (stop words
    dropped), and its CJK character pairs; a single CJK character counts only when it stands
    alone, as in "茶" (inside a longer run, "用" of "作用" says nothing of "用户"), and a pair
    with a function character (的, 了, 是...) is no word of its own. Kept for the texts read
    last: a recall reads its query's terms several times."""
    normal = normalise(text)
    found: list[tuple[int, str]] = []
    latin = _CJK.sub(lambda run: " " * len(run.group()), normal)  # positions kept
    for match in _WORD.finditer(latin):
        if match.group() not in STOPWORDS:
            found.append((match.start(), _stem(match.group())))
    for match in _CJK.finditer(normal):
        run = match.group()
        if len(run) == 1:
            if run not in CJK_STOP_CHARS:
                found.append((match.start(), run))
            continue
        found.extend(
            (match.start() + i, run[i : i + 2])
            for i in range(len(run) - 1)
            if run[i] not in CJK_STOP_CHARS and run[i + 1] not in CJK_STOP_CHARS
        )
    return tuple(term for _, term in sorted(found))


def evidence_terms(text: str) -> set[str]:
    """The terms of `text` whose presence in a fact is evidence that the fact concerns it
    (see evidence_sequence)."""
    return set(evidence_sequence(text))


def adjacent_pairs(text: str) -> set[tuple[str, str]]:
    """Each two evidence terms that follow one another in `text`: a shared pair is a shared
    phrase ("database migration"; for CJK, three characters or more: 北京出差)."""
    sequence = evidence_sequence(text)
    return set(zip(sequence, sequence[1:]))


def tokens(text: str, *, pairs: bool = True) -> list[str]:
    """Lexical tokens of `text`, stop words dropped, in order (repeats kept); pairs=False
    leaves out the overlapping CJK character pairs, so each CJK character counts once."""
    result: list[str] = []
    normal = normalise(text)
    for piece in _WORD.findall(_CJK.sub(" ", normal)):
        if piece not in STOPWORDS:
            result.append(_stem(piece))
    for run in _CJK.findall(normal):
        chars = [char for char in run]
        result.extend(char for char in chars if char not in CJK_STOP_CHARS)
        if pairs:
            result.extend(run[i : i + 2] for i in range(len(run) - 1))
    return result
