"""The managed block of MEMORY.md: what goes in, what comes out, and what is never touched."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vm_memory_oracle.extract.redact import redact
from vm_memory_oracle.steps.memory_md import (
    ADD_ABOVE, BEGIN, END, REMOVE_BELOW, Candidate, block_fact_ids, promotion_problem, reconcile)

OPENAI_KEY = "sk-" + "A1b2C3d4E5" * 4


def fact(number: int, text: str | None = None, *, category: str = "fact",
         importance: float = 0.5, activation: float = 0.9, pinned: bool = False,
         superseded: bool = False) -> Candidate:
    return Candidate(id=f"fact-{number:04d}", text=text or f"The user said thing number {number}",
                     category=category, importance=importance, activation=activation,
                     pinned=pinned, superseded=superseded)


def block_of(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[lines.index(BEGIN) + 1:lines.index(END)]


def memory_with(*facts: Candidate, before: str = "# Notes\n", after: str = "") -> str:
    """A MEMORY.md whose block already lists `facts`, as an earlier reconcile wrote it."""
    return reconcile(before + f"{BEGIN}\n{END}\n" + after, list(facts), max_lines=200,
                     add_above=-1.0).text


# --- where the block goes --------------------------------------------------------------

def test_no_file_gives_the_default_document_with_the_block():
    result = reconcile(None, [fact(1, "Alex lives in Berlin", category="identity")],
                       max_lines=200)

    assert result.text == ("# MEMORY\n\n" + BEGIN + "\n## Identity\n"
                           "- Alex lives in Berlin <!-- fact-0001 -->\n" + END + "\n")
    assert result.added == ["fact-0001"]
    assert result.changed


def test_text_without_markers_gets_the_block_appended_after_a_blank_line():
    notes = "# My notes\n\nCall mum on Sundays."   # no trailing newline

    result = reconcile(notes, [fact(1)], max_lines=200)

    assert result.text.startswith(notes)
    assert result.text[len(notes):] == (
        "\n\n" + BEGIN + "\n## Facts\n- The user said thing number 1 <!-- fact-0001 -->\n"
        + END + "\n")


def test_text_ending_in_a_blank_line_gets_no_second_blank_line():
    result = reconcile("# Notes\n\n", [], max_lines=200)

    assert result.text == f"# Notes\n\n{BEGIN}\n{END}\n"


def test_user_text_above_and_below_the_block_survives_byte_for_byte():
    above = "# MEMORY\n\n  indented line \t\n\n\n- my own bullet <!-- not a fact -->\n"
    below = "\n## My section\n\nLast line without newline  "
    current = above + f"{BEGIN}\n- Old line <!-- fact-0009 -->\n{END}\n" + below

    result = reconcile(current, [fact(1, category="preference")], max_lines=200)

    assert result.text.startswith(above)
    assert result.text.endswith(f"{END}\n" + below)
    assert block_of(result.text) == ["## Preferences",
                                     "- The user said thing number 1 <!-- fact-0001 -->"]


def test_a_block_at_the_very_end_without_newline_stays_without_one():
    current = f"notes\n{BEGIN}\n{END}"

    result = reconcile(current, [fact(1)], max_lines=200)

    assert result.text.endswith(f"-->\n{END}")


def test_crlf_files_keep_crlf_in_the_block():
    current = f"# Notes\r\nline two\r\n\r\n{BEGIN}\r\n{END}\r\n"

    result = reconcile(current, [fact(1, category="identity")], max_lines=200)

    assert result.text.startswith("# Notes\r\nline two\r\n\r\n")
    assert "\n" not in result.text.replace("\r\n", "")
    assert f"{BEGIN}\r\n## Identity\r\n- " in result.text
    assert not reconcile(result.text, [fact(1, category="identity")], max_lines=200).changed


def test_crlf_file_without_markers_gets_a_crlf_block():
    result = reconcile("a\r\nb\r\n", [fact(1)], max_lines=200)

    assert result.text == (f"a\r\nb\r\n\r\n{BEGIN}\r\n## Facts\r\n"
                           f"- The user said thing number 1 <!-- fact-0001 -->\r\n{END}\r\n")


# --- malformed markers --------------------------------------------------------------------

@pytest.mark.parametrize("current, problem", [
    (f"x\n{END}\n{BEGIN}\n", "the end marker comes before the begin marker"),
    (f"{BEGIN}\n{BEGIN}\n{END}\n", "2 begin and 1 end markers, expected one of each"),
    (f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", "2 begin and 2 end markers, expected one of each"),
    (f"notes\n{BEGIN}\n- a fact\n", "a begin marker without an end marker"),
    (f"notes\n{END}\n", "an end marker without a begin marker"),
    (f"see {BEGIN} here\n{END}\n", "a marker is not on a line of its own"),
])
def test_malformed_markers_leave_the_file_verbatim_with_a_warning(current, problem):
    result = reconcile(current, [fact(1, category="identity", pinned=True)], max_lines=200)

    assert result.text == current
    assert not result.changed
    assert result.warnings == [f"MEMORY.md left as it is: {problem}; fix the markers by hand"]
    assert result.added == result.kept == result.removed == []
    assert block_fact_ids(current) == []


# --- what goes in and what comes out -------------------------------------------------------

def test_activation_thresholds_add_keep_and_remove():
    faded, lukewarm_old, lukewarm_new, hot, at_floor, at_add = (
        fact(1), fact(2), fact(3), fact(4), fact(5), fact(6))
    current = memory_with(faded, lukewarm_old, at_floor)
    now = [fact(1, activation=0.10), fact(2, activation=0.30), fact(3, activation=0.30),
           fact(4, activation=0.90), fact(5, activation=REMOVE_BELOW),
           fact(6, activation=ADD_ABOVE)]

    result = reconcile(current, now, max_lines=200)

    assert result.removed == [("fact-0001", "activation 0.1000 below 0.15")]
    assert result.kept == ["fact-0002", "fact-0005"]
    assert result.added == ["fact-0004"]
    assert block_fact_ids(result.text) == ["fact-0004", "fact-0002", "fact-0005"]
    assert "fact-0003" not in result.text and "fact-0006" not in result.text


def test_superseded_and_vanished_facts_are_removed_with_their_reasons():
    current = memory_with(fact(1), fact(2), fact(3))

    result = reconcile(current, [fact(1, superseded=True, pinned=True), fact(3)],
                       max_lines=200)

    assert result.removed == [("fact-0001", "superseded"),
                              ("fact-0002", "no longer an active fact (forgotten or archived)")]
    assert block_fact_ids(result.text) == ["fact-0003"]


def test_pinned_facts_are_in_however_faded():
    result = reconcile(None, [fact(1, activation=0.0, pinned=True)], max_lines=200)

    assert block_fact_ids(result.text) == ["fact-0001"]


def test_custom_thresholds_are_used():
    now = [fact(1, activation=0.35), fact(2, activation=0.85), fact(3, activation=0.6)]

    result = reconcile(memory_with(fact(1)), now, max_lines=200, add_above=0.8, remove_below=0.4)

    assert result.removed == [("fact-0001", "activation 0.3500 below 0.4")]
    assert result.added == ["fact-0002"]


# --- never promoted ------------------------------------------------------------------------

NEVER_PROMOTED = [
    (f"My OpenAI key is {OPENAI_KEY}", "holds a secret (openai-key)"),
    ('{"id": "fact-1", "subject": "user"}', "looks like JSON metadata"),
    ("[1, 2, 3]", "looks like JSON metadata"),
    ("2026-05-15T09:00:00Z INFO summarize finished", "looks like a raw log line"),
    ("[2026-05-15 09:00:00] ERROR index rebuild", "looks like a raw log line"),
    ("[09:00:01] worker started", "looks like a raw log line"),
    ("Likes tea --> and coffee", "contains an HTML comment marker (would break the block)"),
    ("Hi <!-- there", "contains an HTML comment marker (would break the block)"),
    ("first line\nsecond line", "contains a line break (would break the block)"),
    ("said so in sessions/2026-05-15-090000.jsonl:4", "cites a session log file"),
    ("fact-7f3c9a2e-1b4d-5e6f-8a9b-0c1d2e3f4a5b", "a bare id, hash or path with no words"),
    ("7f3c9a2e-1b4d-5e6f-8a9b-0c1d2e3f4a5b", "a bare id, hash or path with no words"),
    ("9f86d081884c7d659a2feaa0c55ad015", "a bare id, hash or path with no words"),
    ("/home/alex/notes/todo.md", "a bare id, hash or path with no words"),
    ("todo.md", "a bare id, hash or path with no words"),
    ("x" * 301, "too long for a memory line"),
    ("   ", "empty text"),
    ("API key is [REDACTED:openai-key]", "holds a redacted secret"),
]


def test_the_key_used_here_is_one_redact_detects():
    assert redact(OPENAI_KEY).kinds == ["openai-key"]


@pytest.mark.parametrize("text, reason", NEVER_PROMOTED)
def test_metadata_logs_and_secrets_are_never_promoted(text, reason):
    candidate = Candidate("fact-0001", text, "identity", 1.0, 1.0, pinned=True)

    result = reconcile(None, [candidate], max_lines=200)

    assert promotion_problem(candidate) == reason
    assert result.skipped == [("fact-0001", reason)]
    assert block_fact_ids(result.text) == []
    if text.strip():
        assert text.strip() not in result.text


def test_a_promoted_fact_that_now_has_a_problem_is_removed_with_the_reason():
    current = memory_with(fact(1))

    result = reconcile(current, [fact(1, f"token = {OPENAI_KEY}")], max_lines=200)

    assert result.removed == [("fact-0001", "holds a secret (openai-key)")]
    assert OPENAI_KEY not in result.text


@pytest.mark.parametrize("text", ["Alex lives in Berlin", "我住在北京。",
                                  "See /etc/hosts for the map", "COVID-19 booster on 2026-05-01",
                                  "Prefers [dark] mode", "2026-05-01: moved to Lisbon"])
def test_ordinary_sentences_are_promotable(text):
    assert promotion_problem(fact(1, text)) is None


def test_temporary_facts_stay_out_unless_pinned():
    loose = fact(1, category="temporary", activation=1.0)
    pinned = fact(2, category="temporary", pinned=True)

    result = reconcile(None, [loose, pinned], max_lines=200)

    assert result.skipped == [("fact-0001", "temporary facts stay out of MEMORY.md")]
    assert block_of(result.text) == ["## Temporary",
                                     "- The user said thing number 2 <!-- fact-0002 -->"]


def test_ineligible_facts_with_problems_are_not_reported_as_skipped():
    result = reconcile(None, [fact(1, '{"a": 1}', activation=0.2)], max_lines=200)

    assert result.skipped == []


# --- layout --------------------------------------------------------------------------------

def test_groups_follow_the_category_order_with_headings_only_when_used():
    categories = ["temporary", "fact", "action", "decision", "state", "relationship",
                  "preference", "health", "identity", "no-such-category"]
    candidates = [fact(n, category=c, pinned=True) for n, c in enumerate(categories)]

    lines = block_of(reconcile(None, candidates, max_lines=200).text)

    assert [line for line in lines if line.startswith("#")] == [
        "## Identity", "## Health and safety", "## Preferences", "## Relationships",
        "## Current state", "## Decisions", "## Action items", "## Facts", "## Temporary"]
    assert lines[lines.index("## Facts") + 1:lines.index("## Temporary")] == [
        "- The user said thing number 1 <!-- fact-0001 -->",
        "- The user said thing number 9 <!-- fact-0009 -->"]   # unknown category -> Facts
    assert "" not in lines


def test_within_a_group_pinned_then_importance_then_activation_then_id():
    candidates = [fact(1, importance=0.5, activation=0.9), fact(2, importance=0.9),
                  fact(3, importance=0.1, pinned=True), fact(4, importance=0.5, activation=0.95),
                  fact(5, importance=0.5, activation=0.9)]

    result = reconcile(None, candidates, max_lines=200)

    assert block_fact_ids(result.text) == ["fact-0003", "fact-0002", "fact-0004", "fact-0001",
                                           "fact-0005"]


def test_order_of_the_candidates_does_not_matter():
    candidates = [fact(n, category=c, importance=(n % 7) / 7, activation=0.6 + (n % 5) / 20)
                  for n, c in enumerate(["identity", "health", "fact", "state"] * 30)]
    shuffled = candidates[:]
    random.Random(4).shuffle(shuffled)

    assert reconcile("x\n", candidates, max_lines=50).text == \
        reconcile("x\n", shuffled, max_lines=50).text


def test_handwritten_lines_inside_the_block_are_replaced_with_a_warning():
    current = f"{BEGIN}\n## Identity\n- my own note\n\n- Kept <!-- fact-0001 -->\n{END}\n"

    result = reconcile(current, [fact(1, "Kept", activation=0.3)], max_lines=200)

    assert result.kept == ["fact-0001"]
    assert "my own note" not in result.text
    assert result.warnings == ["1 line(s) inside the managed block were not written by "
                               "vm-memory-oracle and were replaced; keep notes outside the markers"]


def test_block_fact_ids_reads_the_ids_in_order():
    current = f"- outside <!-- fact-9 -->\n{BEGIN}\n## Facts\n- b <!-- fact-2 -->\n" \
              f"- a <!-- fact-1 -->\n- again <!-- fact-2 -->\n{END}\n"

    assert block_fact_ids(current) == ["fact-2", "fact-1"]
    assert block_fact_ids(None) == []
    assert block_fact_ids("no markers\n") == []


# --- the line cap --------------------------------------------------------------------------

def test_five_thousand_hot_facts_fit_in_200_lines_identity_and_health_first():
    others = ["fact", "preference", "decision", "state", "action", "relationship"]
    category = {0: "identity", 1: "health"}   # 100 of each among the 5,000
    candidates = [fact(n, category=category.get(n % 50, others[n % 6]),
                       importance=(n // 50 % 10) / 10, activation=0.9) for n in range(5000)]

    result = reconcile(None, candidates, max_lines=200)

    lines = result.text.splitlines()
    assert len(lines) == 200
    assert [line for line in lines if line.startswith("## ")] == ["## Identity",
                                                                  "## Health and safety"]
    in_block = set(block_fact_ids(result.text))
    assert len(in_block) == 200 - 4 - 2
    identity = [c for c in candidates if c.category == "identity"]
    health = [c for c in candidates if c.category == "health"]
    assert len(identity) + len(health) > len(in_block)
    # what was left out of health is never more important than what got in
    health_in = [c.importance for c in health if c.id in in_block]
    health_out = [c.importance for c in health if c.id not in in_block]
    assert all(c.id in in_block for c in identity)
    assert min(health_in) >= max(health_out)
    assert result.warnings == [] and result.left_out == 5000 - 194


def test_pinned_facts_win_the_cap_over_categories():
    candidates = [fact(n, category="identity", importance=1.0) for n in range(10)] + \
                 [fact(99, category="action", importance=0.0, pinned=True)]

    result = reconcile("", candidates, max_lines=6)

    assert block_of(result.text) == ["## Identity",
                                     "- The user said thing number 0 <!-- fact-0000 -->",
                                     "## Action items",
                                     "- The user said thing number 99 <!-- fact-0099 -->"]


def test_a_fact_squeezed_out_by_the_cap_is_removed_with_that_reason():
    current = memory_with(fact(1, category="fact"), before="")
    hot = [fact(n, category="identity", importance=1.0) for n in range(2, 5)]

    result = reconcile(current, [fact(1, category="fact")] + hot, max_lines=6)

    assert result.removed == [("fact-0001", "MEMORY.md line cap")]
    assert len(result.text.splitlines()) == 6


def test_user_lines_over_the_cap_keep_the_user_text_and_an_empty_block():
    above = "".join(f"note {n}\n" for n in range(15))
    below = "".join(f"more {n}\n" for n in range(10))
    current = memory_with(fact(1, category="identity"), before=above, after=below)

    result = reconcile(current, [fact(1, category="identity", pinned=True)], max_lines=20)

    assert result.text == above + f"{BEGIN}\n{END}\n" + below
    assert result.removed == [("fact-0001", "MEMORY.md line cap")]
    assert result.warnings == [
        "MEMORY.md has 25 lines of your own, which with the 2 marker lines exceed "
        "memory_md_max_lines (20); the managed block is left empty"]


def test_no_blank_separator_when_it_would_break_the_cap():
    notes = "".join(f"note {n}\n" for n in range(18))

    result = reconcile(notes, [fact(1)], max_lines=20)

    assert result.text == notes + f"{BEGIN}\n{END}\n"
    assert result.warnings == [] and result.left_out == 1


# --- idempotence ---------------------------------------------------------------------------

def test_reconciling_the_output_again_changes_nothing():
    candidates = [fact(n, category=c, importance=(n % 4) / 4, activation=0.3 + (n % 7) / 10,
                       pinned=n % 11 == 0)
                  for n, c in enumerate(["identity", "health", "fact", "temporary"] * 20)]
    first = reconcile("# Mine\nno newline at end", candidates, max_lines=40)

    second = reconcile(first.text, candidates, max_lines=40)

    assert first.changed
    assert not second.changed
    assert second.text == first.text
    assert second.added == [] and second.removed == []
    assert second.kept == block_fact_ids(first.text)


# --- property ------------------------------------------------------------------------------

user_text = st.text(st.sampled_from("ab #-<>!\n\r\t\x0c\u2028é中"), max_size=60) \
    .filter(lambda t: BEGIN not in t and END not in t)
candidate = st.builds(
    Candidate,
    id=st.integers(0, 15).map(lambda n: f"fact-{n}"),
    text=st.sampled_from(["Alex lives in Berlin", "Likes green tea", "我住在北京。",
                          f"key {OPENAI_KEY}", '{"json": true}', "a --> b", "2026-05-15T09:00 log",
                          "deadbeef1234", "two\nlines", ""]),
    category=st.sampled_from(["identity", "health", "preference", "relationship", "state",
                              "decision", "action", "fact", "temporary", "other"]),
    importance=st.floats(0, 1),
    activation=st.floats(0, 1),
    pinned=st.booleans(),
    superseded=st.booleans(),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=user_text, after=user_text, with_block=st.booleans(),
       old=st.lists(candidate, max_size=8), candidates=st.lists(candidate, max_size=20),
       max_lines=st.integers(0, 30))
def test_property_cap_user_text_and_ids(before, after, with_block, old, candidates, max_lines):
    if with_block:
        if before and before.splitlines(keepends=True)[-1] == before.splitlines()[-1]:
            before += "\n"   # the begin marker must start a line of its own
        current = memory_with(*old, before=before, after=after)
        user_lines = len(before.splitlines()) + len(after.splitlines())
    else:
        current = before
        user_lines = len(before.splitlines())

    result = reconcile(current, candidates, max_lines=max_lines)

    assert len(result.text.splitlines()) <= max(max_lines, user_lines + 2)
    if with_block:
        assert result.text.startswith(before)
        assert result.text.endswith(f"{END}\n" + after)
    else:
        assert result.text.startswith(before)
    by_id = {}
    for c in candidates:
        by_id.setdefault(c.id, c)
    for fact_id in block_fact_ids(result.text):
        assert fact_id in by_id
        assert not by_id[fact_id].superseded and promotion_problem(by_id[fact_id]) is None
    assert not reconcile(result.text, candidates, max_lines=max_lines).changed


def test_the_block_fills_to_fill_lines_and_to_the_cap_only_when_the_users_lines_need_it():
    candidates = [fact(n) for n in range(100)]
    roomy = reconcile("# mine\n", candidates, max_lines=50, fill_lines=45)
    assert len(roomy.text.splitlines()) == 45
    crowded_notes = "".join(f"note {n}\n" for n in range(44))
    crowded = reconcile(crowded_notes, candidates, max_lines=50, fill_lines=45)
    assert len(crowded.text.splitlines()) == 50 and crowded.text.startswith(crowded_notes)
