"""First and second person resolved: a turn's sentence rewritten about named people.

"I'm creating a library for when I have kids", said by Caroline, is stored as "Caroline is
creating a library for when they have kids"; "I love that you chose pottery", said by
Caroline to Melanie, as "Caroline loves that Melanie chose pottery". The speaker is named at
the first mention and is "they" after it (no gender is guessed); the addressee is named at
every mention, so two people are never both "they". "We", "us" and "our" are left as said:
who else they take in is not known. Chinese: 我 -> the speaker, 你 -> the addressee, 我们
and 你们 left as said.

Pure functions; `Resolved.changed` says whether anything was rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Words that may stand between "I" and its verb ("I really love").
_ADVERBS = frozenset(
    """
really also just still always never actually usually often finally totally absolutely
definitely recently truly honestly sometimes even already probably certainly seriously
""".split()
)
# Verbs whose form after "I" is the form after "she" or "they" too: past tenses and modals.
_UNCHANGED = frozenset(
    """
can could will would shall should may might must was went got had made took saw came did
said felt thought found gave told knew left kept began ran bought brought wrote met heard
sat stood lost paid sent built spent won taught caught fell drove ate drank swam sang flew
grew threw wore chose broke spoke woke forgot became held led understood hung fed meant
slept lent fought sought put let set cut hit quit read shut spread cost hurt used ought
""".split()
)
_THIRD_PERSON = {
    "am": "is",
    "'m": "is",
    "’m": "is",
    "have": "has",
    "'ve": "has",
    "’ve": "has",
    "do": "does",
    "don't": "doesn't",
    "don’t": "doesn’t",
    "'ll": "will",
    "’ll": "will",
    "'d": "would",
    "’d": "would",
    "haven't": "hasn't",
    "haven’t": "hasn’t",
    "was": "was",
    "wasn't": "wasn't",
    "go": "goes",
}
_THEY = {
    "am": "are",
    "'m": "'re",
    "’m": "’re",
    "was": "were",
    "wasn't": "weren't",
    "wasn’t": "weren’t",
}
_YOU_AS_NAME = {
    "are": "is",
    "'re": "is",
    "’re": "is",
    "were": "was",
    "weren't": "wasn't",
    "weren’t": "wasn’t",
    "have": "has",
    "'ve": "has",
    "’ve": "has",
    "do": "does",
    "don't": "doesn't",
    "don’t": "doesn’t",
    "haven't": "hasn't",
    "haven’t": "hasn’t",
    "aren't": "isn't",
    "aren’t": "isn’t",
    "'ll": "will",
    "’ll": "will",
    "'d": "would",
    "’d": "would",
}
# "You" that means anyone, in phrases said without thinking of the listener.
_GENERIC_YOU = re.compile(
    r"\b(?:you know|you see|you never know|thank you|if you ask me|you can't go wrong|"
    r"you can never|you only live once|you name it|mind you|you bet|bless you|see you|"
    r"you too|love you|miss you so|you guys|you all|you two|you both)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|['’](?:m|ve|ll|d|re|s)\b|\s+|[^\sA-Za-z]")
_VOWEL_Y = re.compile(r"[aeiou]y$")
# Any other adverb in -ly ("I eventually got"), but not a verb ("I reply", "I rally").
_LY_ADVERB = re.compile(r"(?!(?:bully|rally|tally|sully|dally)$)[a-z]{3,}(?<!p)ly")
_SIBILANT = re.compile(r"(?:s|sh|ch|x|z|o)$")


@dataclass(frozen=True)
class Resolved:
    text: str
    changed: bool  # a pronoun was rewritten
    speaker_named: bool  # the speaker's name now stands in the text


def third_person(verb: str) -> str:
    """The form of a present-tense verb after he, she or a name: love -> loves."""
    lower = verb.lower()
    if lower in _THIRD_PERSON:
        return _match_case(verb, _THIRD_PERSON[lower])
    if lower in _UNCHANGED or lower.endswith("ed") or "'" in lower or "’" in lower:
        return verb
    if lower.endswith("y") and not _VOWEL_Y.search(lower):
        return verb[:-1] + "ies"
    if _SIBILANT.search(lower):
        return verb + "es"
    return verb + "s"


def _match_case(model: str, word: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def resolve_english(
    text: str, speaker: str, addressee: str | None, *, named: bool = False
) -> Resolved:
    """`text` with I/me/my and you/your resolved to `speaker` and `addressee`; `named`: the
    speaker is already named just before `text` (the object of "{speaker} loves ...")."""
    tokens = _TOKEN.findall(text)
    generic = [(m.start(), m.end()) for m in _GENERIC_YOU.finditer(text)]
    out: list[str] = []
    changed = False  # and once `named`, the speaker is "they"
    offset = index = 0
    while index < len(tokens):
        token = tokens[index]
        start = offset
        offset += len(token)
        lower = token.lower().replace("’", "'")
        if lower in ("i", "i'm", "i've", "i'll", "i'd"):
            contraction = lower[1:]
            if named:
                pronoun = "They" if _sentence_start(out) else "they"
                out.append(pronoun + {"'m": "'re"}.get(contraction, contraction))
            elif contraction:
                out.append(f"{speaker} {_contracted(contraction, tokens, index)}")
            else:
                out.append(speaker)
            if not contraction:
                index, offset = _conjugate_next(
                    tokens,
                    index,
                    offset,
                    out,
                    table=_THEY if named else _THIRD_PERSON,
                    third=not named,
                )
            named = changed = True
        elif lower in ("me", "my", "mine", "myself"):
            if named:
                out.append(
                    _match_case(
                        token,
                        {"me": "them", "my": "their", "mine": "theirs", "myself": "themselves"}[
                            lower
                        ],
                    )
                )
            else:
                out.append(speaker + ("'s" if lower in ("my", "mine") else ""))
            changed = True
        elif lower in _YOU_FORMS and addressee and not any(a <= start < b for a, b in generic):
            if lower in ("your", "yours"):
                out.append(addressee + "'s")
            elif lower in ("you", "yourself"):
                subject = lower == "you" and _is_subject(out)
                out.append(addressee)
                if subject:
                    index, offset = _conjugate_next(
                        tokens, index, offset, out, table=_YOU_AS_NAME, third=True
                    )
            else:
                out.append(f"{addressee} {_YOU_AS_NAME.get(lower[3:], lower[3:])}")
            changed = True
        else:
            out.append(token)
        index += 1
    text = "".join(out)
    if changed and addressee:  # "Melanie knows Caroline can do it, Caroline!"
        text = re.sub(rf",\s*{re.escape(addressee)}\s*([.!?]*)$", r"\1", text)
    return Resolved(text, changed, changed and speaker in text)


_YOU_FORMS = frozenset(("you", "your", "yours", "yourself", "you're", "you've", "you'll", "you'd"))


def _contracted(contraction: str, tokens: list[str], index: int) -> str:
    """I'm -> is, I've -> has, I'll -> will, I'd -> would (had before "been")."""
    if contraction == "'d":
        following = [token.lower() for token in tokens[index + 1 : index + 4] if token.strip()]
        return "had" if following[:1] == ["been"] else "would"
    return _THIRD_PERSON[contraction]


def _sentence_start(out: list[str]) -> bool:
    for token in reversed(out):
        if token.strip():
            return token in ".!?"
    return True


def _is_subject(before: list[str]) -> bool:
    """Whether a "you" after `before` is the subject of what follows (not an object)."""
    for token in reversed(before):
        if not token.strip():
            continue
        return token.lower() in (
            "that",
            "when",
            "if",
            "because",
            "since",
            "and",
            "but",
            "so",
            "while",
            "how",
            "what",
            "where",
            "as",
            "though",
            ",",
            "-",
            "–",
            "—",
            ":",
            ";",
            ".",
            "!",
            "?",
        )
    return True


def _conjugate_next(
    tokens: list[str],
    index: int,
    offset: int,
    out: list[str],
    *,
    table: dict[str, str],
    third: bool,
) -> tuple[int, int]:
    """Copy the spaces and adverbs after a subject, then the verb in the subject's form.
    Returns the index and offset of the last token copied."""
    look = index + 1
    pending: list[str] = []
    while look < len(tokens):
        token = tokens[look]
        lower = token.lower().replace("’", "'")
        if not token.strip() or lower in _ADVERBS or _LY_ADVERB.fullmatch(lower):
            pending.append(token)
            look += 1
            continue
        if lower in _YOU_FORMS or lower in ("me", "my", "mine", "myself", "i"):
            return index, offset
        if lower in table:
            verb = _match_case(token, table[lower])
        elif third and re.fullmatch(r"[a-z]+", lower):
            verb = third_person(token)
        else:
            return index, offset
        if lower.startswith("'") and not verb.startswith("'"):
            verb = " " + verb
        out.extend(pending)
        out.append(verb)
        for token in tokens[index + 1 : look + 1]:
            offset += len(token)
        return look, offset
    return index, offset


_CJK_ME = re.compile(r"我(?!们)")
_CJK_YOU = re.compile(r"[你您](?!们)")


def resolve_chinese(text: str, speaker: str, addressee: str | None) -> Resolved:
    """我 -> the speaker, 你/您 -> the addressee; 我们 and 你们 as said."""
    name = "用户" if speaker == "user" else speaker
    other = None if addressee is None else ("用户" if addressee == "user" else addressee)
    resolved = _CJK_ME.sub(name, text)
    if other:
        resolved = _CJK_YOU.sub(other, resolved)
    return Resolved(resolved, resolved != text, name in resolved and name not in text)
