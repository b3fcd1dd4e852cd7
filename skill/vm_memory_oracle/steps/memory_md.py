"""The managed block of MEMORY.md, reconciled with the active facts.

MEMORY.md is loaded by the agent every session and belongs to people, except for the lines
between the BEGIN and END markers, which this module rewrites: strongly activated and pinned
facts go in, faded, superseded and forgotten ones come out, and the whole file stays within
`memory_md_max_lines`. Every byte outside the block is kept as it was. Pure: text in, text
out; the caller reads and writes the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..extract.redact import redact

BEGIN = "<!-- vm-memory-oracle:begin -->"
END = "<!-- vm-memory-oracle:end -->"
ADD_ABOVE = 0.5      # facts with activation > this are added
REMOVE_BELOW = 0.15  # facts in the block with activation < this are removed
MAX_TEXT_CHARS = 300
DEFAULT_DOCUMENT = f"# MEMORY\n\n{BEGIN}\n{END}\n"
CAP_REASON = "MEMORY.md line cap"
CHAR_CAP_REASON = "MEMORY.md character budget"
GONE_REASON = "no longer an active fact (forgotten or archived)"

# Block order, which is also the priority under the line cap.
HEADINGS = {
    "identity": "## Identity", "health": "## Health and safety", "preference": "## Preferences",
    "relationship": "## Relationships", "state": "## Current state", "decision": "## Decisions",
    "action": "## Action items", "fact": "## Facts", "temporary": "## Temporary",
}
_PRIORITY = {category: rank for rank, category in enumerate(HEADINGS)}

_FACT_LINE = re.compile(r"- .* <!-- (\S+) -->\s*")
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
_LOG_LINE = re.compile(r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}"   # ISO date-time
                       r"|\[[^\]]*\d{1,2}:\d{2}[^\]]*\]|\[\d{9,}")  # [time], [epoch]
_BARE_TOKEN = (r"(?:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"  # uuid
               r"|(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{7,}"                         # hash
               r"|[A-Za-z]+[-_:][\w-]*\d[\w-]*"                            # fact-..., id_42
               r"|[~.]?(?:[\w.-]*[/\\])+[\w.-]*"                            # a/b, C:\x
               r"|[\w.-]+\.(?:md|jsonl?|txt|log|py|ya?ml|toml|csv|bin|npz))")
_BARE = re.compile(rf"{_BARE_TOKEN}(?:[\s,;]+{_BARE_TOKEN})*[.,;]?")


@dataclass(frozen=True)
class Candidate:
    """One active fact as reconcile sees it."""
    id: str
    text: str
    category: str
    importance: float
    activation: float
    pinned: bool = False
    superseded: bool = False


@dataclass
class Reconciled:
    text: str                          # the whole new MEMORY.md
    added: list[str]                   # fact ids newly in the block
    removed: list[tuple[str, str]]     # (fact id, reason) for ids that left the block
    kept: list[str]                    # ids in the block before and after
    skipped: list[tuple[str, str]]     # (fact id, reason) for eligible facts never promoted
    warnings: list[str]
    previous: str | None = field(default=None, repr=False)  # the input; None: no file
    left_out: int = 0                  # facts that qualified but did not fit under the cap

    @property
    def changed(self) -> bool:
        return self.text != self.previous


@dataclass(frozen=True)
class _Document:
    before: str         # everything up to the BEGIN line, verbatim
    block: list[str]    # the lines between the markers, without their endings
    end_ending: str     # the END line's own ending ("" when it is the last line unended)
    after: str          # everything after the END line, verbatim


def _category(candidate: Candidate) -> str:
    category = candidate.category.strip().lower()
    return category if category in HEADINGS else "fact"


def promotion_problem(candidate: Candidate) -> str | None:
    """Why this fact must never be in MEMORY.md, or None when it may be."""
    text = candidate.text.strip()
    if not text:
        return "empty text"
    secrets = redact(text)
    if secrets.count:
        return f"holds a secret ({', '.join(sorted(set(secrets.kinds)))})"
    if "[REDACTED:" in text:
        return "holds a redacted secret"
    if text.splitlines() != [text]:
        return "contains a line break (would break the block)"
    if "<!--" in text or "-->" in text:
        return "contains an HTML comment marker (would break the block)"
    if not _SAFE_ID.fullmatch(candidate.id):
        return "its id cannot be written in a comment"
    if len(text) > MAX_TEXT_CHARS:
        return "too long for a memory line"
    if _LOG_LINE.match(text):
        return "looks like a raw log line"
    if text[0] in "{[":
        return "looks like JSON metadata"
    if "sessions/" in text and ".jsonl" in text:
        return "cites a session log file"
    if _BARE.fullmatch(text):
        return "a bare id, hash or path with no words"
    if _category(candidate) == "temporary" and not candidate.pinned:
        return "temporary facts stay out of MEMORY.md"
    return None


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
        return "a begin marker without an end marker" if begins else \
            "an end marker without a begin marker"
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
    return _Document(before="".join(lines[:begin]),
                     block=[_content(line) for line in lines[begin + 1:end]],
                     end_ending=lines[end][len(_content(lines[end])):],
                     after="".join(lines[end + 1:]))


def _with_empty_block(text: str, newline: str, max_lines: int) -> str:
    """`text` verbatim, then a blank line when it fits under the cap, then an empty block."""
    lines = text.splitlines(keepends=True)
    separator = ""
    if lines:
        last = _content(lines[-1])
        separator = newline if last == lines[-1] else ""   # end an unended last line
        if last.strip() and len(lines) + 3 <= max_lines:
            # after a lone "\r", a "\n" would merge with it into one "\r\n" ending
            separator += "\r" if text.endswith("\r") else newline
    return f"{text}{separator}{BEGIN}{newline}{END}{newline}"


def _ids_in_block(block: list[str]) -> list[str]:
    matches = (_FACT_LINE.fullmatch(line) for line in block)
    return list(dict.fromkeys(match.group(1) for match in matches if match))


def block_fact_ids(text: str | None) -> list[str]:
    """The fact ids in the managed block, in order; [] without a (well-formed) block."""
    lines = (text or "").splitlines(keepends=True)
    document = None if _marker_problem(lines) else _split_document(lines)
    return _ids_in_block(document.block) if document else []


def _select(candidates: dict[str, Candidate], old_ids: list[str], add_above: float,
            remove_below: float) -> tuple[list[Candidate], dict[str, str], list[tuple[str, str]]]:
    """The facts that belong in the block, why each old one leaves, and which are refused."""
    in_block = set(old_ids)
    wanted: list[Candidate] = []
    reasons: dict[str, str] = {}
    skipped: list[tuple[str, str]] = []
    for candidate in candidates.values():
        was_in = candidate.id in in_block
        if candidate.superseded:
            reasons[candidate.id] = "superseded"
            continue
        eligible = (candidate.pinned or candidate.activation > add_above
                    or (was_in and candidate.activation >= remove_below))
        problem = promotion_problem(candidate)
        if problem:
            reasons[candidate.id] = problem
            if eligible and not was_in:
                skipped.append((candidate.id, problem))
        elif eligible:
            wanted.append(candidate)
        else:
            reasons[candidate.id] = f"activation {candidate.activation:.4f} below {remove_below}"
    return wanted, reasons, skipped


def chars(text: str) -> int:
    """The length of `text` as OpenClaw counts it (JavaScript's, in UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def _line(candidate: Candidate) -> str:
    return f"- {candidate.text.strip()} <!-- {candidate.id} -->"


def _fit(wanted: list[Candidate], budget: int, char_budget: int | None = None
         ) -> list[Candidate]:
    """The most important facts whose lines, with their group headings, fit in `budget`
    lines and `char_budget` characters (line endings counted)."""
    ranked = sorted(wanted, key=lambda c: (not c.pinned, _PRIORITY[_category(c)],
                                           -c.importance, -c.activation, c.id))
    taken: list[Candidate] = []
    opened: set[str] = set()
    for candidate in ranked:
        category = _category(candidate)
        cost = 1 if category in opened else 2
        cost_chars = chars(_line(candidate)) + 1 + (
            0 if category in opened else chars(HEADINGS[category]) + 1)
        if cost <= budget and (char_budget is None or cost_chars <= char_budget):
            taken.append(candidate)
            opened.add(category)
            budget -= cost
            if char_budget is not None:
                char_budget -= cost_chars
    return taken


def _block_lines(facts: list[Candidate]) -> list[str]:
    lines: list[str] = []
    for category, heading in HEADINGS.items():
        group = sorted((c for c in facts if _category(c) == category),
                       key=lambda c: (not c.pinned, -c.importance, -c.activation, c.id))
        if group:
            lines.append(heading)
            lines += [_line(c) for c in group]
    return lines


def reconcile(current: str | None, candidates: list[Candidate], *, max_lines: int,
              fill_lines: int | None = None, max_chars: int | None = None,
              add_above: float = ADD_ABOVE, remove_below: float = REMOVE_BELOW,
              name: str = "MEMORY.md") -> Reconciled:
    """MEMORY.md with its managed block rebuilt from `candidates`; `current` None: no file.

    The block fills the file up to `fill_lines` (default `max_lines`) when the user's own
    lines leave room for that, else up to `max_lines`: the headroom keeps the file under
    the health check's "approaching the limit" line unless the user's own text fills it.
    With `max_chars`, the whole file also stays within that many characters (as OpenClaw
    counts them), the user's own text included.
    """
    text = DEFAULT_DOCUMENT if current is None else current
    lines = text.splitlines(keepends=True)
    problem = _marker_problem(lines)
    if problem:
        return Reconciled(text, [], [], [], [], [
            f"{name} left as it is: {problem}; fix the markers by hand"], previous=current)
    newline = "\r\n" if "\r\n" in text else "\n"
    document = _split_document(lines) or _split_document(
        _with_empty_block(text, newline, max_lines).splitlines(keepends=True))
    old_ids = _ids_in_block(document.block)
    warnings = []
    foreign = [line for line in document.block if line.strip() and
               line not in HEADINGS.values() and not _FACT_LINE.fullmatch(line)]
    if foreign:
        warnings.append(f"{len(foreign)} line(s) inside the managed block were not written by "
                        "vm-memory-oracle and were replaced; keep notes outside the markers")

    by_id: dict[str, Candidate] = {}
    for candidate in candidates:
        by_id.setdefault(candidate.id, candidate)   # the first of a repeated id wins
    wanted, reasons, skipped = _select(by_id, old_ids, add_above, remove_below)

    own_lines = len(document.before.splitlines()) + len(document.after.splitlines())
    fill = fill_lines if fill_lines is not None and own_lines + 2 <= fill_lines else max_lines
    budget = min(fill, max_lines) - own_lines - 2
    if budget < 0:
        warnings.append(f"{name} has {own_lines} lines of your own, which with the 2 marker "
                        f"lines exceed memory_md_max_lines ({max_lines}); the managed block "
                        "is left empty")
    char_budget = None
    if max_chars is not None:
        own_chars = chars(document.before) + chars(document.after)
        char_budget = max_chars - own_chars - chars(BEGIN + newline + END + document.end_ending)
        if char_budget < 0:
            warnings.append(f"{name} has {own_chars} characters of your own, more than its "
                            f"budget of {max_chars}; the managed block is left empty")
    facts = _fit(wanted, max(budget, 0), None if char_budget is None else max(char_budget, 0))
    placed = {c.id for c in facts}
    left_out = [c.id for c in wanted if c.id not in placed]
    by_lines = ({c.id for c in _fit(wanted, max(budget, 0))} if char_budget is not None
                else placed)
    for fact_id in left_out:
        reasons[fact_id] = CAP_REASON if fact_id not in by_lines else CHAR_CAP_REASON

    block = _block_lines(facts)
    new_text = (document.before + BEGIN + newline + "".join(line + newline for line in block)
                + END + document.end_ending + document.after)
    was_in = set(old_ids)
    return Reconciled(
        new_text, added=[fact_id for fact_id in _ids_in_block(block) if fact_id not in was_in],
        removed=[(fact_id, reasons.get(fact_id, GONE_REASON))
                 for fact_id in old_ids if fact_id not in placed],
        kept=[fact_id for fact_id in old_ids if fact_id in placed],
        skipped=skipped, warnings=warnings, previous=current, left_out=len(left_out))
