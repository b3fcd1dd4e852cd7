"""The managed block of MEMORY.md: what goes in, what comes out, and what is never touched."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from vm_memory_oracle.extract.redact import redact
from vm_memory_oracle.steps.memory_md.block import (
    ADD_ABOVE,
    BEGIN,
    CAP_REASON,
    CHAR_CAP_REASON,
    DUPLICATE_REASON,
    END,
    GONE_REASON,
    MAX_LINE_CHARS,
    REMOVE_BELOW,
    SAME_TURN_REASON,
    _rank_key,
    _ranked,
    block_fact_ids,
    chars,
    fact_line,
    reconcile,
)
from vm_memory_oracle.steps.memory_md.candidates import Candidate, promotion_problem

OPENAI_KEY = "sk-" + "A1b2C3d4E5" * 4
FOREIGN_WARNING = (
    "1 line(s) inside the managed block were not written by "
    "vm-memory-oracle and were replaced; keep notes outside the markers"
)


def fact(
    number: int,
    text: str | None = None,
    *,
    category: str = "fact",
    importance: float = 0.5,
    activation: float = 0.9,
    pinned: bool = False,
    superseded: bool = False,
    subject: str = "user",
    salience: float | None = None,
    source: str = "",
    valid_from: str | None = None,
) -> Candidate:
    return Candidate(
        id=f"fact-{number:04d}",
        text=text or f"The user said thing number {number}",
        category=category,
        importance=importance,
        activation=activation,
        pinned=pinned,
        superseded=superseded,
        subject=subject,
        salience=salience,
        source=source,
        valid_from=valid_from,
    )


def line(number: int, text: str | None = None) -> str:
    """The block line of fact `number` with the default text (or `text`)."""
    return f"- {text or f'The user said thing number {number}'}"


def block_of(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[lines.index(BEGIN) + 1 : lines.index(END)]


def memory_with(*facts: Candidate, before: str = "# Notes\n", after: str = "") -> str:
    """A MEMORY.md whose block already lists `facts`, as an earlier reconcile wrote it."""
    return reconcile(
        before + f"{BEGIN}\n{END}\n" + after, list(facts), max_lines=200, add_above=-1.0
    ).text


# --- where the block goes --------------------------------------------------------------


def test_no_file_gives_the_default_document_with_the_block():
    result = reconcile(None, [fact(1, "Alex lives in Berlin", category="identity")], max_lines=200)

    assert result.text == (
        "# MEMORY\n\n" + BEGIN + "\n## The user\n- Alex lives in Berlin\n" + END + "\n"
    )
    assert result.added == ["fact-0001"]
    assert result.changed


def test_text_without_markers_gets_the_block_appended_after_a_blank_line():
    notes = "# My notes\n\nCall mum on Sundays."  # no trailing newline

    result = reconcile(notes, [fact(1)], max_lines=200)

    assert result.text.startswith(notes)
    assert result.text[len(notes) :] == (
        "\n\n" + BEGIN + "\n## The user\n- The user said thing number 1\n" + END + "\n"
    )


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
    assert block_of(result.text) == ["## The user", "- The user said thing number 1"]
    assert result.removed == [("fact-0009", GONE_REASON)]


def test_a_block_at_the_very_end_without_newline_stays_without_one():
    current = f"notes\n{BEGIN}\n{END}"

    result = reconcile(current, [fact(1)], max_lines=200)

    assert result.text.endswith(f"\n- The user said thing number 1\n{END}")


def test_crlf_files_keep_crlf_in_the_block():
    current = f"# Notes\r\nline two\r\n\r\n{BEGIN}\r\n{END}\r\n"

    result = reconcile(current, [fact(1, category="identity")], max_lines=200)

    assert result.text.startswith("# Notes\r\nline two\r\n\r\n")
    assert "\n" not in result.text.replace("\r\n", "")
    assert f"{BEGIN}\r\n## The user\r\n- " in result.text
    again = reconcile(result.text, [fact(1, category="identity")], max_lines=200)
    assert not again.changed
    assert again.kept == ["fact-0001"]  # the line is known by its text despite the "\r\n"


def test_crlf_file_without_markers_gets_a_crlf_block():
    result = reconcile("a\r\nb\r\n", [fact(1)], max_lines=200)

    assert result.text == (
        f"a\r\nb\r\n\r\n{BEGIN}\r\n## The user\r\n- The user said thing number 1\r\n{END}\r\n"
    )


# --- malformed markers --------------------------------------------------------------------


@pytest.mark.parametrize(
    "current, problem",
    [
        (f"x\n{END}\n{BEGIN}\n", "the end marker comes before the begin marker"),
        (f"{BEGIN}\n{BEGIN}\n{END}\n", "2 begin and 1 end markers, expected one of each"),
        (f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", "2 begin and 2 end markers, expected one of each"),
        (f"notes\n{BEGIN}\n- a fact\n", "a begin marker without an end marker"),
        (f"notes\n{END}\n", "an end marker without a begin marker"),
        (f"see {BEGIN} here\n{END}\n", "a marker is not on a line of its own"),
    ],
)
def test_malformed_markers_leave_the_file_verbatim_with_a_warning(current, problem):
    candidates = [fact(1, "a fact", category="identity", pinned=True)]

    result = reconcile(current, candidates, max_lines=200)

    assert result.text == current
    assert not result.changed
    assert result.warnings == [f"MEMORY.md left as it is: {problem}; fix the markers by hand"]
    assert result.added == result.kept == result.removed == []
    assert block_fact_ids(current) == []
    assert block_fact_ids(current, candidates) == []


# --- what goes in and what comes out -------------------------------------------------------


def test_activation_thresholds_add_keep_and_remove():
    # Facts 3 (lukewarm, new), 4 (hot) and 6 (at the add threshold) are not in the block yet.
    faded, lukewarm_old, at_floor = fact(1), fact(2), fact(5)
    current = memory_with(faded, lukewarm_old, at_floor)
    now = [
        fact(1, activation=0.10),
        fact(2, activation=0.30),
        fact(3, activation=0.30),
        fact(4, activation=0.90),
        fact(5, activation=REMOVE_BELOW),
        fact(6, activation=ADD_ABOVE),
    ]

    result = reconcile(current, now, max_lines=200)

    assert result.removed == [("fact-0001", "activation 0.1000 below 0.15")]
    assert result.kept == ["fact-0002", "fact-0005"]
    assert result.added == ["fact-0004"]
    assert block_fact_ids(result.text, now) == ["fact-0004", "fact-0002", "fact-0005"]
    assert line(3) not in block_of(result.text) and line(6) not in block_of(result.text)


def test_superseded_and_vanished_facts_are_removed_with_their_reasons():
    current = memory_with(fact(1), fact(2), fact(3))
    now = [fact(1, superseded=True, pinned=True), fact(3)]

    # fact-0002 is no longer a candidate: `former` tells its line
    result = reconcile(current, now, max_lines=200, former={line(2): "fact-0002"})

    assert result.removed == [
        ("fact-0001", "superseded"),
        ("fact-0002", "no longer an active fact (forgotten or archived)"),
    ]
    assert block_fact_ids(result.text, now) == ["fact-0003"]
    assert result.warnings == []


def test_pinned_facts_are_in_however_faded():
    candidates = [fact(1, activation=0.0, pinned=True)]

    result = reconcile(None, candidates, max_lines=200)

    assert block_fact_ids(result.text, candidates) == ["fact-0001"]


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
    assert block_fact_ids(result.text, [candidate]) == []
    assert block_of(result.text) == []
    if text.strip():
        assert text.strip() not in result.text


def test_a_promoted_fact_that_now_has_a_problem_is_removed_with_the_reason():
    # A line of an earlier version is known by its id even when the fact's text changed.
    current = (
        f"# Notes\n{BEGIN}\n## Facts\n- The user said thing number 1 <!-- fact-0001 -->\n{END}\n"
    )

    result = reconcile(current, [fact(1, f"token = {OPENAI_KEY}")], max_lines=200)

    assert result.removed == [("fact-0001", "holds a secret (openai-key)")]
    assert OPENAI_KEY not in result.text
    assert block_of(result.text) == []


def test_a_promoted_fact_that_became_temporary_is_removed_with_the_reason():
    current = memory_with(fact(1))

    result = reconcile(current, [fact(1, category="temporary")], max_lines=200)

    assert result.removed == [("fact-0001", "temporary facts stay out of MEMORY.md")]
    assert block_of(result.text) == []
    assert result.warnings == []


@pytest.mark.parametrize(
    "text",
    [
        "Alex lives in Berlin",
        "我住在北京。",
        "See /etc/hosts for the map",
        "COVID-19 booster on 2026-05-01",
        "Prefers [dark] mode",
        "2026-05-01: moved to Lisbon",
    ],
)
def test_ordinary_sentences_are_promotable(text):
    assert promotion_problem(fact(1, text)) is None


def test_temporary_facts_stay_out_unless_pinned():
    loose = fact(1, category="temporary", activation=1.0)
    pinned = fact(2, category="temporary", pinned=True)

    result = reconcile(None, [loose, pinned], max_lines=200)

    assert result.skipped == [("fact-0001", "temporary facts stay out of MEMORY.md")]
    assert block_of(result.text) == ["## The user", "- The user said thing number 2"]


def test_ineligible_facts_with_problems_are_not_reported_as_skipped():
    result = reconcile(None, [fact(1, '{"a": 1}', activation=0.2)], max_lines=200)

    assert result.skipped == []


# --- layout --------------------------------------------------------------------------------


def test_groups_follow_the_subject_the_user_first_with_headings_only_when_used():
    candidates = [
        fact(1, subject="Sam", salience=0.9, category="identity"),
        fact(2, subject="user", salience=0.1, category="health"),
        fact(3, subject="用户", salience=0.2, category="no-such-category"),
        fact(4, subject="Berlin", salience=0.95),
        fact(5, subject="  Sam ", salience=0.3, category="preference"),
        fact(6, subject="", salience=0.15, category="action"),
    ]

    lines = block_of(reconcile(None, candidates, max_lines=200).text)

    # the user first however little salient; the others in the order of their best fact
    assert [line for line in lines if line.startswith("#")] == [
        "## The user",
        "## Berlin",
        "## Sam",
    ]
    assert lines == [
        "## The user",
        line(3),
        line(6),
        line(2),  # "用户" and "" are the user
        "## Berlin",
        line(4),
        "## Sam",
        line(1),
        line(5),
    ]
    assert "" not in lines
    # categories give no headings any more
    assert not any(heading in lines for heading in ("## Identity", "## Facts", "## Temporary"))


def test_within_a_group_pinned_then_weight_then_importance_then_id():
    candidates = [
        fact(1, importance=0.5, activation=0.9),  # weight .45
        fact(2, importance=0.9),  # .81
        fact(3, importance=0.1, pinned=True),  # pinned: first
        fact(4, importance=0.5, activation=0.95),  # .475
        fact(5, importance=0.5, activation=0.9),  # .45, id after 1
        fact(6, importance=0.2, salience=0.5),  # .45, importance .2
        fact(7, importance=0.9, salience=0.5),  # .45, importance .9
        fact(8, importance=0.9, activation=0.6),  # .54
        fact(9, importance=0.8, activation=0.51),  # .408
        fact(10, importance=0.1, salience=1.0),
    ]  # .9: salience wins

    result = reconcile(None, candidates, max_lines=200)

    assert block_fact_ids(result.text, candidates) == [
        "fact-0003",
        "fact-0010",
        "fact-0002",
        "fact-0008",
        "fact-0004",
        "fact-0007",
        "fact-0001",
        "fact-0005",
        "fact-0006",
        "fact-0009",
    ]


def test_weight_is_salience_or_importance_times_activation():
    assert fact(1, importance=0.4, activation=0.5).weight == pytest.approx(0.2)
    assert fact(1, importance=0.4, salience=0.8, activation=0.5).weight == pytest.approx(0.4)
    assert fact(1, importance=0.4, salience=0.0, activation=0.5).weight == 0.0


def test_order_of_the_candidates_does_not_matter():
    candidates = [
        fact(
            n,
            category=c,
            importance=(n % 7) / 7,
            activation=0.6 + (n % 5) / 20,
            subject=["user", "Sam", "Berlin"][n % 3],
            salience=None if n % 2 else (n % 9) / 9,
        )
        for n, c in enumerate(["identity", "health", "fact", "state"] * 30)
    ]
    shuffled = candidates[:]
    random.Random(4).shuffle(shuffled)

    assert (
        reconcile("x\n", candidates, max_lines=50).text
        == reconcile("x\n", shuffled, max_lines=50).text
    )


@pytest.mark.parametrize("kept_line", ["- Kept <!-- fact-0001 -->", "- Kept"])
def test_handwritten_lines_inside_the_block_are_replaced_with_a_warning(kept_line):
    current = f"{BEGIN}\n## Identity\n- my own note\n\n{kept_line}\n{END}\n"

    result = reconcile(current, [fact(1, "Kept", activation=0.3)], max_lines=200)

    assert result.kept == ["fact-0001"]
    assert "my own note" not in result.text
    assert result.warnings == [FOREIGN_WARNING]
    assert block_of(result.text) == ["## The user", "- Kept"]


def test_block_fact_ids_reads_the_ids_in_order():
    candidates = [fact(1, "a"), fact(2, "b"), fact(3, "c")]
    current = (
        f"- outside <!-- fact-0009 -->\n- c\n{BEGIN}\n## The user\n- b\n"
        f"- old <!-- fact-0007 -->\n- a\n- again <!-- fact-0002 -->\n- unknown\n{END}\n"
    )

    assert block_fact_ids(current, candidates) == ["fact-0002", "fact-0007", "fact-0001"]
    assert block_fact_ids(current) == ["fact-0007", "fact-0002"]  # earlier versions' lines only
    assert block_fact_ids(None) == []
    assert block_fact_ids(None, candidates) == []
    assert block_fact_ids("no markers\n- a\n", candidates) == []


# --- what a line shows ---------------------------------------------------------------------


def test_a_long_fact_is_shortened_at_a_word_with_an_ellipsis():
    text = " ".join(f"word{n:02d}" for n in range(36))[:250]  # 250 characters
    assert len(text) == 250
    long = fact(1, text)

    result = reconcile(None, [long], max_lines=200)

    [shown] = [entry for entry in block_of(result.text) if entry.startswith("- ")]
    assert shown == fact_line(long)
    assert len(shown) <= MAX_LINE_CHARS and chars(shown) <= MAX_LINE_CHARS
    assert shown.endswith("…")
    kept = shown[2:-1]
    assert text.startswith(kept) and text[len(kept)] == " "  # cut at a word boundary
    assert promotion_problem(long) is None and result.added == ["fact-0001"]
    again = reconcile(result.text, [long], max_lines=200)
    assert not again.changed and again.kept == ["fact-0001"]


def test_a_short_fact_is_shown_whole():
    text = "x" * (MAX_LINE_CHARS - 2)
    assert fact_line(fact(1, text)) == f"- {text}"
    assert fact_line(fact(1, "  Lives   in\tBerlin ")) == "- Lives in Berlin"


def test_the_day_of_a_dated_fact_is_shown():
    dated = fact(1, "Moved to Lisbon", valid_from="2026-05-01")
    says_it = fact(2, "Booster shot on 2026-04-02", valid_from="2026-04-02")
    not_a_day = fact(3, "Started a new job", valid_from="May 2026")

    result = reconcile(None, [dated, says_it, not_a_day], max_lines=200)

    lines = block_of(result.text)
    assert "- Moved to Lisbon (2026-05-01)" in lines
    assert "- Booster shot on 2026-04-02" in lines
    assert "- Started a new job" in lines
    assert not reconcile(result.text, [dated, says_it, not_a_day], max_lines=200).changed


def test_near_duplicates_are_shown_once():
    best = fact(1, "The user's sister Sam lives in Berlin with her two cats", salience=0.9)
    echo = fact(2, "the user's sister Sam lives in Berlin with two cats", salience=0.5)
    other = fact(3, "The user's brother lives in Rome", salience=0.4)

    result = reconcile(None, [echo, best, other], max_lines=200)

    assert block_of(result.text) == ["## The user", fact_line(best), fact_line(other)]
    assert result.left_out == 0

    # the echo was shown before the better statement came
    current = memory_with(echo, other)
    result = reconcile(current, [echo, best, other], max_lines=200)
    assert block_of(result.text) == ["## The user", fact_line(best), fact_line(other)]
    assert result.removed == [("fact-0002", DUPLICATE_REASON)]
    assert result.added == ["fact-0001"] and result.kept == ["fact-0003"]
    assert result.left_out == 0


def test_one_line_per_session_turn_the_most_salient():
    turn = "sessions/2026-05-15-090000.jsonl:3"
    salient = fact(1, "Alex lives in Berlin", salience=0.9, source=turn)
    lesser = fact(2, "Alex has a cat called Miso", salience=0.4, source=turn)
    other_turn = fact(
        3, "Alex likes green tea", salience=0.3, source="sessions/2026-05-15-090000.jsonl:4"
    )
    note_a = fact(4, "Alex speaks Portuguese", salience=0.2, source="notes/alex.md:1")
    note_b = fact(5, "Alex plays the cello", salience=0.1, source="notes/alex.md:1")
    candidates = [lesser, salient, other_turn, note_a, note_b]

    result = reconcile(None, candidates, max_lines=200)

    # one line per turn; sources outside sessions/ are not turns
    assert block_fact_ids(result.text, candidates) == [
        "fact-0001",
        "fact-0003",
        "fact-0004",
        "fact-0005",
    ]
    assert result.left_out == 0

    # the lesser statement was shown before
    result = reconcile(memory_with(lesser), candidates, max_lines=200)
    assert result.removed == [("fact-0002", SAME_TURN_REASON)]
    assert fact_line(lesser) not in block_of(result.text)


def test_what_a_pattern_read_is_shown_beside_the_remarks_of_its_turn():
    """ "I am allergic to peanuts and I live in Porto.": two facts of one turn, both shown;
    only remarks (category "fact") stand for their turn one at a time."""
    turn = "sessions/2026-05-15-090000.jsonl:3"
    allergy = fact(1, "user is allergic to peanuts", category="health", salience=0.7, source=turn)
    home = fact(2, "user lives in Porto", category="identity", salience=0.8, source=turn)
    remark = fact(3, "user said: The flight was long.", salience=0.9, source=turn)
    aside = fact(4, "user said: The food was fine.", salience=0.5, source=turn)
    candidates = [allergy, home, remark, aside]
    result = reconcile(None, candidates, max_lines=200)
    assert block_fact_ids(result.text, candidates) == ["fact-0003", "fact-0002", "fact-0001"]


# --- earlier versions and former facts -----------------------------------------------------


def test_an_old_format_block_migrates_to_lines_without_ids():
    current = (
        f"# Notes\n{BEGIN}\n## Identity\n- Alex lives in Berlin <!-- fact-0001 -->\n"
        f"## Preferences\n- Likes green tea <!-- fact-0002 -->\n"
        f"- Gone by now <!-- fact-0003 -->\n{END}\nafter\n"
    )
    candidates = [
        fact(1, "Alex lives in Berlin", category="identity", activation=0.3),
        fact(2, "Likes green tea", category="preference", activation=0.9),
    ]

    result = reconcile(current, candidates, max_lines=200)

    # activation 0.3 keeps fact-0001 only because it was in the block: its id was known
    assert result.kept == ["fact-0001", "fact-0002"]
    assert result.added == []
    assert result.removed == [("fact-0003", GONE_REASON)]
    assert result.warnings == []
    assert result.changed
    assert block_of(result.text) == ["## The user", "- Likes green tea", "- Alex lives in Berlin"]
    assert "<!-- fact-" not in result.text
    assert result.text.startswith(f"# Notes\n{BEGIN}\n") and result.text.endswith(f"{END}\nafter\n")
    assert block_fact_ids(result.text, candidates) == ["fact-0002", "fact-0001"]

    again = reconcile(result.text, candidates, max_lines=200)
    assert not again.changed
    assert again.kept == ["fact-0002", "fact-0001"]
    assert again.added == [] and again.removed == [] and again.warnings == []


def test_former_facts_lines_are_reported_as_removed_not_as_foreign():
    archived = fact(2, "Worked at Initech")
    current = memory_with(fact(1), archived)

    unknown = reconcile(current, [fact(1)], max_lines=200)
    known = reconcile(current, [fact(1)], max_lines=200, former={fact_line(archived): archived.id})

    assert unknown.removed == [] and unknown.warnings == [FOREIGN_WARNING]
    assert known.removed == [("fact-0002", GONE_REASON)]
    assert known.warnings == [] and known.kept == ["fact-0001"]
    assert known.text == unknown.text
    assert block_of(known.text) == ["## The user", line(1)]


def test_a_candidate_wins_over_a_former_fact_with_the_same_line():
    current = memory_with(fact(1))

    result = reconcile(current, [fact(1)], max_lines=200, former={line(1): "fact-0099"})

    assert result.kept == ["fact-0001"] and result.removed == [] and not result.changed


# --- the line cap --------------------------------------------------------------------------


@pytest.mark.slow
def test_five_thousand_hot_facts_fit_in_200_lines_the_most_salient_first():
    salience = random.Random(7)
    candidates = [
        fact(
            n,
            subject="Sam" if n % 50 == 0 else "user",
            importance=(n // 50 % 10) / 10,
            salience=round(salience.random(), 3),
            activation=0.6 + (n % 4) / 10,
        )
        for n in range(5000)
    ]
    candidates[4999] = fact(4999, salience=0.0, activation=0.0, pinned=True)
    candidates[100] = fact(100, subject="Sam", salience=1.0, activation=1.0)  # Sam's best

    result = reconcile(None, candidates, max_lines=200)

    lines = result.text.splitlines()
    assert len(lines) == 200
    # the user first, though Sam has the most salient fact
    assert [line for line in lines if line.startswith("## ")] == ["## The user", "## Sam"]
    in_block = set(block_fact_ids(result.text, candidates))
    assert len(in_block) == 200 - 4 - 2
    assert "fact-4999" in in_block and "fact-0100" in in_block  # pinned however faded
    # what was left out is never weightier than what got in
    weights_in = [c.weight for c in candidates if c.id in in_block and not c.pinned]
    weights_out = [c.weight for c in candidates if c.id not in in_block]
    assert min(weights_in) >= max(weights_out)
    assert result.warnings == [] and result.left_out == 5000 - 194


def test_pinned_facts_win_the_cap_over_high_salience_facts():
    candidates = [fact(n, importance=1.0, salience=1.0, activation=1.0) for n in range(10)] + [
        fact(99, subject="Sam", importance=0.0, salience=0.0, pinned=True)
    ]

    result = reconcile("", candidates, max_lines=6)

    assert block_of(result.text) == [
        "## The user",
        "- The user said thing number 0",
        "## Sam",
        "- The user said thing number 99",
    ]
    assert result.left_out == 9


def test_a_fact_squeezed_out_by_the_cap_is_removed_with_that_reason():
    current = memory_with(fact(1, salience=0.5), before="")
    hot = [fact(n, salience=1.0) for n in range(2, 5)]

    result = reconcile(current, [fact(1, salience=0.5)] + hot, max_lines=6)

    assert result.removed == [("fact-0001", CAP_REASON)]
    assert len(result.text.splitlines()) == 6
    assert result.left_out == 1


def test_only_the_facts_cut_by_the_cap_count_as_left_out():
    same_turn = [fact(n, salience=0.9, source="sessions/a.jsonl:3") for n in (2, 3)]
    twin = fact(4, "The user said thing number 2", salience=0.8)  # the line fact 2 shows
    capped = [fact(n, salience=0.1) for n in (5, 6)]

    result = reconcile(None, same_turn + [twin] + capped, max_lines=6)  # a heading, a line

    assert block_fact_ids(result.text, same_turn) == ["fact-0002"]
    assert result.left_out == 2  # 5 and 6; 3 (same turn) and 4 (same line) are not cut by it
    assert result.removed == []


def test_an_eligible_new_fact_with_a_problem_is_reported_as_never_promoted():
    secret = fact(1, f"The user's key is {OPENAI_KEY}", salience=1.0)
    faded = fact(2, f"The user's old key is {OPENAI_KEY}", activation=0.1)

    result = reconcile(None, [secret, faded, fact(3)], max_lines=200)

    assert result.skipped == [("fact-0001", "holds a secret (openai-key)")]
    assert block_fact_ids(result.text, [fact(3)]) == ["fact-0003"]


@given(
    st.lists(
        st.tuples(
            st.integers(0, 40),
            st.booleans(),
            st.sampled_from([0.0, 0.25, 0.5, 1.0]),
            st.sampled_from([0.0, 0.5, 1.0]),
            st.sampled_from([None, 0.0, 0.5]),
        ),
        max_size=30,
        unique_by=lambda drawn: drawn[0],
    )
)
def test_facts_are_ranked_as_their_rank_keys_sort(drawn):
    candidates = [
        fact(number, pinned=pinned, activation=activation, importance=importance, salience=salience)
        for number, pinned, activation, importance, salience in drawn
    ]

    assert _ranked(candidates) == sorted(candidates, key=_rank_key)


def test_the_character_budget_cuts_the_least_salient_first():
    saliences = {1: 0.2, 2: 0.9, 3: 0.5, 4: 0.1, 5: 0.7}
    candidates = [fact(n, salience=s) for n, s in saliences.items()]
    current = memory_with(*candidates, before="")
    markers = chars(f"{BEGIN}\n{END}\n")
    heading = chars("## The user\n")
    each = chars(line(1) + "\n")  # every line is as long
    max_chars = markers + heading + 3 * each + each - 1  # room for three lines, not four

    result = reconcile(current, candidates, max_lines=200, max_chars=max_chars)

    assert block_fact_ids(result.text, candidates) == ["fact-0002", "fact-0005", "fact-0003"]
    assert result.removed == [("fact-0001", CHAR_CAP_REASON), ("fact-0004", CHAR_CAP_REASON)]
    assert result.kept == ["fact-0002", "fact-0005", "fact-0003"]
    assert result.left_out == 2
    assert chars(result.text) <= max_chars


def test_user_lines_over_the_cap_keep_the_user_text_and_an_empty_block():
    above = "".join(f"note {n}\n" for n in range(15))
    below = "".join(f"more {n}\n" for n in range(10))
    current = memory_with(fact(1, category="identity"), before=above, after=below)

    result = reconcile(current, [fact(1, category="identity", pinned=True)], max_lines=20)

    assert result.text == above + f"{BEGIN}\n{END}\n" + below
    assert result.removed == [("fact-0001", "MEMORY.md line cap")]
    assert result.warnings == [
        "MEMORY.md has 25 lines of your own, which with the 2 marker lines exceed "
        "memory_md_max_lines (20); the managed block is left empty"
    ]


def test_no_blank_separator_when_it_would_break_the_cap():
    notes = "".join(f"note {n}\n" for n in range(18))

    result = reconcile(notes, [fact(1)], max_lines=20)

    assert result.text == notes + f"{BEGIN}\n{END}\n"
    assert result.warnings == [] and result.left_out == 1


# --- idempotence ---------------------------------------------------------------------------


def test_reconciling_the_output_again_changes_nothing():
    candidates = [
        fact(
            n,
            category=c,
            importance=(n % 4) / 4,
            activation=0.3 + (n % 7) / 10,
            pinned=n % 11 == 0,
            subject=["user", "Sam"][n % 2],
            source=f"sessions/a.jsonl:{n // 2}",
        )
        for n, c in enumerate(["identity", "health", "fact", "temporary"] * 20)
    ]
    first = reconcile("# Mine\nno newline at end", candidates, max_lines=40)

    second = reconcile(first.text, candidates, max_lines=40)

    assert first.changed
    assert not second.changed
    assert second.text == first.text
    assert second.added == [] and second.removed == []
    assert second.kept == block_fact_ids(first.text, candidates)
    assert second.kept  # the block is not empty


# --- property ------------------------------------------------------------------------------

user_text = st.text(st.sampled_from("ab #-<>!\n\r\t\x0c\u2028é中"), max_size=60).filter(
    lambda t: BEGIN not in t and END not in t
)
candidate = st.builds(
    Candidate,
    id=st.integers(0, 15).map(lambda n: f"fact-{n}"),
    text=st.sampled_from(
        [
            "Alex lives in Berlin",
            "Likes green tea",
            "我住在北京。",
            f"key {OPENAI_KEY}",
            '{"json": true}',
            "a --> b",
            "2026-05-15T09:00 log",
            "deadbeef1234",
            "two\nlines",
            "",
            "Moved to Lisbon on 2026-05-01",
            " ".join(["longer words"] * 15),
        ]
    ),
    category=st.sampled_from(
        [
            "identity",
            "health",
            "preference",
            "relationship",
            "state",
            "decision",
            "action",
            "fact",
            "temporary",
            "other",
        ]
    ),
    importance=st.floats(0, 1),
    activation=st.floats(0, 1),
    pinned=st.booleans(),
    superseded=st.booleans(),
    subject=st.sampled_from(["user", "用户", "", "Sam", "Berlin"]),
    salience=st.none() | st.floats(0, 1),
    source=st.sampled_from(["", "sessions/a.jsonl:1", "sessions/a.jsonl:2", "notes.md:1"]),
    valid_from=st.sampled_from([None, "2026-05-01", "May"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    before=user_text,
    after=user_text,
    with_block=st.booleans(),
    old=st.lists(candidate, max_size=8),
    candidates=st.lists(candidate, max_size=20),
    max_lines=st.integers(0, 30),
)
@pytest.mark.slow
def test_property_cap_user_text_and_ids(before, after, with_block, old, candidates, max_lines):
    if with_block:
        if before and before.splitlines(keepends=True)[-1] == before.splitlines()[-1]:
            before += "\n"  # the begin marker must start a line of its own
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
    fact_lines = [entry for entry in block_of(result.text) if not entry.startswith("## ")]
    ids = block_fact_ids(result.text, candidates)
    assert len(ids) == len(fact_lines)  # every line is known by a candidate's line
    for fact_id, shown in zip(ids, fact_lines):
        assert fact_id in by_id
        assert len(shown) <= MAX_LINE_CHARS
        # the line is that of an active, promotable candidate (several may share a line)
        assert any(
            fact_line(c) == shown and not c.superseded and promotion_problem(c) is None
            for c in by_id.values()
        )
    assert not reconcile(result.text, candidates, max_lines=max_lines).changed


def test_the_block_fills_to_fill_lines_and_to_the_cap_only_when_the_users_lines_need_it():
    candidates = [fact(n) for n in range(100)]
    roomy = reconcile("# mine\n", candidates, max_lines=50, fill_lines=45)
    assert len(roomy.text.splitlines()) == 45
    crowded_notes = "".join(f"note {n}\n" for n in range(44))
    crowded = reconcile(crowded_notes, candidates, max_lines=50, fill_lines=45)
    assert len(crowded.text.splitlines()) == 50 and crowded.text.startswith(crowded_notes)


def test_a_line_leaves_out_how_the_sentence_was_opened_in_speech():
    said = fact(1, "Hey Joanna, yeah it's a bummer that Nate didn't do well.", subject="Nate")
    named = fact(2, "Jon: Wow! Dance practice has been fun.", subject="Jon")
    plain = fact(3, "Sure thing, the meeting is on Monday.")
    result = reconcile(None, [said, named, plain], max_lines=200)
    lines = block_of(result.text)
    assert "- It's a bummer that Nate didn't do well." in lines
    assert "- Jon: Dance practice has been fun." in lines
    assert "- Sure thing, the meeting is on Monday." in lines
    # the lines are known again as the facts': the user's first, then Nate's, then Jon's
    assert block_fact_ids(result.text, [said, named, plain]) == [
        "fact-0003",
        "fact-0001",
        "fact-0002",
    ]


def test_a_line_two_facts_share_is_read_back_as_the_one_shown():
    # The same sentence about two subjects: only the first may be added (activation above
    # 0.5); the second ranks higher (importance 1) but may only stay, never come in.
    shared = {"text": "Alex lives in Berlin", "category": "identity", "valid_from": "2026-05-01"}
    shown = Candidate(id="fact-1", activation=1.0, importance=0.0, subject="user", **shared)
    other = Candidate(id="fact-2", activation=0.5, importance=1.0, subject="Sam", **shared)

    first = reconcile("", [shown, other], max_lines=4)
    again = reconcile(first.text, [shown, other], max_lines=4)

    assert first.added == ["fact-1"] and "## The user" in first.text
    assert not again.changed and again.kept == ["fact-1"]


def test_a_block_line_is_known_as_if_every_fact_line_were_listed():
    """Only the lines of the block (and their first words) are looked up, so only those
    are kept: each goes to the fact it went to when every fact's line was listed, shared
    lines and lines known by their first words included."""
    from vm_memory_oracle.steps.memory_md.block import _core, _known

    long = "The user keeps a very long note about the garden " + "and its roses " * 8
    candidates = [
        fact(1),
        fact(2, "The user said thing number 1", activation=0.05),  # shares fact 1's line
        fact(3, superseded=True),
        fact(4, "The user said thing number 3"),  # shares the superseded one's line
        fact(5, long, valid_from="2026-05-01"),
        *[fact(number) for number in range(6, 60)],
    ]
    former = {line(70): "fact-0070"}
    block = [
        line(1) + "\n",
        line(3),
        line(9),
        fact_line(candidates[4])[:90] + " and tulips  ",  # known by its first words
        line(70),
        "- a line no fact has",
    ]
    everything: dict[str, str] = {}  # the mapping of every fact's line, as it was made
    addable = ADD_ABOVE

    def claim(candidate):
        return (candidate.superseded, not (candidate.pinned or candidate.activation > addable))

    for candidate in sorted(candidates, key=claim):  # ranks tie here: a stable sort
        for key in (fact_line(candidate), _core(fact_line(candidate))):
            everything.setdefault(key, candidate.id)
    for key, fact_id in former.items():
        everything.setdefault(key, fact_id)
        everything.setdefault(_core(key), fact_id)

    known = _known(block, candidates, former)
    asked = {key for text in block for key in (text.rstrip(), _core(text.rstrip()))}
    assert known == {key: everything[key] for key in asked if key in everything}
    assert known[line(1)] == "fact-0001" and known[line(3)] == "fact-0004"
    assert known[_core(block[3].rstrip())] == "fact-0005"
    assert known[line(70)] == "fact-0070" and len(known) < len(everything) / 10


def test_a_fact_reads_as_the_candidate_made_of_its_fields():
    from vm_memory_oracle.model.fact import Fact
    from vm_memory_oracle.model.provenance import UNTRUSTED, Provenance
    from vm_memory_oracle.steps.memory_md.data_file import FactCandidate

    base = {"subject": "user", "predicate": "likes_a_lot", "created": "2026-01-02T03:04:05Z"}
    facts = [
        Fact(id="fact-a", object="green tea", source="user-stated", activation=0.9, **base),
        Fact(
            id="fact-b",
            object="x",
            text="The user moved to Lisbon",
            source="sessions/a.jsonl:4",
            activation=0.7,
            category="identity",
            importance=0.8,
            salience=0.6,
            pinned=True,
            valid_from="2026-03-01",
            superseded_by="fact-c",
            provenance=Provenance(UNTRUSTED),
            **base,
        ),
        Fact(
            id="fact-c",
            object="y",
            source="sessions/a.jsonl:9",
            activation=0.2,
            valid_from="2026-03-01T10:00:00Z",
            **base,
        ),
    ]
    activations = [0.9, 0.55, 0.1]
    made = [
        Candidate(
            id=fact.id,
            text=fact.sentence,
            category=fact.category or "fact",
            importance=fact.importance or 0.0,
            activation=activation,
            pinned=fact.pinned,
            superseded=not fact.current,
            subject=fact.subject,
            salience=fact.salience
            if fact.salience is not None
            else (None if fact.source.startswith("sessions/") else 1.0),
            source=fact.source,
            valid_from=fact.valid_from if fact.valid_from and len(fact.valid_from) == 10 else None,
            origin=fact.said_by.origin,
        )
        for fact, activation in zip(facts, activations)
    ]
    read = [FactCandidate(fact, activation) for fact, activation in zip(facts, activations)]
    names = [name for name in Candidate.__slots__ if not name.startswith("_")] + ["weight"]

    for candidate, fact_read in zip(made, read):
        assert {name: getattr(fact_read, name) for name in names} == {
            name: getattr(candidate, name) for name in names
        }
    assert reconcile(None, read, max_lines=200) == reconcile(None, made, max_lines=200)
