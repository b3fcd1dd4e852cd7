"""The deterministic extractor: turns -> fragments -> kept facts with importance and provenance.

importance = intrinsic(category) + explicit signals ("remember"/"记住" +0.5,
"important"/"重要" +0.3, strong emphasis +0.1), clamped to [0, 1]. Repetition (+0.2) is
added when a fact is stated again. What is said in passing ("by the way, I completed my
undergrad at UCLA") loses nothing: such turns are more often what a later question asks
about than other turns, in both development sets (references/scoring.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..clock import format_iso
from ..model.fact import INTRINSIC_IMPORTANCE
from ..model.text import question_of, turn_context
from ..model.turn import Turn
from .dates import resolve_dates
from .fragments import CHATTER, COMMAND, STATEMENT, Fragment, content_of, fragments
from .pasted import outside
from .patterns import chinese, match_statement
from .person import resolve_chinese, resolve_english
from .redact import holds_secret
from .salience import Statement, content_words, kind_of

JsonObject = dict[str, Any]  # a record as JSON writes it

SIGNALS = (
    (
        re.compile(
            r"\b(?:remember|don'?t forget|from now on|going forward)\b|记住|记得|别忘了|以后都",
            re.IGNORECASE,
        ),
        0.5,
    ),
    (re.compile(r"\b(?:important|crucial|critical|essential)\b|重要|关键", re.IGNORECASE), 0.3),
    (re.compile(r"!!|！！|\b(?:really really|so so)\b|非常非常"), 0.1),
)

# The predicate of an action item: a task the person asked for by a time, or a reminder.
ACTION_ITEM_PREDICATE = "asked_assistant_to"
SECTION_OF_CATEGORY = {"decision": "decisions", "preference": "preferences", "action": "actions"}
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MIN_WORDS = re.compile(r"[^\W\d_]{2,}|\d+", re.UNICODE)


@dataclass(frozen=True)
class FragmentRecord:
    """A fragment as the external extractor receives it."""

    id: int
    text: str
    kind: str
    source: str
    speaker: str
    ts: str


def signal_score(text: str) -> float:
    return sum(weight for pattern, weight in SIGNALS if pattern.search(text))


def importance_of(category: str, text: str) -> float:
    return round(min(1.0, max(0.0, INTRINSIC_IMPORTANCE[category] + signal_score(text))), 3)


def section_of(category: str) -> str:
    return SECTION_OF_CATEGORY.get(category, "facts")


def in_context(turns: list[Turn]) -> list[Turn]:
    """Each turn of one log with what its neighbours tell: whom its "you" means (the nearest
    other speaker of the log, before it, else after it; in a log of roles, the user's
    listener is the assistant and the assistant's the user); whether the turn before it or
    after it asks something; its place in the log; and how much of it is new there."""
    named = [turn.speaker for turn in turns]
    said: set[str] = set()
    result = []
    for index, turn in enumerate(turns):
        if turn.speaker is None:
            other = {"user": "assistant", "assistant": "user"}.get(turn.role)
        else:
            before = (name for name in reversed(named[:index]) if name and name != turn.speaker)
            after = (name for name in named[index + 1 :] if name and name != turn.speaker)
            other = next(before, None) or next(after, None)
        words = content_words(turn.text)
        result.append(
            replace(
                turn,
                addressee=other,
                after_question=index > 0 and _asks(turns[index - 1].text),
                asked=_question_before(turns, index),
                followed_by_question=index + 1 < len(turns) and _asks(turns[index + 1].text),
                place=index,
                novelty=len(words - said) / len(words) if words else 0.0,
            )
        )
        said |= words
    return result


def _asks(text: str) -> bool:
    return "?" in text or "？" in text


def _question_before(turns: list[Turn], index: int) -> str | None:
    """What the turn before this one asked of it (model.text.question_of: "speaker: text",
    its end), when another speaker said it: a question ("Bob: Where to?"), which a short
    answer ("Sweden, four years ago") needs to be understood; and for the assistant, whatever
    the person said last, question or request ("... 27. Kg2 Bd5+", answered by "28. Kg3
    would be my move")."""
    if index == 0:
        return None
    before, turn = turns[index - 1], turns[index]
    if before.subject == turn.subject:
        return None
    if not _asks(before.text) and turn.role != "assistant":
        return None
    return question_of(before.subject, before.text)


def turn_fragments(turns: list[Turn], roles: frozenset[str]) -> list[tuple[Turn, Fragment]]:
    """The fragments of the turns of `roles`, but those of pasted material (extract/pasted.py:
    an article, code, a log, a table, a quotation), which has its own voice."""
    pairs = []
    for turn in turns:
        if turn.role not in roles:
            continue
        found = fragments(turn.text)
        kept = outside(turn.text, [fragment.text for fragment in found])
        pairs += [(turn, fragment) for fragment, own in zip(found, kept) if own]
    return pairs


def fragment_records(pairs: list[tuple[Turn, Fragment]]) -> list[FragmentRecord]:
    return [
        FragmentRecord(
            index, fragment.text, fragment.kind, turn.source, turn.subject, format_iso(turn.ts)
        )
        for index, (turn, fragment) in enumerate(pairs, 1)
    ]


@dataclass(frozen=True)
class Extracted:
    """A fact a fragment states, as the rules read it: the fields of a fact-input record
    (`context`: the whole turn, where the fragment is not all of it or answers a
    question)."""

    subject: str
    predicate: str
    object: str
    text: str
    category: str
    importance: float
    source: str
    valid_from: str
    context: str | None = None

    def to_json(self) -> JsonObject:
        """The fact-input record (context only where there is one)."""
        record: JsonObject = {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "text": self.text,
            "category": self.category,
            "importance": self.importance,
            "source": self.source,
            "valid_from": self.valid_from,
        }
        if self.context is not None:
            record["context"] = self.context
        return record


def extract_facts(pairs: list[tuple[Turn, Fragment]], *, threshold: float) -> list[Extracted]:
    """The facts of every fragment that reads as a fact and passes `threshold`."""
    return [fields for fields, _ in extract_statements(pairs, threshold=threshold)]


def extract_statements(
    pairs: list[tuple[Turn, Fragment]], *, threshold: float
) -> list[tuple[Extracted, Statement]]:
    """(the fact, what salience reads of it) for every fragment that reads as a fact and
    passes `threshold`."""
    by_turn: dict[str, list[Fragment]] = {}
    positions = []  # each fragment's place among its turn's
    for turn, fragment in pairs:
        siblings = by_turn.setdefault(turn.source, [])
        positions.append(len(siblings))
        siblings.append(fragment)
    found = []
    for (turn, fragment), position in zip(pairs, positions):
        fields = fact_from_fragment(turn, fragment)
        if fields is None or fields.importance < threshold:
            continue
        siblings = by_turn[turn.source]
        found.append(
            (
                fields,
                Statement(
                    fragment.text,
                    turn.text,
                    position,
                    len(siblings),
                    fields.predicate != "said",
                    siblings[0].kind == CHATTER,
                    tuple(name for name in (turn.speaker, turn.addressee) if name),
                    turn.after_question,
                    turn.place,
                    turn.novelty,
                    turn.followed_by_question,
                    kind_of(turn.role, turn.addressee),
                ),
            )
        )
    return found


def fact_from_fragment(turn: Turn, fragment: Fragment) -> Extracted | None:
    if fragment.kind not in (STATEMENT, COMMAND) or holds_secret(fragment.text):
        # What remains of a sentence around a secret is not worth keeping, whether the
        # secret was redacted before the fragment was read or not: a line teaches the same.
        # (A fragment is not always the turn's text as it was redacted: the connectives
        # it was split at are rewritten.)
        return None
    content = content_of(fragment.text)
    found = match_statement(content) or match_statement(fragment.text)
    today = turn.ts.date()
    subject, addressee = turn.subject, turn.addressee
    task = _task(content, today) if found is None and fragment.kind == COMMAND else None
    if found is None and task is None and (fragment.kind != STATEMENT or not _substantial(content)):
        return None
    if found is not None and _POINTS_BACK.match(found.obj):
        found = None  # "I chose them ...": what "them" is, only the turn before says
    if task is not None:
        # A request to do something by a time, or to remind: the action item the agent
        # must not forget ("Please renew the TLS certificate before Friday").
        category, predicate, obj = "action", ACTION_ITEM_PREDICATE, task
        helper = "the assistant" if addressee in (None, "assistant") else addressee
        told = resolve_dates(task, today).text
        if chinese(task):
            told = resolve_chinese(told, subject, helper).text
            text = f"{'用户' if subject == 'user' else subject}请{_zh_helper(helper)}{told}"
        else:
            text = f"{subject} asked {helper} to {resolve_english(told, subject, helper).text}"
    elif found is None:
        category, predicate = "fact", "said"
        obj = resolve_dates(content, today).text
        if chinese(content):
            text = _speaker_sentence(subject, addressee, obj)
        else:
            resolved = resolve_english(obj, subject, addressee)
            mixed = resolve_chinese(resolved.text, subject, addressee)  # 我 in a mixed text
            named = resolved.speaker_named or mixed.speaker_named
            # Who said it, as a sentence says it ("user said: ..."), never as a role label
            # before the line ("user: ...") as a transcript would.
            text = mixed.text if named else f"{subject} said: {mixed.text}"
    else:
        category, predicate = found.category, found.predicate
        obj = resolve_dates(found.obj, today).text
        if found.text is not None:
            told = resolve_english(obj, subject, addressee, named=True).text
            text = found.text.replace("{s}", subject).replace(found.obj, told, 1)
            if found.when:  # "last month (2026-04)" -> " (last month, 2026-04)"
                when = resolve_dates(found.when, today).text
                text += (
                    " (" + (when[:-1].replace(" (", ", ", 1) if when.endswith(")") else when) + ")"
                )
        else:
            text = _speaker_sentence(subject, addressee, resolve_dates(content, today).text)
    said = resolve_dates(fragment.text, today)
    past = [day for day in said.days if day <= today]
    valid_from = past[0].isoformat() if len(said.days) == 1 and past else format_iso(turn.ts)
    context = None
    if fragment.text.strip() != turn.text.strip() or turn.asked is not None:
        # The whole turn as said, for the semantic index: a fragment's meaning often lies
        # around it, and a short answer is found by the words of the question it answers.
        # (A turn that is one fragment is said in the fact's object.)
        context = turn_context(turn.subject, turn.text, turn.asked)
    return Extracted(
        subject,
        predicate,
        obj,
        text,
        category,
        importance_of(category, fragment.text),
        turn.source,
        valid_from,
        context,
    )


# How a request begins ("please", "can you", 请, 帮我), left out of the task it asks for.
_ASKING = re.compile(
    r"^(?:(?:please|pls|kindly)\s+|(?:can|could|would|will) you(?: please)?\s+|"
    r"(?:请你?|麻烦你?|帮我|你帮我))",
    re.IGNORECASE,
)
# A request to be reminded: an action item whenever it is due.
_REMIND = re.compile(r"^(?:remind me|don'?t let me forget)\b|^提醒我", re.IGNORECASE)


def _task(content: str, today) -> str | None:
    """What a request asks to be done, when it is an action item: it names when ("before
    Friday", 明天) or asks to be reminded. A request answered in the turn ("write a poem",
    "list some hotels") is not one."""
    asking = _ASKING.match(content)
    if asking is None and not _REMIND.match(content):
        return None
    task = content[asking.end() :] if asking else content
    task = task.strip().rstrip("?？.。!！")
    if not _substantial(task):
        return None
    if _REMIND.match(task) or resolve_dates(task, today).days:
        return task
    return None


def _zh_helper(helper: str) -> str:
    return "助手" if helper == "the assistant" else helper


def _speaker_sentence(subject: str, addressee: str | None, content: str) -> str:
    """A Chinese first-person fragment with its speaker in place of 我 ("用户讨厌香菜") and
    the addressee in place of 你."""
    name = "用户" if subject == "user" else subject
    content = content.rstrip("。！；，.!;,")
    if content.startswith("我们"):
        return f"{name}说：{resolve_chinese(content, subject, addressee).text}"
    return name + resolve_chinese(re.sub(r"^我", "", content), subject, addressee).text


# An object that only points back at something said before ("them", "it", "that one").
_POINTS_BACK = re.compile(
    r"^(?:them|it|that|this|those|these|one|that one|this one|him|her)"
    r"(?:\s|$)",
    re.IGNORECASE,
)


def _substantial(content: str) -> bool:
    if chinese(content):
        return len(_CJK.findall(content)) >= 3
    return len(_MIN_WORDS.findall(content)) >= 3
