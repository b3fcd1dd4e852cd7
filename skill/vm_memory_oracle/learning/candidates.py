"""A day's turns -> the facts they state, in the order said, each checked once.

The fragments of the turns of the extracted roles, said by the owner or the agent or by a
named person in a group (states_facts; what else came from outside is kept as episodes,
never as facts), go to the configured external extractor,
or to the built-in rules when there is none or it fails; each statement the rules keep is
scored for salience. A candidate is built from its fields once and checked against the fact
schema once, when it is complete: its texts come from turns redacted before they were read,
and an external extractor's output was checked and redacted as it came in
(extract/external.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import Settings
from ..errors import ExtractorFailed
from ..extract.external import run_extractor
from ..extract.fragments import CHATTER, QUESTION, Fragment
from ..extract.rules import (
    ACTION_ITEM_PREDICATE,
    JsonObject,
    extract_statements,
    fragment_records,
    signal_score,
    turn_fragments,
)
from ..extract.salience import importance_with, with_evidence
from ..model.fact import INTRINSIC_IMPORTANCE, UNKNOWN_ORIGIN, Fact, new_fact, normalise
from ..model.provenance import INTERACTIVE, UNTRUSTED
from ..model.turn import Turn
from ..storage.validation import problem
from .salience_scorer import SalienceScorer

# The subject the owner's facts have (the rules' "user"; "用户" as said in Chinese).
OWNER_SUBJECTS = frozenset({"user", "the user", "用户"})


@dataclass
class Candidates:
    """What the turns of one day state, and how it was found."""

    facts: list[Fact] = field(default_factory=list)  # checked, in the order said
    fragments: int = 0
    chatter: int = 0  # fragments of chatter or bare questions: kept in the log, not as facts
    extractor: str = "rules"
    warnings: list[str] = field(default_factory=list)


def candidates_of(
    turns: list[Turn], settings: Settings, created: str, scorer: SalienceScorer
) -> Candidates:
    """The candidate facts of one day's turns (in context, their texts redacted)."""
    pairs = [
        (turn, fragment)
        for turn, fragment in turn_fragments(turns, frozenset(settings.extract_roles))
        if states_facts(turn)
    ]
    found = Candidates(
        fragments=len(pairs),
        chatter=sum(1 for _, fragment in pairs if fragment.kind in (CHATTER, QUESTION)),
    )
    command = settings.extractor_command
    built = _by_the_extractor(pairs, list(command), settings, created, found) if command else None
    if built is None:
        built = _by_the_rules(pairs, settings, created, scorer)
    origins = {turn.source: turn.origin for turn in turns if turn.origin}
    said_by = {turn.source: turn.said_by for turn, _ in pairs}
    for fact in built:
        if fact.source in origins:
            # The copied line's own origin: the fact names the OpenClaw session it was said in.
            fact = fact.changed(sources=(origins[fact.source],))
        fact = fact.changed(provenance=said_by.get(fact.source, UNKNOWN_ORIGIN))
        if not fact.trusted and normalise(fact.subject) in OWNER_SUBJECTS:
            # Someone else's words about the owner ("the user wants ...") are never stored
            # worded as the owner's own: the episode keeps them, as that person's.
            continue
        fault = problem("fact", fact.to_record())
        if fault:
            found.warnings.append(f"skipped an extracted fact: {fact.source}: {fault}")
            continue
        found.facts.append(fact.mark_checked())
    return found


def states_facts(turn: Turn) -> bool:
    """Whether a turn's statements become facts: the owner's and the agent's, and a named
    person's in a group (facts about them, as their words: stored and found, never the
    owner's). What a tool brought in, another session's message, a hook's and the
    scaffolding are kept as episodes alone."""
    said_by = turn.said_by
    return said_by.trusted or (
        said_by.origin == UNTRUSTED
        and said_by.session == INTERACTIVE
        and said_by.sender is not None
        and turn.speaker is not None
    )


def _by_the_extractor(
    pairs: list[tuple[Turn, Fragment]],
    command: list[str],
    settings: Settings,
    created: str,
    found: Candidates,
) -> list[Fact] | None:
    """The facts the external extractor finds in the fragments, or None when it fails."""
    try:
        fields_list = run_extractor(
            command,
            fragment_records(pairs),
            timeout=settings.extractor_timeout_seconds,
        )
    except ExtractorFailed as exc:
        found.warnings.append(f"{exc}; using the built-in rules instead")
        found.extractor = "rules (external extractor failed)"
        return None
    found.extractor = "external"
    return [_fact_of(fields, created) for fields in fields_list]


def _by_the_rules(
    pairs: list[tuple[Turn, Fragment]], settings: Settings, created: str, scorer: SalienceScorer
) -> list[Fact]:
    """The facts the built-in rules find in the fragments, each with its salience and the
    importance salience adds to."""
    statements = extract_statements(pairs, threshold=settings.extract_threshold)
    if not statements:
        return []
    facts = [_fact_of(fields.to_json(), created) for fields, _ in statements]
    scores = scorer.scores(
        [statement for _, statement in statements], [fact.text or "" for fact in facts]
    )
    scored = []
    for (fields, statement), fact, score in zip(statements, facts, scores):
        intrinsic = INTRINSIC_IMPORTANCE[fields.category]
        signals = signal_score(statement.text)
        action_item = fields.predicate == ACTION_ITEM_PREDICATE
        salience = with_evidence(float(score), intrinsic, signals, action_item)
        importance = importance_with(intrinsic, signals, salience)
        scored.append(fact.changed(importance=float(importance), salience=round(salience, 3)))
    return scored


def _fact_of(fields: JsonObject, created: str) -> Fact:
    """A fact-input record (the rules' or the external extractor's) as a new fact."""
    return new_fact(fields, created=created, default_source=fields["source"])
