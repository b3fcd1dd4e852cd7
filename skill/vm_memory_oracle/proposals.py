"""Shared read, gated write: facts proposed by sub-agents wait for the main agent's review.

Every agent reads the same memory. A sub-agent does not write facts: it proposes them, and
each proposal waits in state/pending-memories.jsonl, where recall and query (which read
facts.jsonl only) never see it. The main agent reviews them: an accepted proposal is
remembered as `remember` stores a fact (reinforcement and supersession apply), a rejected
one is dropped, and one left pending longer than proposal_max_age_days expires at the next
consolidation, which lists it.

A proposal's id comes from its proposer and its fact's id, so proposing the same fact again
is the same proposal and writes nothing. The fact it commits names the proposal as its
source, which makes a retried acceptance (a crash between remembering the fact and
removing the proposal) a statement already heard, not a repetition.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from .clock import days_between, format_iso, parse_iso
from .errors import InvalidInputError, UnknownProposalError
from .graph import KnowledgeGraph, RememberReport, Supersession
from .model.fact import Fact
from .model.proposal import Proposal, ReviewEntry
from .storage.validation import load_schema, problem

# uuid5 namespace of proposal ids; fixed forever, or every pending id would change.
PROPOSAL_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://vm-memory-oracle/proposal")
DEFAULT_CONFIDENCE = 0.5
MAX_PROPOSER_CHARS = 48  # "subagent:" + the name fits the audit log's 64-character actor
KIND = "pending-memory"


@dataclass
class ProposeReport:
    proposed: list[Proposal] = field(default_factory=list)  # written now
    already_pending: list[Proposal] = field(default_factory=list)  # the same proposal was waiting


@dataclass
class Decision:
    proposal: Proposal
    outcome: str  # accepted or rejected
    remembered: RememberReport | None = None


def proposal_id(proposer: str, fact_id: str) -> str:
    return f"proposal-{uuid.uuid5(PROPOSAL_NAMESPACE, f'{proposer}|{fact_id}')}"


def check_proposer(name: str, *, source: str = "--proposer") -> str:
    """The proposer's name, stripped; refused when empty, long or not printable."""
    stripped = name.strip()
    if not stripped or len(stripped) > MAX_PROPOSER_CHARS or not stripped.isprintable():
        raise InvalidInputError(
            f"must be a printable name of 1 to {MAX_PROPOSER_CHARS} characters, got {name[:80]!r}",
            source=source,
        )
    return stripped


def check_confidence(value: float, *, source: str = "--confidence") -> float:
    if not 0.0 <= value <= 1.0:
        raise InvalidInputError(f"must be between 0 and 1, got {value!r}", source=source)
    return float(value)


def proposed_by(proposer: str) -> str:
    """The source a proposed fact gets when the sub-agent names none."""
    return f"subagent:{proposer}"


def new_proposal(
    fact: Fact,
    *,
    proposer: str,
    confidence: float,
    proposed_at: str,
    where: str = "arguments",
    line: int | None = None,
) -> Proposal:
    """The pending proposal of `fact` (a complete fact of model.fact.new_fact, whose
    `source` is what the sub-agent gave, else proposed_by(proposer)).

    The fact's source is extended to name the proposal, and its confidence is the
    proposal's: the fact is stored as it stands here once accepted.
    """
    pid = proposal_id(proposer, fact.id)
    by = proposed_by(proposer)
    suffix = f"{by} via {pid}"
    given = fact.source
    limit = load_schema("fact")["properties"]["source"]["maxLength"]
    if given != by and len(given) + 2 + len(suffix) > limit:
        room = limit - 2 - len(suffix)
        raise InvalidInputError(
            f"field 'source' is too long for a proposal: {len(given)} "
            f"characters, at most {room} allowed (the proposer and the "
            "proposal id are added to it)",
            source=where,
            line=line,
            key="source",
        )
    source = suffix if given == by else f"{given}, {suffix}"
    proposal = Proposal(
        pid,
        proposer,
        confidence,
        proposed_at,
        fact.changed(source=source, confidence=confidence),
    )
    fault = problem(KIND, proposal.to_json())
    if fault:
        raise InvalidInputError(fault, source=where, line=line)
    return proposal


class PendingMemories:
    """The proposals waiting in state/pending-memories.jsonl, and the decisions on them.

    Each write holds the data directory's lock and re-reads the file there; each decision
    is its own locked block, so it has its own line in the audit log.
    """

    def __init__(self, graph: KnowledgeGraph):
        self.graph = graph
        self.store = graph.store
        self.path = graph.layout.pending_memories

    def pending(self) -> list[Proposal]:
        records = self.store.read_records(self.path, KIND, unique_key="id", copy=False)
        return [Proposal.of(record) for record in records]

    def review_view(self) -> list[ReviewEntry]:
        """Each pending proposal with what accepting it would do to the facts: whether its
        fact is already known, and which current fact it would supersede."""
        facts = self.graph.facts()
        by_id = {fact.id: fact for fact in facts}
        supersession = Supersession(facts, self.graph.settings.single_valued())
        view = []
        for proposal in self.pending():
            fact = proposal.fact
            replaced = supersession.replaced(fact, take=False)
            older = (replaced[0], by_id[replaced[0]].sentence) if replaced else None
            view.append(ReviewEntry(proposal, fact.sentence, fact.id in by_id, older))
        return view

    def propose(self, proposals: list[Proposal]) -> ProposeReport:
        """Add the proposals (new_proposal records) not already pending."""
        report = ProposeReport()
        with self.store.locked("propose"):
            waiting = {proposal.id: proposal for proposal in self.pending()}
            for proposal in proposals:
                if proposal.id in waiting:
                    report.already_pending.append(waiting[proposal.id])
                    continue
                waiting[proposal.id] = proposal
                report.proposed.append(proposal)
            if report.proposed:
                proposers = sorted({proposal.proposer for proposal in report.proposed})
                self.store.note(
                    f"proposed {len(report.proposed)} fact(s) for review "
                    f"(by {', '.join(proposers)})",
                    [proposal.fact.id for proposal in report.proposed],
                )
                self.store.append_records(
                    self.path, KIND, [proposal.to_json() for proposal in report.proposed]
                )
        return report

    def accept(self, pid: str, now: datetime) -> Decision:
        """Remember the proposal's fact, then drop the proposal. A crash in between leaves
        both; the retry finds the fact's source already heard and only drops it."""
        with self.store.locked("review: accept"):
            proposal = self._find(pid)
            # The memory learns the fact now: its activation clock starts at acceptance.
            fact = proposal.fact.changed(created=format_iso(now))
            remembered = self.graph.remember([fact], now)
            self._drop({pid})
            self.store.note(
                f"accepted {pid} from {proposal.proposer} (confidence {proposal.confidence:g})",
                [fact.id],
            )
        return Decision(proposal, "accepted", remembered)

    def accept_all_from(self, proposer: str, now: datetime) -> list[Decision]:
        decisions = []
        for proposal in self.pending():
            if proposal.proposer != proposer:
                continue
            try:
                decisions.append(self.accept(proposal.id, now))
            except UnknownProposalError:
                continue  # another process decided it meanwhile
        return decisions

    def reject(self, pid: str) -> Decision:
        with self.store.locked("review: reject"):
            proposal = self._find(pid)
            self._drop({pid})
            self.store.note(f"rejected {pid} from {proposal.proposer}", [proposal.fact.id])
        return Decision(proposal, "rejected")

    def expire(self, now: datetime, max_age_days: int) -> list[Proposal]:
        """Drop the proposals pending more than `max_age_days` at `now`; returns them."""
        with self.store.locked("expire proposals"):
            if not self.path.exists():
                return []
            expired = [
                proposal
                for proposal in self.pending()
                if days_between(parse_iso(proposal.proposed_at), now) > max_age_days
            ]
            if expired:
                self._drop({proposal.id for proposal in expired})
                self.store.note(
                    f"expired {len(expired)} proposal(s) pending more than {max_age_days} days",
                    [proposal.fact.id for proposal in expired],
                )
        return expired

    def _find(self, pid: str) -> Proposal:
        found = next((proposal for proposal in self.pending() if proposal.id == pid), None)
        if found is None:
            raise UnknownProposalError(pid)
        return found

    def _drop(self, ids: set[str]) -> None:
        records = self.store.read_records(self.path, KIND, unique_key="id")
        self.store.rewrite_records(
            self.path, KIND, [record for record in records if record["id"] not in ids]
        )


def propose_facts(
    graph, facts: list[Fact], lines: list[int | None], *, proposer: str, where: str, now
) -> tuple[list[Proposal], ProposeReport]:
    """--action propose: each fact (its `confidence` given) as a proposal of `proposer`,
    read from `where` (its line there, for --from), added unless already pending."""
    stamp = format_iso(now)
    proposals = [
        new_proposal(
            fact,
            proposer=proposer,
            confidence=DEFAULT_CONFIDENCE if fact.confidence is None else fact.confidence,
            proposed_at=stamp,
            where=where,
            line=line,
        )
        for fact, line in zip(facts, lines)
    ]
    return proposals, PendingMemories(graph).propose(proposals)
