"""The managed block of MEMORY.md, reconciled with the active facts.

MEMORY.md is loaded by the agent every session and belongs to people, except for the lines
between the BEGIN and END markers, which this module rewrites: pinned facts first, then the
most salient of the strongly activated ones (salience x activation), one line each, grouped
by subject (the user first); faded, superseded and forgotten ones come out; the whole file
stays within `memory_md_max_lines` and its character budget, and a cap cuts the least
salient. A line is the fact's sentence only (no id: the agent reads every character); the
block's facts are known again by their lines. Every byte outside the block is kept as it
was. Pure: text in, text out; the caller reads and writes the file.
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

from ...extract.fragments import without_opening
from .candidates import (
    USER,
    Shown,
    category_of,
    promotion_problem,
)

BEGIN = "<!-- vm-memory-oracle:begin -->"
END = "<!-- vm-memory-oracle:end -->"
ADD_ABOVE = 0.5  # facts with activation > this are added
REMOVE_BELOW = 0.15  # facts in the block with activation < this are removed
MAX_LINE_CHARS = 200  # a longer fact is shortened at a word, with "…"
DEFAULT_DOCUMENT = f"# MEMORY\n\n{BEGIN}\n{END}\n"
CAP_REASON = "MEMORY.md line cap"
CHAR_CAP_REASON = "MEMORY.md character budget"
GONE_REASON = "no longer an active fact (forgotten or archived)"
SAME_TURN_REASON = "another statement of the same turn is shown"
DUPLICATE_REASON = "a near-duplicate of a line shown"
USER_HEADING = "## The user"
# Two lines whose words overlap this much (Jaccard) say the same thing: one is shown.
NEAR_DUPLICATE = 0.8

_OLD_FACT_LINE = re.compile(r"- .* <!-- (\S+) -->\s*")  # lines of earlier versions
_OLD_HEADINGS = frozenset(
    (  # and their headings, by category
        "## Identity",
        "## Health and safety",
        "## Preferences",
        "## Relationships",
        "## Current state",
        "## Decisions",
        "## Action items",
        "## Facts",
        "## Temporary",
    )
)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_WORDS = re.compile(r"[^\W_]+|[\u4e00-\u9fff]", re.UNICODE)


@dataclass
class Reconciled:
    text: str  # the whole new MEMORY.md
    added: list[str]  # fact ids newly in the block
    removed: list[tuple[str, str]]  # (fact id, reason) for ids that left the block
    kept: list[str]  # ids in the block before and after
    skipped: list[tuple[str, str]]  # (fact id, reason) for eligible facts never promoted
    warnings: list[str]
    previous: str | None = field(default=None, repr=False)  # the input; None: no file
    left_out: int = 0  # facts that qualified but did not fit under the cap

    @property
    def changed(self) -> bool:
        return self.text != self.previous


@dataclass(frozen=True)
class _Document:
    before: str  # everything up to the BEGIN line, verbatim
    block: list[str]  # the lines between the markers, without their endings
    end_ending: str  # the END line's own ending ("" when it is the last line unended)
    after: str  # everything after the END line, verbatim


def _content(line: str) -> str:
    """A line without its ending (any ending str.splitlines knows)."""
    return line.splitlines()[0] if line.splitlines() else ""


def _marker_problem(lines: list[str]) -> str | None:
    contents = [_content(line).strip() for line in lines]
    if any((BEGIN in c or END in c) and c not in (BEGIN, END) for c in contents):
        return "a marker is not on a line of its own"
    begins, ends = contents.count(BEGIN), contents.count(END)
    if begins > 1 or ends > 1:
        return f"{begins} begin and {ends} end markers, expected one of each"
    if begins != ends:
        return (
            "a begin marker without an end marker"
            if begins
            else "an end marker without a begin marker"
        )
    if begins and contents.index(END) < contents.index(BEGIN):
        return "the end marker comes before the begin marker"
    return None


def marker_problem(text: str) -> str | None:
    """Why the markers of MEMORY.md's `text` leave no managed block to rewrite, or None."""
    return _marker_problem(text.splitlines(keepends=True))


def _split_document(lines: list[str]) -> _Document | None:
    """The document around its block (markers checked first); None when there is no block."""
    contents = [_content(line).strip() for line in lines]
    if BEGIN not in contents:
        return None
    begin, end = contents.index(BEGIN), contents.index(END)
    return _Document(
        before="".join(lines[:begin]),
        block=[_content(line) for line in lines[begin + 1 : end]],
        end_ending=lines[end][len(_content(lines[end])) :],
        after="".join(lines[end + 1 :]),
    )


def _with_empty_block(text: str, newline: str, max_lines: int) -> str:
    """`text` verbatim, then a blank line when it fits under the cap, then an empty block."""
    lines = text.splitlines(keepends=True)
    separator = ""
    if lines:
        last = _content(lines[-1])
        separator = newline if last == lines[-1] else ""  # end an unended last line
        if last.strip() and len(lines) + 3 <= max_lines:
            # after a lone "\r", a "\n" would merge with it into one "\r\n" ending
            separator += "\r" if text.endswith("\r") else newline
    return f"{text}{separator}{BEGIN}{newline}{END}{newline}"


def _ids_in_block(block: list[str], known: dict[str, str]) -> list[str]:
    """The fact ids of the block's lines: a line is known by its text (`known`, see
    _known), or, as earlier versions wrote it, by the id in its trailing comment."""
    ids = []
    for line in block:
        fact_id = _id_of(line, known)
        if fact_id:
            ids.append(fact_id)
    return list(dict.fromkeys(ids))


def _id_of(line: str, known: dict[str, str]) -> str | None:
    old = _OLD_FACT_LINE.fullmatch(line)
    if old:
        return old.group(1)
    line = line.rstrip()
    return known.get(line) or known.get(_core(line))


_SHOWN_DAY = re.compile(r" \(\d{4}-\d{2}-\d{2}\)$")
_CORE_CHARS = 80


def _core(line: str) -> str:
    """What stays of a fact's line when its day or its length changes: its first words."""
    text = _SHOWN_DAY.sub("", line).rstrip("…")
    return "~" + text[:_CORE_CHARS]


def _known(
    block: list[str],
    candidates: Sequence[Shown],
    former: dict[str, str] | None = None,
    add_above: float = ADD_ABOVE,
) -> dict[str, str]:
    """line -> fact id for the lines of `block` the facts have (or, by their first words,
    had): only those are looked up (_id_of), and a memory of a million facts has two
    million lines and first words. A line two facts share goes to the one the block would
    show: a current fact before a superseded one, one that may be added (pinned, or above
    `add_above`) before one that may not, then the best ranked; else a line shown for one
    fact would be read back as the other's and the next run would show that one instead."""
    asked = {key for line in block for key in (line.rstrip(), _core(line.rstrip()))}
    known: dict[str, str] = {}
    # Only the facts with a line the block has can claim one: those are ranked, not all.
    claiming = [
        (place, candidate)
        for place, candidate in enumerate(candidates)
        if any(key in asked for key in _keys_of(fact_line(candidate)))
    ]
    first: dict[str, int] = {candidate.id: -1 for _, candidate in claiming}
    for place, candidate in enumerate(candidates):
        if first.get(candidate.id) == -1:
            first[candidate.id] = place  # the first of a repeated id claims, as reconcile

    def claim(candidate: Shown) -> tuple:
        addable = candidate.pinned or candidate.activation > add_above
        return (candidate.superseded, not addable, _rank_key(candidate))

    firsts = [candidate for place, candidate in claiming if first[candidate.id] == place]
    for candidate in sorted(firsts, key=claim):
        for key in _keys_of(fact_line(candidate)):
            if key in asked:
                known.setdefault(key, candidate.id)
    for line, fact_id in (former or {}).items():
        for key in _keys_of(line):
            if key in asked:
                known.setdefault(key, fact_id)
    return known


def _keys_of(line: str) -> tuple[str, str]:
    """What a line is known by: itself, and its first words (_core)."""
    return line, _core(line)


def block_fact_ids(text: str | None, candidates=()) -> list[str]:
    """The fact ids in the managed block, in order, as far as `candidates` (or the ids of
    an earlier version's lines) tell them; [] without a (well-formed) block."""
    lines = (text or "").splitlines(keepends=True)
    document = None if _marker_problem(lines) else _split_document(lines)
    return _ids_in_block(document.block, _known(document.block, candidates)) if document else []


def _select(
    candidates: dict[str, Shown], old_ids: list[str], add_above: float, remove_below: float
) -> tuple[list[Shown], dict[str, str], list[tuple[str, str]]]:
    """The facts that belong in the block, why each old one that does not leaves (the
    others' reasons are not kept: a million facts would each hold one), and which are
    refused."""
    in_block = set(old_ids)
    wanted: list[Shown] = []
    reasons: dict[str, str] = {}
    skipped: list[tuple[str, str]] = []
    for candidate in candidates.values():
        was_in = candidate.id in in_block
        if candidate.superseded:
            if was_in:
                reasons[candidate.id] = "superseded"
            continue
        eligible = (
            candidate.pinned
            or candidate.activation > add_above
            or (was_in and candidate.activation >= remove_below)
        )
        problem = promotion_problem(candidate)
        if problem:
            if was_in:
                reasons[candidate.id] = problem
            elif eligible:
                skipped.append((candidate.id, problem))
        elif eligible:
            wanted.append(candidate)
        elif was_in:
            reasons[candidate.id] = f"activation {candidate.activation:.4f} below {remove_below}"
    return wanted, reasons, skipped


def chars(text: str) -> int:
    """The length of `text` as OpenClaw counts it (JavaScript's, in UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def display(candidate: Shown) -> str:
    """The fact as its line shows it: its text without a spoken opening ("Yeah, ..."), its
    day when it is dated and the text does not say it, shortened at a word to fit
    MAX_LINE_CHARS."""
    return _display(candidate.text, candidate.valid_from)


# A reconciliation shows each of its candidates several times (choosing, fitting, writing):
# each text is made once, of the last DISPLAYS_HELD (a million facts' would be held to the
# end of the consolidation); the next reconciliation empties the cache.
DISPLAYS_HELD = 1 << 16


@lru_cache(maxsize=DISPLAYS_HELD)
def _display(text: str, valid_from: str | None) -> str:
    text = without_opening(" ".join(text.split()))
    day = valid_from or ""
    suffix = f" ({day})" if _DAY.fullmatch(day) and day not in text else ""
    room = MAX_LINE_CHARS - chars("- " + suffix)
    if chars(text) > room:
        cut = text
        while chars(cut) > room - 1:  # counted as OpenClaw counts: UTF-16 units
            cut = cut[:-1]
        cut = cut[: cut.rfind(" ")] if " " in cut[len(cut) // 2 :] else cut
        text = cut.rstrip(" ,;:-") + "…"
    return text + suffix


def line_cost(text: str) -> int:
    """The characters a fact's line takes, its line ending included."""
    return chars(f"- {text}") + 1


def fact_line(candidate: Shown) -> str:
    return f"- {display(candidate)}"


def _heading(subject: str) -> str:
    name = " ".join(subject.split()) or USER
    return USER_HEADING if name.casefold() in (USER, "用户") else f"## {name}"


def _rank_key(candidate: Shown):
    return (not candidate.pinned, -candidate.weight, -candidate.importance, candidate.id)


def _words(text: str) -> frozenset[str]:
    return frozenset(word.casefold() for word in _WORDS.findall(text))


def _numbers(words: frozenset[str]) -> frozenset[str]:
    return frozenset(word for word in words if word.isdigit())


def _near_duplicate(words: frozenset[str], shown: dict[frozenset[str], list[frozenset[str]]]):
    """Whether a line already shown has most of `words` and the same numbers ("dish 31" and
    "dish 32" are two facts). `shown` holds the shown lines' words by their numbers, so a
    line is compared only with those that have its numbers."""
    return bool(words) and any(
        len(words & other) >= NEAR_DUPLICATE * len(words | other)
        for other in shown.get(_numbers(words), ())
    )


def _fit(
    wanted: list[Shown],
    budget: int,
    char_budget: int | None = None,
    noted: Container[str] = frozenset(),
) -> tuple[list[Shown], dict[str, str], int]:
    """The facts whose lines, with their subject headings, fit in `budget` lines and
    `char_budget` characters (line endings counted), taken in rank order: pinned first,
    then by salience x activation. One line per turn and per distinct statement. Returns
    them, why each of the `noted` others was left out, and how many of all the others
    were left out by the line cap or the character budget."""
    taken: list[Shown] = []
    left: dict[str, str] = {}
    capped = 0

    def leave(candidate: Shown, reason: str) -> None:
        if candidate.id in noted:
            left[candidate.id] = reason

    opened: set[str] = set()
    turns: set[str] = set()
    shown: dict[frozenset[str], list[frozenset[str]]] = {}  # words of lines, by numbers
    for candidate in _ranked(wanted):
        # Of the remarks of one turn (category "fact": what no pattern read), the most
        # salient speaks for the turn; what a pattern read (a name, an allergy, a home)
        # is a fact of its own.
        remark = candidate.source.startswith("sessions/") and category_of(candidate) == "fact"
        if remark and candidate.source in turns:
            leave(candidate, SAME_TURN_REASON)
            continue
        words = _words(display(candidate))
        if _near_duplicate(words, shown):
            leave(candidate, DUPLICATE_REASON)
            continue
        heading = _heading(candidate.subject)
        new_group = heading not in opened
        cost = 1 + new_group
        cost_chars = chars(fact_line(candidate)) + 1 + (chars(heading) + 1 if new_group else 0)
        if cost > budget or (char_budget is not None and cost_chars > char_budget):
            leave(candidate, CAP_REASON if cost > budget else CHAR_CAP_REASON)
            capped += 1
            continue
        taken.append(candidate)
        opened.add(heading)
        if remark:
            turns.add(candidate.source)
        shown.setdefault(_numbers(words), []).append(words)
        budget -= cost
        if char_budget is not None:
            char_budget -= cost_chars
    return taken, left, capped


def _ranked(candidates: list[Shown]) -> list[Shown]:
    """`candidates` in the order of _rank_key, without a key tuple per candidate (a million
    facts' held 150 MB): by id, then stably by pinned, salience x activation and importance,
    compared as arrays."""
    import numpy as np

    by_id = sorted(candidates, key=attrgetter("id"))
    count = len(by_id)
    order = np.lexsort(
        (
            np.arange(count),
            -np.fromiter((c.importance for c in by_id), dtype=np.float64, count=count),
            -np.fromiter((c.weight for c in by_id), dtype=np.float64, count=count),
            np.fromiter((not c.pinned for c in by_id), dtype=bool, count=count),
        )
    )
    return [by_id[place] for place in order.tolist()]


def _grouped(facts: list[Shown]) -> dict[str, list[Shown]]:
    """The facts grouped by subject: the user first, then each subject in the order of its
    best fact; within a group, in rank order."""
    groups: dict[str, list[Shown]] = {}
    for candidate in sorted(facts, key=_rank_key):
        groups.setdefault(_heading(candidate.subject), []).append(candidate)
    return {
        heading: groups[heading]
        for heading in sorted(groups, key=lambda heading: heading != USER_HEADING)
    }


def _block_lines(groups: dict[str, list[Shown]]) -> list[str]:
    lines: list[str] = []
    for heading, group in groups.items():
        lines.append(heading)
        lines += [fact_line(candidate) for candidate in group]
    return lines


def _foreign_lines(block: list[str], candidates: Sequence[Shown], known) -> list[str]:
    """The warning for lines inside the managed block that it did not write (they are
    replaced), if there are any."""
    headings = {_heading(candidate.subject) for candidate in candidates} | _OLD_HEADINGS
    foreign = [
        line
        for line in block
        if line.strip() and line.rstrip() not in headings and _id_of(line, known) is None
    ]
    if not foreign:
        return []
    return [
        f"{len(foreign)} line(s) inside the managed block were not written by "
        "vm-memory-oracle and were replaced; keep notes outside the markers"
    ]


def _room(
    document,
    newline: str,
    name: str,
    max_lines: int,
    fill_lines: int | None,
    max_chars: int | None,
    warnings: list[str],
) -> tuple[int, int | None]:
    """The lines (and, with `max_chars`, the characters) the block may take beside the
    user's own text; 0 with a warning when that text leaves none."""
    own_lines = len(document.before.splitlines()) + len(document.after.splitlines())
    fill = fill_lines if fill_lines is not None and own_lines + 2 <= fill_lines else max_lines
    budget = min(fill, max_lines) - own_lines - 2
    if budget < 0:
        warnings.append(
            f"{name} has {own_lines} lines of your own, which with the 2 marker "
            f"lines exceed memory_md_max_lines ({max_lines}); the managed block "
            "is left empty"
        )
    if max_chars is None:
        return max(budget, 0), None
    own_chars = chars(document.before) + chars(document.after)
    char_budget = max_chars - own_chars - chars(BEGIN + newline + END + document.end_ending)
    if char_budget < 0:
        warnings.append(
            f"{name} has {own_chars} characters of your own, more than its "
            f"budget of {max_chars}; the managed block is left empty"
        )
    return max(budget, 0), max(char_budget, 0)


def reconcile(
    current: str | None,
    candidates: Sequence[Shown],
    *,
    max_lines: int,
    fill_lines: int | None = None,
    max_chars: int | None = None,
    add_above: float = ADD_ABOVE,
    remove_below: float = REMOVE_BELOW,
    name: str = "MEMORY.md",
    former: dict[str, str] | None = None,
) -> Reconciled:
    """MEMORY.md with its managed block rebuilt from `candidates`; `current` None: no file.

    The block fills the file up to `fill_lines` (default `max_lines`) when the user's own
    lines leave room for that, else up to `max_lines`: the headroom keeps the file under
    the health check's "approaching the limit" line unless the user's own text fills it.
    With `max_chars`, the whole file also stays within that many characters (as OpenClaw
    counts them), the user's own text included. `former` names the facts that are no
    longer candidates (archived, forgotten) by their line (line -> fact id), so that the
    lines they left are reported as theirs.
    """
    _display.cache_clear()  # each reconciliation keeps only its own texts
    text = DEFAULT_DOCUMENT if current is None else current
    lines = text.splitlines(keepends=True)
    problem = _marker_problem(lines)
    if problem:
        warning = f"{name} left as it is: {problem}; fix the markers by hand"
        return Reconciled(text, [], [], [], [], [warning], previous=current)
    newline = "\r\n" if "\r\n" in text else "\n"
    document = _split_document(lines) or _split_document(
        _with_empty_block(text, newline, max_lines).splitlines(keepends=True)
    )
    assert document is not None, "a file with an empty block added has the block"
    known = _known(document.block, candidates, former, add_above)
    old_ids = _ids_in_block(document.block, known)
    warnings = _foreign_lines(document.block, candidates, known)

    by_id: dict[str, Shown] = {}
    for candidate in candidates:
        by_id.setdefault(candidate.id, candidate)  # the first of a repeated id wins
    wanted, reasons, skipped = _select(by_id, old_ids, add_above, remove_below)

    budget, char_budget = _room(document, newline, name, max_lines, fill_lines, max_chars, warnings)
    facts, left, left_out = _fit(wanted, budget, char_budget, noted=set(old_ids))
    placed = {c.id for c in facts}
    reasons.update(left)

    groups = _grouped(facts)
    block = _block_lines(groups)
    new_text = (
        document.before
        + BEGIN
        + newline
        + "".join(line + newline for line in block)
        + END
        + document.end_ending
        + document.after
    )
    was_in = set(old_ids)
    return Reconciled(
        new_text,
        added=[c.id for group in groups.values() for c in group if c.id not in was_in],
        removed=[
            (fact_id, reasons.get(fact_id, GONE_REASON))
            for fact_id in old_ids
            if fact_id not in placed
        ],
        kept=[fact_id for fact_id in old_ids if fact_id in placed],
        skipped=skipped,
        warnings=warnings,
        previous=current,
        left_out=left_out,
    )
