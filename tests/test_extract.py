"""Rule-based extraction: fragments, classes, patterns, importance, dates, redaction."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from vm_memory_oracle.extract.dates import resolve_dates
from vm_memory_oracle.extract.fragments import (
    CHATTER,
    COMMAND,
    QUESTION,
    STATEMENT,
    classify,
    fragments,
    split_turn,
)
from vm_memory_oracle.extract.redact import redact
from vm_memory_oracle.extract.rules import Extracted, fact_from_fragment, importance_of
from vm_memory_oracle.model.turn import Turn

TS = datetime(2026, 5, 15, 14, 30, tzinfo=timezone.utc)  # a Friday


def facts_of(text: str, speaker: str | None = None) -> list[Extracted]:
    turn = Turn("sessions/2026-05-15-143000.jsonl", 3, TS, "user", text, speaker)
    found = [fact_from_fragment(turn, fragment) for fragment in fragments(text)]
    return [fact for fact in found if fact is not None]


def test_turns_split_on_punctuation_and_connectives_in_both_languages():
    assert split_turn("我叫张三，在北京工作，明天要开会") == [
        "我叫张三",
        "在北京工作",
        "明天要开会",
    ]
    assert split_turn("我对花生过敏。另外，我喜欢喝乌龙茶") == [
        "我对花生过敏。",
        "另外 我喜欢喝乌龙茶",
    ]
    assert split_turn("I love jazz but I hate techno. Also, my wife is Maria.") == [
        "I love jazz",
        "but I hate techno.",
        "Also my wife is Maria.",
    ]
    # A fragment that is only a signal stays with what it is about.
    assert split_turn("记住，我讨厌香菜") == ["记住 我讨厌香菜"]
    assert split_turn("I'm allergic to nuts, by the way.") == ["I'm allergic to nuts by the way."]


@pytest.mark.parametrize(
    "text, kind",
    [
        ("ok 好的", CHATTER),
        ("哈哈", CHATTER),
        ("Thanks!", CHATTER),
        ("Good to see you!", CHATTER),
        ("How have you been?", QUESTION),
        ("你能帮我吗", QUESTION),
        ("Is it raining", QUESTION),
        ("Can you check the weather", COMMAND),
        ("帮我查一下天气", COMMAND),
        ("I live in Berlin", STATEMENT),
        ("我住在北京", STATEMENT),
        ("Wow, that's cool, Caroline!", CHATTER),
        ("That must've been breathtaking!", CHATTER),
        ("I went to a pride parade last Friday!", STATEMENT),
        ("We adopted 2 cats!", STATEMENT),
    ],
)
def test_fragments_are_classified(text, kind):
    assert classify(text) == kind


@pytest.mark.parametrize(
    "text, predicate, obj, category",
    [
        ("My name is Alex Chen", "name", "Alex Chen", "identity"),
        ("我叫张三", "name", "张三", "identity"),
        ("I live in Berlin", "lives_in", "Berlin", "identity"),
        ("我住在北京", "lives_in", "北京", "identity"),
        ("I moved to Shanghai", "lives_in", "Shanghai", "state"),
        ("I work at Acme Robotics as an engineer", "works_at", "Acme Robotics", "identity"),
        ("我在腾讯工作", "works_at", "腾讯", "identity"),
        ("I prefer dark mode", "prefers", "dark mode", "preference"),
        ("I love hiking", "loves", "hiking", "preference"),
        ("I hate cilantro", "hates", "cilantro", "preference"),
        ("我喜欢喝乌龙茶", "喜欢", "喝乌龙茶", "preference"),
        ("我讨厌香菜", "讨厌", "香菜", "preference"),
        ("I'm allergic to peanuts", "allergic_to", "peanuts", "health"),
        ("我对花生过敏", "allergic_to", "花生", "health"),
        ("My wife is called Maria", "has_wife", "Maria", "relationship"),
        ("我的女儿叫小雨", "has_女儿", "小雨", "relationship"),
        ("We decided to use PostgreSQL", "decided", "use PostgreSQL", "decision"),
        ("我们决定用Rust重写", "decided", "用Rust重写", "decision"),
        ("TODO: renew the certificate", "needs_to", "renew the certificate", "action"),
        ("I need to call the dentist", "needs_to", "call the dentist", "action"),
        ("我需要准备演讲", "needs_to", "准备演讲", "action"),
        ("我要去买菜", "needs_to", "去买菜", "action"),
    ],
)
def test_patterns_read_first_person_statements(text, predicate, obj, category):
    [fact] = facts_of(text)
    assert (fact.predicate, fact.object, fact.category) == (predicate, obj, category)
    assert fact.subject == "user"
    assert fact.source == "sessions/2026-05-15-143000.jsonl:3"


def test_unmatched_statements_are_kept_with_the_speaker_as_subject():
    [fact] = facts_of("The quarterly numbers looked much better than expected.", speaker="Dana")
    assert (fact.subject, fact.predicate, fact.category) == ("Dana", "said", "fact")
    assert fact.text == "Dana said: The quarterly numbers looked much better than expected."
    assert fact.importance == 0.5


def test_leading_connectives_are_stripped_as_words_only():
    [fact] = facts_of("Android builds take forty minutes on CI.")
    assert fact.text == "user said: Android builds take forty minutes on CI."
    [fact] = facts_of("So I moved to Wellington")
    assert fact.object == "Wellington"
    assert classify("Sounds great.") == CHATTER


def test_the_default_threshold_keeps_asides_and_a_higher_one_drops_plain_remarks():
    """What is said in passing is kept as what is said plainly: such turns are more often
    what a later question asks about (references/scoring.md)."""
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.extract.rules import extract_facts

    turn = Turn("sessions/x.jsonl", 1, TS, "user", "")
    aside = [(turn, fragment) for fragment in fragments("By the way, the printer is on floor 2")]
    [kept] = extract_facts(aside, threshold=Settings().extract_threshold)
    said = [(turn, fragment) for fragment in fragments("The printer is on floor 2")]
    [plain] = extract_facts(said, threshold=Settings().extract_threshold)
    assert kept.importance == plain.importance == 0.5
    assert extract_facts(aside, threshold=0.6) == extract_facts(said, threshold=0.6) == []


def test_chatter_questions_and_requests_give_no_fact():
    for text in (
        "ok 好的",
        "Thanks! Sounds great.",
        "哈哈",
        "How are you doing today?",
        "Can you check the weather for me?",
        "Hey Mel!",
    ):
        assert facts_of(text) == [], text


def test_importance_is_intrinsic_plus_signals_capped():
    [fact] = facts_of("记住，我讨厌香菜")
    assert fact.importance == 1.0  # preference 0.8 + "记住" 0.5, capped
    assert importance_of("preference", "我讨厌香菜") == 0.8
    assert importance_of("fact", "this is important: the server is in rack 4") == 0.8
    # said in passing, as often what a later question asks about: nothing taken away
    assert importance_of("fact", "by the way, the printer is on floor 2") == 0.5
    assert importance_of("health", "顺便说一下，我对花生过敏") == 1.0


def test_dates_are_resolved_against_the_turn():
    [fact] = facts_of("I need to call the dentist tomorrow")
    assert fact.object == "call the dentist tomorrow (2026-05-16)"
    [fact] = facts_of("I moved to Shanghai last month")
    assert fact.object == "Shanghai"
    assert fact.text == "user lives in Shanghai (last month, 2026-04)"
    [fact] = facts_of("我明天要开会")
    assert fact.text == "用户明天（2026-05-16）要开会"
    [fact] = facts_of("I went to a support group yesterday", speaker="Caroline")
    assert fact.text == "Caroline went to a support group yesterday (2026-05-14)"
    assert fact.valid_from == "2026-05-14"


@pytest.mark.parametrize(
    "said, meant",
    [
        ("next Friday", "next Friday (2026-05-22)"),
        ("last Friday", "last Friday (2026-05-08)"),
        ("before Friday", "before Friday (2026-05-22)"),  # said on a Friday: the next one
        ("by Monday", "by Monday (2026-05-18)"),
        ("the day after tomorrow", "the day after tomorrow (2026-05-17)"),
        ("three days ago", "three days ago (2026-05-12)"),
        ("in 2 weeks", "in 2 weeks (2026-05-29)"),
        ("last week", "last week (week of 2026-05-04)"),
        ("next month", "next month (2026-06)"),
        ("下周五", "下周五（2026-05-22）"),
        ("上周三", "上周三（2026-05-06）"),
        ("昨天", "昨天（2026-05-14）"),
        ("3天后", "3天后（2026-05-18）"),
        ("去年", "去年（2025）"),
    ],
)
def test_relative_date_expressions(said, meant):
    assert resolve_dates(said, date(2026, 5, 15)).text == meant


@pytest.mark.parametrize(
    "secret, kind",
    [
        ("sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD", "openai-key"),
        ("AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
        ("ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "github-token"),
        (
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM\n"
            "-----END RSA PRIVATE KEY-----",
            "private-key",
        ),
        ("xoxb-123456789012-abcdefghijkl", "slack-token"),
    ],
)
def test_secrets_are_redacted(secret, kind):
    result = redact(f"here it is: {secret} ok")
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert result.count == 1


def test_password_values_are_redacted_and_the_key_kept():
    assert redact("password: hunter22").text == "password: [REDACTED:password]"
    assert (
        redact("我的密码是abc12345，别告诉别人").text == "我的密码是[REDACTED:password]，别告诉别人"
    )
    assert redact("I like tokens of appreciation").count == 0


@given(st.text(max_size=80))
def test_redaction_is_idempotent(text):
    once = redact(text)
    twice = redact(once.text)
    assert twice.text == once.text and twice.count == 0


@pytest.mark.parametrize(
    "text",
    [
        "I feel the same way!",
        "Hey Caroline, since we last chatted",
        "So much since we talked!",
        "Thanks, Caroline!",
        "Hey Mel, great to chat with you again!",
        "I'm so happy for you!",
        "I agree, Mel!",
        "[photo: a sunset over a lake]",
        "[shares a photo: a dog]",
        "It's been ages!",
        "I know, right?",
        "谢谢你！",
    ],
)
def test_chatter_is_classified_as_chatter(text):
    assert classify(text) == CHATTER
    assert facts_of(text, speaker="Melanie") == []


@pytest.mark.parametrize(
    "text",
    [
        "I love camping trips with my fam.",
        "Hey Caroline, it's been super busy at work.",
        "I went to a LGBTQ support group yesterday and it was so powerful.",
        "Since we talked I moved to Paris.",
    ],
)
def test_statements_that_open_like_chatter_stay_statements(text):
    assert classify(text) == STATEMENT


def caroline_to_melanie(text: str) -> list[str]:
    turn = Turn(
        "sessions/2026-05-15-143000.jsonl", 3, TS, "user", text, "Caroline", None, "Melanie"
    )
    return [
        fact.text
        for fact in (fact_from_fragment(turn, fragment) for fragment in fragments(text))
        if fact
    ]


@pytest.mark.parametrize(
    "said, stored",
    [
        (
            "I'm creating a library for when I have kids.",
            "Caroline is creating a library for when they have kids.",
        ),
        ("I love camping trips with my fam.", "Caroline loves camping trips with their fam"),
        (
            "I love that you chose pottery for your art.",
            "Caroline loves that Melanie chose pottery for Melanie's art.",
        ),
        (
            "Last Fri I finally took my kids to a pottery workshop.",
            "Last Fri Caroline finally took their kids to a pottery workshop.",
        ),
        (
            "You are so brave and you inspire me.",
            "Melanie is so brave and Melanie inspires Caroline.",
        ),
        ("I'd been there before.", "Caroline had been there before."),
        (
            "We all made our own pots, it was fun!",
            "Caroline said: We all made our own pots, it was fun!",
        ),
        (
            "I chose them 'cause they help LGBTQ+ folks with adoption.",
            "Caroline chose them 'cause they help LGBTQ+ folks with adoption.",
        ),
        ("I eventually got the hang of it.", "Caroline eventually got the hang of it."),
        ("I honestly love it.", "Caroline honestly loves it."),
        ("I reply to every letter.", "Caroline replies to every letter."),
        ("I know you can do it, Melanie!", "Caroline knows Melanie can do it!"),
    ],
)
def test_first_and_second_person_are_resolved_to_the_speaker_and_the_addressee(said, stored):
    assert caroline_to_melanie(said) == [stored]


def test_chinese_first_and_second_person_are_resolved():
    assert caroline_to_melanie("我喜欢你做的菜") == ["Caroline喜欢Melanie做的菜"]
    assert caroline_to_melanie("我们下周去爬山") == [
        "Caroline说：我们下周（week of 2026-05-18）去爬山"
    ]


def test_a_rewritten_fact_keeps_the_words_it_was_said_in():
    turn = Turn(
        "sessions/2026-05-15-143000.jsonl",
        3,
        TS,
        "user",
        "I feel the same way! I love camping trips with my fam.",
        "Melanie",
        None,
        "Caroline",
    )
    [fact] = [
        fact
        for fact in (fact_from_fragment(turn, fragment) for fragment in fragments(turn.text))
        if fact
    ]
    assert fact.text == "Melanie loves camping trips with their fam"
    assert fact.context == "Melanie: I feel the same way! I love camping trips with my fam."


@pytest.mark.parametrize(
    "text, pieces",
    [
        (
            "Please renew the TLS certificate for api.example.org before Friday. "
            "Then tell Dr. Smith.",
            [
                "Please renew the TLS certificate for api.example.org before Friday.",
                "Then tell Dr. Smith.",
            ],
        ),
        (
            "The price went up 3.5% to $12.50 in the U.S. last year! "
            'I said "stop it. now." and left.',
            [
                "The price went up 3.5% to $12.50 in the U.S. last year!",
                'I said "stop it. now." and left.',
            ],
        ),
        ("我昨天搬到了上海。明天去北京！你呢？", ["我昨天搬到了上海。", "明天去北京！", "你呢？"]),
    ],
)
def test_sentences_end_where_sentences_end(text, pieces):
    assert split_turn(text) == pieces


def test_a_task_keeps_a_domain_name_whole():
    [fact] = facts_of("TODO: renew the TLS certificate for api.example.org before Friday")
    # the deadline is resolved like any weekday said ahead ("before Friday": the next one)
    assert fact.object == (
        "renew the TLS certificate for api.example.org before Friday (2026-05-22)"
    )


@given(
    st.lists(
        st.sampled_from(
            [
                "password is hunter22",
                "密码是 abc123",
                "token: abcdefghijkl1234",
                "AKIAABCDEFGHIJKLMNOP",
                "sk-abcdefghijklmnop1234",
                "ghp_" + "a" * 36,
                "eyJhbGciOi.eyJzdWIiOi.abcdefg",
                "Asia",
                "the secret garden",
                "pk_live_abcdefghijklmnop",
                "xoxb-1234567890",
                "AIza" + "b" * 35,
                "-----BEGIN PRIVATE KEY-----\nabc",
            ]
        )
        | st.text(max_size=40),
        max_size=6,
    )
)
def test_the_shortcut_for_text_without_a_trigger_changes_no_result(parts):
    from vm_memory_oracle.extract.redact import redact_all_patterns

    text = " ".join(parts)
    assert redact(text) == redact_all_patterns(text)


@given(
    st.lists(
        st.sampled_from(
            [
                "password is hunter22",
                "password is [REDACTED:password]",
                "token: abcdefghijkl1234",
                "sk-abcdefghijklmnop1234",
                "[REDACTED:openai-key]",
                "the secret garden",
                "xoxb-1234567890",
            ]
        )
        | st.text(max_size=40),
        max_size=6,
    )
)
def test_a_secret_is_found_exactly_where_redact_would_leave_its_mark(parts):
    from vm_memory_oracle.extract.redact import MARK, holds_secret

    text = " ".join(parts)
    assert holds_secret(text) == (MARK in redact(text).text)


@pytest.mark.parametrize(
    "text",
    [
        "PASSWORD is hunter22",
        "Pa\u017fsword is hunter22",  # long s: (?i) takes it for an s
        "a\u0131za" + "b" * 35,  # dotless i: (?i) takes it for an i
        "ap\u0131_key = abcdefghijklmnop",
        "\u212aey: the TOKEN = abcdefghijkl1234",  # Kelvin sign
        "GITHUB_PAT_" + "a" * 22,
        "SK-ABCDEFGHIJKLMNOP1234",
    ],
)
def test_the_shortcut_sees_every_spelling_the_patterns_match(text):
    """The trigger is searched in case-folded text: every character a case-insensitive
    pattern matches must still set it off."""
    from vm_memory_oracle.extract.redact import _may_hold_a_secret, redact_all_patterns

    assert redact(text) == redact_all_patterns(text)
    assert _may_hold_a_secret(text)


def test_casefold_maps_every_character_a_case_insensitive_letter_matches_onto_it():
    """Why the trigger may search case-folded text: for each letter of its literals, every
    character `(?i)` matches to it folds to it, the dotless ı aside (the trigger spells it
    [iı])."""
    import re

    any_letter = re.compile("(?i)[a-z]")
    matched = [chr(code) for code in range(0x110000) if any_letter.fullmatch(chr(code))]
    assert len(matched) > 52  # the Kelvin sign, the long s, the dotless ı and the dotted İ
    odd = [
        (hex(ord(character)), letter)
        for character in matched
        for letter in "abcdefghijklmnopqrstuvwxyz"
        if re.fullmatch("(?i)" + letter, character)
        and letter not in character.casefold().replace("\u0131", "i")
    ]
    assert odd == []


def test_an_answer_carries_the_question_it_answers_and_its_turn_on_one_line():
    """A short answer is found by the words of its question: a turn that follows another
    speaker's question keeps that question before it in its context, on one line (a turn
    with line breaks is kept too, not refused for them). A turn after its own speaker's
    question, or after no question, keeps only what it said."""
    from vm_memory_oracle.extract.rules import in_context

    source = "sessions/2026-05-15-143000.jsonl"
    turns = in_context(
        [
            Turn(source, 1, TS, "user", "Where did you move from?", "Melanie"),
            Turn(source, 2, TS, "user", "Sweden,\nfour years ago.", "Caroline"),
            Turn(source, 3, TS, "user", "Do you miss it? I do sometimes.", "Caroline"),
            Turn(source, 4, TS, "user", "I love camping trips with my fam.", "Melanie"),
        ]
    )

    def facts(turn):
        found = (fact_from_fragment(turn, fragment) for fragment in fragments(turn.text))
        return [fact for fact in found if fact]

    answers = facts(turns[1])
    assert answers and all(
        fact.context == "Melanie: Where did you move from? Caroline: Sweden, four years ago."
        for fact in answers
    )
    assert turns[2].asked is None  # its own speaker asked before it
    [camping] = facts(turns[3])
    assert camping.context == (
        "Caroline: Do you miss it? I do sometimes. Melanie: I love camping trips with my fam."
    )
    for fact in answers + [camping]:
        from vm_memory_oracle.intake import candidate_fact

        record = fact.to_json()
        candidate_fact(record, created="2026-05-15T14:30:00Z", default_source=source, source=source)


@pytest.mark.parametrize(
    "said, meant",
    [
        ("I've been into hiking lately.", "user is into hiking"),
        ("I'm really into Korean dramas these days", "user is into Korean dramas"),
        ("Lately I've gotten into baking sourdough.", "user is into baking sourdough"),
        (
            "I usually prefer aisle seats on long flights",
            "user prefers aisle seats on long flights",
        ),
        ("I'm a big fan of jazz", "user likes jazz"),
    ],
)
def test_a_preference_shown_in_passing_is_a_preference(said, meant):
    [fact] = facts_of(said)
    assert (fact.category, fact.text) == ("preference", meant)


def test_a_long_turn_in_the_first_person_is_not_an_article():
    """Sentences opening with "My" are the person's own, whatever their case."""
    from vm_memory_oracle.extract.pasted import pasted_spans

    diary = " ".join(
        f"My sister called on day {n} and we talked about the garden for a while."
        for n in range(20)
    )
    assert len(diary) > 1000 and pasted_spans(diary) == []


def test_a_line_holding_a_secret_teaches_the_same_before_and_after_it_is_redacted():
    """Summarize redacts a log while other runs read it: "My api key ... is sk-proj-...
    by the way." read before the redaction gave a fact (redacted when stored) and read
    after it none, so two runs disagreed on what the line taught (the daily summary of
    one lacked the fact of the other). Neither gives one now."""
    raw = "My api key for the billing bot is sk-proj-Zx81kL0pQ9rT5vW2yB7nM4cD by the way."
    redacted = "My api key for the billing bot is [REDACTED:openai-key] by the way."
    assert facts_of(raw) == facts_of(redacted) == []
    assert facts_of("My api key for the billing bot expires in June by the way.") != []


@pytest.mark.parametrize(
    "said, statement",
    [
        (
            "The play I attended was actually Hamilton, have you heard of it?",
            "The play I attended was actually Hamilton.",
        ),
        (
            "My new car is a Subaru Outback, do you know if it's reliable?",
            "My new car is a Subaru Outback.",
        ),
        (
            "I adopted a puppy named Biscuit - what do you think of the name?",
            "I adopted a puppy named Biscuit.",
        ),
        ("我上周看的电影是《流浪地球》，你看过吗？", "我上周看的电影是《流浪地球》。"),
        ("我上周看的电影是《流浪地球》你看过吗？", "我上周看的电影是《流浪地球》。"),
        ("我的新车是比亚迪汉，你知道它可靠吗？", "我的新车是比亚迪汉。"),
    ],
)
def test_a_statement_ending_in_a_question_to_the_listener_is_learned_as_a_statement(
    said, statement
):
    """A declarative clause, then a question clause addressed to the listener: the statement
    is learned as it is when it ends in a full stop (the question dropped)."""

    def read(text: str) -> list[tuple[str, str, str]]:
        return [(f.predicate, f.object.rstrip("。."), f.text.rstrip("。.")) for f in facts_of(text)]

    learned = read(said)
    assert learned == read(statement)
    assert len(learned) == 1 and "?" not in learned[0][2] and "？" not in learned[0][2]


@pytest.mark.parametrize(
    "asked",
    [
        "Have you heard of Hamilton?",
        "Is my new car a Subaru, do you know?",
        "I was wondering, have you heard of Hamilton?",
        "By the way, have you met any of them in person?",
        "Music's amazing, isn't it?",
        "What play did I attend, do you remember?",
        "你看过《流浪地球》吗？",
        "我想问你喜欢吃什么？",
        "我觉得你说得对吗？",
    ],
)
def test_a_question_that_states_nothing_stays_a_question(asked):
    assert facts_of(asked) == []
    assert all(fragment.kind != STATEMENT for fragment in fragments(asked))
