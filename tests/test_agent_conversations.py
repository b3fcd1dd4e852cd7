"""A person talking with an assistant: asking in their own words, known by names in two
scripts, moving house. Each test reads like a failure a user met."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import log_turns, remember_records

LATER = "2026-05-20T10:00:00Z"

EVERYDAY = [
    ("user", "drives", "a blue Volvo"),
    ("billing service", "runs_on", "PostgreSQL 16"),
    ("user", "is_allergic_to", "peanuts"),
    ("user", "lives_in", "Berlin"),
    ("user", "works_at", "Acme Robotics"),
    ("user", "prefers", "dark mode in every editor"),
    ("user", "has", "a cat named Miso"),
    ("user", "plays", "the cello on weekends"),
    ("deploy pipeline", "uses", "GitHub Actions"),
    ("user", "is_learning", "Japanese"),
    ("user's sister", "lives_in", "Toronto"),
    ("user", "takes", "the 8:15 train to work"),
]
# Asked as the person would: in the first person, or naming a part of a subject.
RELATED = {
    "what car do I drive": "Volvo",
    "which database does billing use": "PostgreSQL",
    "what am I allergic to": "peanuts",
    "where do I live": "Berlin",
    "where do I work": "Acme",
    "which editor theme do I like": "dark mode",
    "what is my cat called": "Miso",
    "what instrument do I play": "cello",
    "where do i work these days": "Acme",  # typed in lower case
}
# Asked in the first person about what the memory does not hold.
UNRELATED_TO_ME = [
    "what is my blood type",
    "when is my dentist appointment",
    "what is my favourite dinosaur",
    "how tall am I",
]


def unrelated() -> list[str]:
    path = Path(__file__).parent / "data" / "unrelated-queries.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def summarized(cli, data_dir: Path, day: str, turns: list[str]) -> list[dict]:
    """The facts of a memory that summarized `turns` of the user, said a minute apart on
    `day` from 09:00 (a session log of that day)."""
    log_turns(data_dir, [("user", text) for text in turns], f"{day}-090000.jsonl")
    result = cli("--action", "summarize", "--all", now=f"{day}T10:00:00Z")
    assert result.code == 0, result.err
    facts = (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    return [json.loads(line) for line in facts]


def recall_all(cli, tmp_path: Path, queries: list[str]) -> dict[str, list[dict]]:
    path = tmp_path / "queries.jsonl"
    path.write_text("".join(json.dumps({"query": query}) + "\n" for query in queries))
    result = cli("--json", "--action", "recall", "--queries", str(path), "--no-boost", now=LATER)
    assert result.code == 0, result.err
    return {line["query"]: line["results"] for line in result.json_lines()}


def test_a_person_asking_in_their_own_words_finds_what_the_memory_knows(cli, data_dir, tmp_path):
    """ "what car do I drive" finds the Volvo as "which car does the user drive" does, and
    "which database does billing use" the billing service's database; a question about
    nothing remembered, in the first person or not, still finds nothing."""
    remember_records(
        cli,
        tmp_path / "facts.jsonl",
        [{"subject": s, "predicate": p, "object": o} for s, p, o in EVERYDAY],
    )
    asked = recall_all(cli, tmp_path, [*RELATED, *unrelated(), *UNRELATED_TO_ME])
    for query, answer in RELATED.items():
        assert asked[query], f"{query!r} found nothing"
        assert answer in asked[query][0]["text"], (query, asked[query][0]["text"])
    answered = {query: hits for query, hits in asked.items() if query not in RELATED and hits}
    assert len(asked) - len(RELATED) >= 40
    assert answered == {}


def test_a_bilingual_persons_names_are_both_theirs_and_either_finds_them(cli, data_dir):
    """ "My name is Priya Raman...", "我叫王磊..." and a move to Porto: the Chinese name does
    not replace the English one, "Where does Priya live?" finds Porto (and not the old
    Lisbon turn beside it), "What is my name?" gives both names."""
    facts = summarized(
        cli,
        data_dir,
        "2026-05-10",
        [
            "My name is Priya Raman and I live in Lisbon.",
            "我叫王磊，我在深圳工作。",
            "Actually I moved to Porto last month.",
        ],
    )
    names = {fact["object"]: fact for fact in facts if fact["predicate"] == "name"}
    assert set(names) == {"Priya Raman", "王磊"}
    assert not any(fact.get("superseded_at") for fact in names.values())

    def found(query: str) -> list[str]:
        result = cli("--json", "--action", "recall", "--query", query, "--no-boost", now=LATER)
        assert result.code == 0, result.err
        return [hit["text"] for hit in result.json()["results"]]

    where = found("Where does Priya live?")
    assert any("Porto" in text for text in where), where
    assert not any("Lisbon" in text for text in where), where
    name = " ".join(found("What is my name?"))
    assert "Priya Raman" in name and "王磊" in name
    assert any("深圳" in text for text in found("Where does 王磊 work?"))


def test_a_request_with_a_deadline_is_an_action_item_the_agent_keeps(cli, data_dir):
    """ "Please renew the TLS certificate for api.example.org before Friday." left no fact;
    it is the action item the agent must not forget, dated. A request answered in the turn
    ("write a poem") is none."""
    facts = summarized(
        cli,
        data_dir,
        "2026-05-13",
        [
            "Please renew the TLS certificate for api.example.org before Friday.",
            "Please write a short poem about autumn.",
            "Can you remind me to call the dentist tomorrow?",
            "请明天提醒我交房租",
        ],
    )
    by_line = {int(fact["source"].rsplit(":", 1)[1]): fact for fact in facts}
    assert set(by_line) == {1, 3, 4}  # no fact of the poem
    renew = by_line[1]
    assert (renew["category"], renew["predicate"]) == ("action", "asked_assistant_to")
    assert renew["object"] == "renew the TLS certificate for api.example.org before Friday"
    assert renew["text"] == (
        "user asked the assistant to renew the TLS certificate for api.example.org "
        "before Friday (2026-05-15)"
    )
    assert renew["salience"] >= 0.5
    assert by_line[3]["text"] == (
        "user asked the assistant to remind user to call the dentist tomorrow (2026-05-14)"
    )
    assert (
        by_line[4]["text"].startswith("用户请助手明天") and "提醒用户交房租" in by_line[4]["text"]
    )
    found = cli(
        "--json",
        "--action",
        "recall",
        "--query",
        "what do I have to renew?",
        "--no-boost",
        now="2026-05-14T09:00:00Z",
    )
    assert found.json()["results"][0]["id"] == renew["id"]


ARTICLE = (
    "predict the entities of this article one sentence at a time:\n"
    "WASHINGTON, D.C. — The U.S. Department of Energy today announced the achievement of "
    "fusion ignition at Lawrence Livermore National Laboratory. "
    "This historic, first-of-its kind achievement will provide unprecedented capability. "
    "“I would like to thank the members of Congress who have supported the National Ignition "
    "Facility,” said the Secretary. "
    "The experiment produced more energy from fusion than the laser energy used to drive it. "
    "The President's Chief Advisor for Science and Technology called it a landmark. "
    "Scientists across the national laboratories contributed to the design of the target. "
    "The next steps include raising the repetition rate and the gain of the shots. "
    "Funding for the facility has been stable over the last decade of experiments. "
    "Researchers will now study how to make ignition repeatable and more efficient. "
    "Industry partners expressed interest in the results for future power plants. "
    "The laboratory published a summary of the shot on its website the same afternoon."
)


def test_pasted_material_keeps_its_own_voice_and_leaves_no_fact(cli, data_dir):
    """An article, a quotation, a log, a table and a chess game's moves pasted into a turn
    are not the person's biography: no "user would like to thank..." from a quote's "I",
    no "today" rewritten inside an article, no "user said: Kg2 Bd5+ 28."; what the person
    says around them still counts; the turns stay findable as episodes."""
    log_turn = (
        "I deployed the billing service yesterday and it fails on start:\n"
        "2024-03-01 12:00:01 ERROR Connection refused to db:5432\n"
        "Traceback (most recent call last)\n"
        '  File "app.py", line 12, in <module>'
    )
    table_turn = "| host | cpu |\n| web-1 | 93% |\n| web-2 | 12% |"
    quote_turn = "My manager said “I will approve the budget on Monday if the numbers hold.”"
    assert len(ARTICLE) > 1000
    moves_turn = (
        "I moved my knight back to f3 after lunch, you're white "
        "1. e4 c5 2. Nf3 Nf6 3. d4 cxd4 4. Nxd4 Nxe4 5. Bd3 d5 26.\nhxg4 Rh8 27. Kg2 Bd5+ 28."
    )
    facts = summarized(
        cli, data_dir, "2026-05-13", [ARTICLE, log_turn, table_turn, quote_turn, moves_turn]
    )
    texts = [fact["text"] for fact in facts]
    by_line: dict[int, list[str]] = {}
    for fact in facts:
        by_line.setdefault(int(fact["source"].rsplit(":", 1)[1]), []).append(fact["text"])
    assert len(by_line.get(1, [])) <= 1  # the person's own first line, at most
    assert not any("thank the members of Congress" in text for text in texts)
    assert not any("(2026-05-13)" in text for text in by_line.get(1, []))
    assert any("billing service" in text for text in by_line[2]), by_line
    assert not any("Connection refused" in text or "Traceback" in text for text in texts)
    assert 3 not in by_line  # a table alone
    assert not any("approve the budget" in text for text in texts)
    assert not any(ROLE_LABEL.match(text) for text in texts), texts
    assert any("knight back to f3" in text for text in by_line[5]), by_line
    assert not any("Kg2" in text or "Nf3" in text for text in texts), texts
    episodes = (data_dir / "episodes" / "2026-05-13.jsonl").read_text(encoding="utf-8")
    assert "Chief Advisor for Science and Technology" in episodes
    assert "Connection refused" in episodes and "web-1" in episodes and "Kg2 Bd5+" in episodes


# A transcript's role label before a line: "user: ...", "assistant: ...", "用户：...".
ROLE_LABEL = re.compile(r"^(?:user|assistant|用户|助手)\s*[:：]", re.IGNORECASE)


def test_a_remark_naming_no_one_says_who_said_it_without_a_role_label(cli, data_dir):
    """A remark no pattern reads is kept as what its speaker said, as a sentence says it
    ("user said: ..."), never as a transcript's "user: ..." line."""
    facts = summarized(
        cli,
        data_dir,
        "2026-05-13",
        ["The build takes forty minutes on CI since the upgrade.", "我们下周去杭州爬山。"],
    )
    texts = [fact["text"] for fact in facts]
    assert "user said: The build takes forty minutes on CI since the upgrade." in texts, texts
    assert any(text.startswith("用户说：我们") for text in texts), texts
    assert not any(ROLE_LABEL.match(text) for text in texts), texts


def test_bad_input_of_a_conversation_with_an_assistant_loses_nothing_and_leaks_nothing(
    cli, data_dir
):
    """A pasted source file holding a secret, in a turn of 100,000 characters (the most a
    turn may hold; a longer one is set aside with a warning, tests/test_hostile.py), a
    turn that is only a table, a pasted log, mixed scripts: no fact comes from what was
    pasted, the secret is redacted in the log, the facts and the episodes, every turn
    stays in the log and is an episode, and a line deep in the file is found as a
    passage, never the whole file."""
    secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
    body = "".join(
        f"def handler_{n}(event):\n    return route(event, 'queue-{n}')\n\n" for n in range(1700)
    )
    body = body.replace("def handler_850(", f"TOKEN = '{secret}'\ndef reconcile_ledger_850(")
    code_turn = f"Here is my worker module, it crashes at start:\n```python\n{body}"
    code_turn = code_turn[: 100_000 - 4] + "\n```"
    assert len(code_turn) == 100_000
    table_turn = "| region | p95 ms |\n| eu-west | 412 |\n| us-east | 388 |"
    log_turn = (
        "2026-05-13 08:59:58 WARN retry 3 of 5\n"
        "2026-05-13 09:00:01 ERROR I cannot reach the ledger today"
    )
    mixed_turn = "I moved to 上海 last month, 我很喜欢这里的咖啡馆。"
    facts = summarized(cli, data_dir, "2026-05-13", [code_turn, table_turn, log_turn, mixed_turn])
    texts = [fact["text"] for fact in facts]
    by_line: dict[int, list[str]] = {}
    for fact in facts:
        by_line.setdefault(int(fact["source"].rsplit(":", 1)[1]), []).append(fact["text"])
    assert set(by_line) <= {1, 4}, by_line  # the person's own words, nothing pasted
    assert not any("handler_" in text or "route(" in text for text in texts)
    assert not any("ledger" in text or "p95" in text for text in texts)
    assert any("上海" in text for text in by_line[4])
    for path in [
        *(data_dir / "sessions").glob("*.jsonl"),
        *(data_dir / "episodes").glob("*.jsonl"),
        data_dir / "knowledge-graph" / "facts.jsonl",
    ]:
        assert secret not in path.read_text(encoding="utf-8"), path
    [log] = (data_dir / "sessions").glob("*.jsonl")
    assert len(log.read_text(encoding="utf-8").splitlines()) == 4  # every turn kept
    episodes = [
        json.loads(line)
        for line in (data_dir / "episodes" / "2026-05-13.jsonl").read_text().splitlines()
    ]
    assert {int(e["source"].rsplit(":", 1)[1]) for e in episodes} == {1, 2, 3, 4}
    pasted = [e for e in episodes if e["source"].endswith(":1")]
    assert len(pasted) > 50 and sum(len(e["text"]) for e in pasted) > 90_000
    found = cli(
        "--json", "--action", "recall", "--query", "reconcile_ledger_850", "--no-boost", now=LATER
    )
    assert found.code == 0, found.err
    results = found.json()["results"]
    assert any("reconcile_ledger_850" in hit["text"] for hit in results), results
    assert sum(len(hit["text"]) for hit in results) <= 2000


def test_a_fact_said_in_passing_is_kept(cli, data_dir):
    """ "Also, by the way, I completed my undergrad in CS from UCLA" left no fact ("by the
    way" lowered it below the threshold), and "Where did I complete my Bachelor's degree
    in Computer Science?" found only the turn's other remarks."""
    facts = summarized(
        cli,
        data_dir,
        "2026-05-13",
        [
            "I'm still leaning towards Stanford, but I'm concerned about the cost. Also, by "
            "the way, I completed my undergrad in CS from UCLA, which has a great reputation.",
            "btw I need to buy milk.",
        ],
    )
    texts = [fact["text"] for fact in facts]
    assert any("undergrad in CS from UCLA" in text for text in texts), texts
    assert any("buy milk" in text for text in texts), texts
