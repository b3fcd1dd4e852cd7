"""What the memory page shows, as records: the facts by subject (the person first), each
with its sentence, when it was learned, who said it and where, its activation now and the
inputs of its decay, whether it is pinned or in MEMORY.md, and the facts it replaced; the
facts learned per day; the audit log's changes and the last consolidations' changes with who
said each fact they touched (their reports); the health report and the probe's last result.

Nothing forgotten is in it: a fact archived as forgotten is left out, and so is any fact,
superseded fact or turn whose source line the forgotten ledger names or a forget blanked.
Read only: nothing here writes a file.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..clock import format_iso
from ..model.fact import Fact
from ..model.provenance import OWNER, TRUSTED, UNKNOWN

if TYPE_CHECKING:
    from ..graph import KnowledgeGraph

PERSON = "user"  # the subject the rules give the person the memory belongs to
PERSON_NAMES = frozenset((PERSON, "用户"))
MAX_CHANGES = 500  # the audit log's latest lines shown
MAX_REPORTS = 10  # the latest consolidations' reports shown
MAX_REPORT_ROWS = 200  # of each report's changes
MAX_TURN_CHARS = 2000  # of a turn's words shown beside its fact
_LINE_SOURCE = re.compile(r"^(sessions/[^/:]+\.jsonl):(\d+)$")
_FILES = re.compile(r"\S*(?:/|\.(?:jsonl|json|md|bak|bin|npz|yaml|marshal))(?=[\s,;)]|$)")
# The kind of change an audit line records, by the words of its change.
_KINDS = (
    ("forgotten", re.compile(r"\bforg(?:ot|otten|et)\b")),
    ("restored", re.compile(r"\brestor")),
    ("merged", re.compile(r"\bmerg")),
    ("archived", re.compile(r"\barchiv|\bpruned?\b|\bstale\b")),
    ("learned", re.compile(r"\blearn|\bremember|\bsupersed|\breinforc|\baccept")),
)


@dataclass(frozen=True)
class Former:
    """A fact another replaced, shown under it as history."""

    id: str
    sentence: str
    learned: str
    replaced_at: str | None
    source: str


@dataclass(frozen=True)
class ShownFact:
    """One fact as the page shows it."""

    id: str
    subject: str
    sentence: str
    category: str | None
    learned: str  # when it was stored
    said: str | None  # when it was said (valid_from)
    source: str  # the line it was read from
    origin: str
    session: str
    channel: str | None
    sender: str | None
    turn: str | None  # the words of the source line, when they can still be read
    activation: float  # now
    a0: float  # at its last access, where its decay starts
    last_accessed: str
    importance: float
    pinned: bool
    in_memory_md: bool
    history: tuple[Former, ...] = ()

    @property
    def trusted(self) -> bool:
        return self.origin in TRUSTED


@dataclass(frozen=True)
class Subject:
    name: str
    person: bool
    facts: tuple[ShownFact, ...]


@dataclass(frozen=True)
class Change:
    """One line of the audit log, as a change."""

    at: str
    kind: str  # learned, merged, archived, restored, forgotten, memory-md, other
    action: str
    step: str
    change: str
    ids: int
    untrusted: int  # of its facts, how many came from outside


@dataclass(frozen=True)
class ReportedChange:
    """One change a consolidation's report lists: the step, what it did, to which fact (its
    sentence, while the memory holds it) or file, who said that fact, and why."""

    step: str
    change: str
    target: str
    sentence: str | None
    said_by: str
    reason: str
    untrusted: bool  # said by someone outside (neither the owner nor the agent)


@dataclass(frozen=True)
class Consolidation:
    """A consolidation's changes, as its report (state/reports/) lists them."""

    started_at: str
    report: str  # the report's file, relative to the data directory
    changes: tuple[ReportedChange, ...]
    more: int  # changes beyond those shown


@dataclass(frozen=True)
class Health:
    status: str | None
    figures: dict[str, Any]
    warnings: tuple[str, ...]
    problems: tuple[str, ...]
    findings: tuple[str, ...]
    probe: dict[str, Any] | None  # the quality probe's last result


@dataclass(frozen=True)
class ViewData:
    made: str
    data_path: str
    half_life_days: float
    search_threshold: float
    prune_threshold: float
    subjects: tuple[Subject, ...]
    per_day: tuple[tuple[str, int], ...]
    changes: tuple[Change, ...]
    consolidations: tuple[Consolidation, ...]
    health: Health
    warnings: tuple[str, ...] = field(default=())

    @property
    def facts(self) -> list[ShownFact]:
        return [fact for subject in self.subjects for fact in subject.facts]

    def to_json(self) -> dict[str, Any]:
        """The record the page's script reads (dataclasses.asdict, field by field: asdict
        copies each value deeply, a third of the page's time at 100,000 facts)."""
        record = {
            name.name: getattr(self, name.name)
            for name in fields(self)
            if name.name not in ("subjects", "changes", "consolidations", "health", "per_day")
        }
        record["subjects"] = [
            {
                "name": subject.name,
                "person": subject.person,
                "facts": [_fact_json(fact) for fact in subject.facts],
            }
            for subject in self.subjects
        ]
        record["per_day"] = [list(day) for day in self.per_day]
        record["changes"] = [asdict(change) for change in self.changes]
        record["consolidations"] = [asdict(run) for run in self.consolidations]
        record["health"] = asdict(self.health)
        return record


_FACT_FIELDS = tuple(name.name for name in fields(ShownFact) if name.name != "history")


def _fact_json(fact: ShownFact) -> dict[str, Any]:
    record = {name: getattr(fact, name) for name in _FACT_FIELDS}
    record["history"] = [asdict(former) for former in fact.history]
    record["trusted"] = fact.origin in TRUSTED
    return record


def view_data(graph: KnowledgeGraph, now: datetime) -> ViewData:
    """What the page shows of `graph` at `now`."""
    layout = graph.layout
    forgotten = _forgotten_sources(graph)
    facts = [fact for fact in graph.facts() if fact.source not in forgotten]
    state = graph.store.read_activation()
    entries = state.to_json()  # the files' records: no entry made of each
    values = graph.activation_values(facts, state, now)
    in_memory_md = _memory_md_ids(graph, facts, values)
    turns = _turns(layout.root, facts, forgotten)
    by_id = {fact.id: fact for fact in facts}
    history: dict[str, list[Former]] = defaultdict(list)
    archived = [
        record.fact
        for record in graph.archived_facts()
        if record.cause.code != "forgotten"
        and not record.purged
        and record.fact.source not in forgotten
    ]
    for former in [*archived, *facts]:
        if former.superseded_by and former.superseded_by in by_id:
            history[former.superseded_by].append(
                Former(
                    former.id,
                    former.sentence,
                    former.created,
                    former.superseded_at,
                    former.source,
                )
            )
    shown: dict[str, list[ShownFact]] = defaultdict(list)
    for fact, value in zip(facts, values, strict=True):
        if not fact.current:
            continue  # shown under the fact that replaced it
        entry = entries.get(fact.id)
        formers = history.get(fact.id)
        provenance = fact.provenance
        shown[fact.subject].append(
            ShownFact(
                id=fact.id,
                subject=fact.subject,
                sentence=fact.sentence,
                category=fact.category,
                learned=fact.created,
                said=fact.valid_from,
                source=fact.source,
                origin=provenance.origin if provenance else UNKNOWN,
                session=provenance.session if provenance else "interactive",
                channel=provenance.channel if provenance else None,
                sender=provenance.sender if provenance else None,
                turn=turns.get(fact.source),
                activation=round(value, 4),
                a0=entry["activation"] if entry else fact.activation,
                last_accessed=entry["last_accessed"] if entry else fact.created,
                importance=fact.importance or 0.0,
                pinned=fact.pinned,
                in_memory_md=fact.id in in_memory_md,
                history=tuple(sorted(formers, key=lambda f: f.learned, reverse=True))
                if formers
                else (),
            )
        )
    subjects = [
        Subject(
            name,
            name in PERSON_NAMES,
            tuple(sorted(group, key=lambda f: (-f.activation, f.learned, f.id))),
        )
        for name, group in shown.items()
    ]
    subjects.sort(key=lambda s: (not s.person, -len(s.facts), s.name))
    days = Counter(fact.created[:10] for fact in facts if fact.current)
    origins = {fact.id: fact.provenance.origin for fact in facts if fact.provenance}
    origins.update({fact.id: fact.provenance.origin for fact in archived if fact.provenance})
    return ViewData(
        made=format_iso(now),
        data_path=str(layout.root),
        half_life_days=graph.settings.half_life_days,
        search_threshold=graph.settings.search_threshold,
        prune_threshold=graph.settings.prune_threshold,
        subjects=tuple(subjects),
        per_day=tuple(sorted(days.items())),
        changes=tuple(_changes(graph, origins)),
        consolidations=tuple(_consolidations(graph, [*facts, *archived])),
        health=_health(graph),
        warnings=tuple(graph.store.warnings),
    )


def _forgotten_sources(graph: KnowledgeGraph) -> frozenset[str]:
    """The source lines the forgotten ledger names ("sessions/<log>:<line>")."""
    records = graph.store.read_records(graph.layout.forgotten, "forgotten-turn", copy=False)
    return frozenset(str(record["source"]) for record in records if record.get("source"))


def _memory_md_ids(graph: KnowledgeGraph, facts: list[Fact], values: list[float]) -> set[str]:
    """The facts MEMORY.md's managed block shows, known by their lines as the block is."""
    from ..steps.memory_md.block import block_fact_ids
    from ..steps.memory_md.data_file import FactCandidate

    path = graph.layout.memory_md
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return set()
    candidates = [
        FactCandidate(fact, value)
        for fact, value in zip(facts, values, strict=True)
        if fact.current
    ]
    return set(block_fact_ids(text, candidates))


def _turns(root: Path, facts: list[Fact], forgotten: frozenset[str]) -> dict[str, str]:
    """The words of each fact's source line, read from its session log while it is kept
    (a log summarized long ago is removed by the cleaning step), never a forgotten one."""
    from ..forgetting.marks import FORGOTTEN_TEXT

    wanted: dict[str, set[int]] = defaultdict(set)
    for fact in facts:
        match = _LINE_SOURCE.match(fact.source)
        if match and fact.source not in forgotten:
            wanted[match.group(1)].add(int(match.group(2)))
    turns: dict[str, str] = {}
    for name, numbers in wanted.items():
        try:
            lines = (root / name).read_bytes().splitlines()
        except OSError:
            continue
        for number in numbers:
            if not 0 < number <= len(lines):
                continue
            try:
                record = json.loads(lines[number - 1])
            except ValueError:
                continue
            text = record.get("text") if isinstance(record, dict) else None
            if isinstance(text, str) and text != FORGOTTEN_TEXT:
                turns[f"{name}:{number}"] = text[:MAX_TURN_CHARS]
    return turns


def change_kind(action: str, step: str, change: str) -> str:
    """learned, merged, archived, restored, forgotten, memory-md (MEMORY.md written) or
    other, by the audit line's words."""
    # The files a line names are no change of their own ("archived-facts.jsonl", "state/").
    words = _FILES.sub(" ", f"{action} {step} {change}").lower()
    if action == "forget":
        return "forgotten"
    if "MEMORY.md" in step or change.startswith("MEMORY.md"):
        return "memory-md"  # the strongest facts written to MEMORY.md, or taken out of it
    for kind, pattern in _KINDS:
        if pattern.search(words):
            return kind
    return "other"


def _changes(graph: KnowledgeGraph, origins: dict[str, str]) -> list[Change]:
    records = graph.store.read_records(graph.layout.audit_log, "audit-entry", copy=False)
    changes = []
    for record in records[-MAX_CHANGES:]:
        ids = [str(i) for i in record.get("ids") or ()]
        action, step = str(record.get("action", "")), str(record.get("step", ""))
        change = str(record.get("change", ""))
        changes.append(
            Change(
                at=str(record.get("at", "")),
                kind=change_kind(action, step, change),
                action=action,
                step=step,
                change=change,
                ids=len(ids),
                untrusted=sum(1 for i in ids if origins.get(i, OWNER) not in TRUSTED | {UNKNOWN}),
            )
        )
    changes.reverse()  # the latest first
    return changes


def _consolidations(graph: KnowledgeGraph, known: list[Fact]) -> list[Consolidation]:
    """The latest consolidations' reports, the latest first, each change with the sentence
    of the fact it touched where `known` (the facts shown and their history) has it. A
    forget takes out of the reports every line that names what it forgot."""
    from ..steps.report import written_changes

    layout = graph.layout
    sentences = {fact.id: fact.sentence for fact in known}
    runs = []
    for path in sorted(layout.reports_dir.glob("*.md"), reverse=True)[:MAX_REPORTS]:
        try:
            started, rows = written_changes(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            graph.store.warnings.append(f"{layout.relative(path)}: not read ({exc})")
            continue
        shown = tuple(
            ReportedChange(
                step=row.step,
                change=row.change,
                target=row.target,
                sentence=sentences.get(row.target),
                said_by=row.origin,
                reason=row.reason,
                untrusted=row.origin not in TRUSTED | {UNKNOWN, ""},
            )
            for row in rows[:MAX_REPORT_ROWS]
        )
        runs.append(
            Consolidation(
                started_at=started or path.stem,
                report=layout.relative(path),
                changes=shown,
                more=len(rows) - len(shown),
            )
        )
    return runs


def _health(graph: KnowledgeGraph) -> Health:
    layout = graph.layout
    try:
        report = json.loads(layout.health.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = {}
    if not isinstance(report, dict):
        report = {}
    probes = graph.store.read_records(layout.probe_log, "probe-result", copy=False)
    figures = {
        key: value
        for key, value in report.items()
        if isinstance(value, int | float | str) and not isinstance(value, bool)
    }
    findings = tuple(_finding(f) for f in report.get("findings") or ())
    return Health(
        status=report.get("status"),
        figures=figures,
        # health.json lists each finding's message among its warnings too: shown once
        warnings=tuple(str(w) for w in report.get("warnings") or () if str(w) not in findings),
        problems=tuple(str(p) for p in report.get("problems") or ()),
        findings=findings,
        probe=dict(probes[-1]) if probes else None,
    )


def _finding(finding: object) -> str:
    if isinstance(finding, dict):
        return str(finding.get("message") or finding.get("problem") or json.dumps(finding))
    return str(finding)
