"""remember and forget through the CLI, as the agent and cron call them."""

from __future__ import annotations

import json

import pytest

from conftest import activation_state, data_files, write_jsonl

ALEX = ["--subject", "user", "--predicate", "name", "--object", "Alex"]


def fact_lines(data_dir):
    text = (data_dir / "knowledge-graph" / "facts.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def live(cli, fact_id, now):
    result = cli(
        "--json", "--action", "query", "--jq", f'.[] | select(.id == "{fact_id}")', now=now
    )
    assert result.code == 0, result.err
    return result.json_lines()[0]


def test_remember_creates_the_data_directory_and_stores_the_fact(cli, data_dir):
    result = cli("--json", "--action", "remember", *ALEX)
    assert result.code == 0, result.err
    payload = result.json()
    assert payload["added"] == 1 and payload["reinforced"] == 0
    [fact] = fact_lines(data_dir)
    assert fact["id"] == payload["ids"][0]
    assert (fact["subject"], fact["predicate"], fact["object"]) == ("user", "name", "Alex")
    assert fact["source"] == "user-stated"
    assert fact["created"] == "2026-05-15T14:30:00Z"
    assert fact["activation"] == 1.0


def test_remembering_the_same_fact_twice_keeps_one_line_and_raises_activation(cli, data_dir):
    first = cli("--json", "--action", "remember", *ALEX, now="2026-05-01T00:00:00Z").json()
    decayed = live(cli, first["ids"][0], "2026-05-11T00:00:00Z")["activation"]
    second = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "User",
        "--predicate",
        "Name",
        "--object",
        "alex",
        now="2026-05-11T00:00:00Z",
    ).json()

    assert second["ids"] == first["ids"] and second["reinforced"] == 1 and second["added"] == 0
    assert len(fact_lines(data_dir)) == 1
    after = live(cli, first["ids"][0], "2026-05-11T00:00:00Z")
    assert decayed == pytest.approx(0.5 ** (10 / 30))
    assert after["activation"] == pytest.approx(min(1.0, decayed + 0.3))
    assert after["activation"] > decayed
    assert after["access_count"] == 1


@pytest.mark.slow
def test_a_new_value_of_a_single_valued_predicate_supersedes_the_old(cli, data_dir):
    old = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "lives in",
        "--object",
        "Paris",
        now="2026-01-01T00:00:00Z",
    ).json()["ids"][0]
    new = cli(
        "--json",
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "lives_in",
        "--object",
        "Berlin",
        now="2026-03-01T00:00:00Z",
    ).json()
    assert new["superseded"] == [{"old": old, "new": new["ids"][0]}]

    facts = {fact["id"]: fact for fact in fact_lines(data_dir)}
    assert facts[old]["superseded_by"] == new["ids"][0]
    assert facts[old]["superseded_at"] == "2026-03-01T00:00:00Z"
    assert facts[new["ids"][0]]["supersedes"] == old

    recalled = cli(
        "--json",
        "--action",
        "recall",
        "--query",
        "where does the user live",
        now="2026-03-02T00:00:00Z",
    ).json()["results"]
    assert [hit["object"] for hit in recalled] == ["Berlin"]
    assert recalled[0]["history"][0]["object"] == "Paris"


def test_saying_the_older_value_again_makes_it_current_again(cli, data_dir):
    for when, city in (("2026-01-01", "Paris"), ("2026-02-01", "Berlin"), ("2026-03-01", "Paris")):
        assert (
            cli(
                "--action",
                "remember",
                "--subject",
                "user",
                "--predicate",
                "lives_in",
                "--object",
                city,
                now=f"{when}T00:00:00Z",
            ).code
            == 0
        )
    facts = fact_lines(data_dir)
    assert len(facts) == 2
    current = [fact["object"] for fact in facts if "superseded_by" not in fact]
    assert current == ["Paris"]


def test_opposite_polarity_is_a_contradiction_and_the_newer_wins(cli, data_dir):
    cli(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "likes",
        "--object",
        "jazz",
        now="2026-01-01T00:00:00Z",
    )
    cli(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "hates",
        "--object",
        "Jazz",
        now="2026-02-01T00:00:00Z",
    )
    results = cli(
        "--json", "--action", "recall", "--query", "jazz", now="2026-02-02T00:00:00Z"
    ).json()["results"]
    assert [hit["predicate"] for hit in results] == ["hates"]


def test_entities_and_relations_are_kept_in_step(cli, data_dir):
    cli("--action", "remember", "--subject", "user", "--predicate", "works at", "--object", "Acme")
    cli("--action", "remember", "--subject", "user", "--predicate", "visited", "--object", "Rome")
    graph = data_dir / "knowledge-graph"
    entities = {entry["key"]: entry for entry in map(json.loads, (graph / "entities.jsonl").open())}
    assert set(entities) == {"user", "acme", "rome"}
    assert len(entities["user"]["fact_ids"]) == 2
    relations = [json.loads(line) for line in (graph / "relations.jsonl").open()]
    assert relations == [
        {"predicate": "visited", "count": 1},
        {"predicate": "works_at", "count": 1},
    ]


def test_remember_from_jsonl_ingests_every_line(cli, data_dir, tmp_path):
    source = write_jsonl(
        tmp_path / "in.jsonl",
        [{"subject": "user", "predicate": "owns", "object": f"book {i}"} for i in range(20)],
    )
    result = cli("--json", "--action", "remember", "--from", str(source))
    assert result.code == 0, result.err
    assert result.json()["added"] == 20
    facts = fact_lines(data_dir)
    assert len(facts) == 20
    assert facts[0]["source"] == f"import:{source}"


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ('{"subject": "user", "predicate": "owns", ', "line 2: invalid JSON"),
        ('{"subject": "user", "predicate": "owns"}', "line 2: missing field 'object'"),
        (
            '{"subject": "user", "predicate": "owns", "object": 42}',
            "line 2: field 'object' must be a string, got a number",
        ),
        (
            '{"subject": "user", "predicate": "owns", "object": "car", "importance": "high"}',
            "line 2: field 'importance' must be a number",
        ),
        (
            '{"subject": "user", "predicate": "owns", "object": "car", "colour": "red"}',
            "line 2: unknown field 'colour'",
        ),
        (
            '{"subject": "user", "predicate": "owns", "object": "car\\u001b[31m"}',
            "line 2: field 'object' contains a control character",
        ),
        ('["user", "owns", "car"]', "line 2: the record must be an object"),
    ],
)
def test_remember_from_with_a_bad_line_changes_nothing(cli, data_dir, tmp_path, bad_line, message):
    cli("--action", "remember", *ALEX)
    before = data_files(data_dir)
    source = tmp_path / "in.jsonl"
    source.write_text(
        '{"subject": "user", "predicate": "owns", "object": "bike"}\n' + bad_line + "\n"
    )
    result = cli("--action", "remember", "--from", str(source))
    assert result.code == 3
    detail = message.split(": ", 1)[1]
    assert result.err.startswith(f"Error: {source}:2: {detail}")
    assert result.err.count("\n") == 1  # one line
    after = data_files(data_dir)
    assert after == before


def test_remember_from_with_a_ten_megabyte_object_changes_nothing(cli, data_dir, tmp_path):
    cli("--action", "remember", *ALEX)
    before = (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes()
    source = tmp_path / "huge.jsonl"
    huge = json.dumps({"subject": "user", "predicate": "wrote", "object": "x" * (10 << 20)})
    source.write_text('{"subject": "a", "predicate": "b", "object": "c"}\n' + huge + "\n")
    result = cli("--action", "remember", "--from", str(source))
    assert result.code == 3
    assert f"{source}:2: line is longer than the 1048576 bytes allowed" in result.err
    assert (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes() == before


def test_a_long_field_under_the_line_limit_is_refused_by_the_schema(cli, tmp_path):
    source = write_jsonl(
        tmp_path / "long.jsonl", [{"subject": "user", "predicate": "wrote", "object": "y" * 5000}]
    )
    result = cli("--action", "remember", "--from", str(source))
    assert result.code == 3
    assert "field 'object' is too long: 5000 characters, at most 2000 allowed" in result.err


def test_remember_from_stdin(cli, data_dir, monkeypatch):
    import io
    import sys

    stream = io.TextIOWrapper(
        io.BytesIO(b'{"subject": "user", "predicate": "likes", "object": "tea"}\n')
    )
    monkeypatch.setattr(sys, "stdin", stream)
    result = cli("--json", "--action", "remember", "--from", "-")
    assert result.code == 0, result.err
    assert fact_lines(data_dir)[0]["source"] == "import:-"


def test_remember_flags_are_checked(cli):
    assert cli("--action", "remember", "--subject", "user").code == 2
    result = cli("--action", "remember", *ALEX, "--importance", "1.5")
    assert result.code == 3 and "field 'importance' must be between 0 and 1" in result.err
    assert cli("--action", "remember", *ALEX, "--from", "x.jsonl").code == 2


def test_pin_and_category(cli, data_dir):
    cli(
        "--action",
        "remember",
        "--subject",
        "user",
        "--predicate",
        "allergic to",
        "--object",
        "peanuts",
        "--category",
        "health",
        "--pin",
    )
    [fact] = fact_lines(data_dir)
    assert fact["pinned"] is True and fact["importance"] == 1.0 and fact["category"] == "health"
    far = live(cli, fact["id"], "2036-05-15T14:30:00Z")
    assert far["activation"] == 1.0


def test_forget_moves_the_fact_to_the_archive(cli, data_dir):
    fact_id = cli("--json", "--action", "remember", *ALEX).json()["ids"][0]
    result = cli(
        "--json",
        "--action",
        "forget",
        "--id",
        fact_id,
        "--reason",
        "user asked",
        now="2026-06-01T00:00:00Z",
    )
    assert result.code == 0, result.err
    assert result.json()["forgotten"] == fact_id
    assert fact_lines(data_dir) == []
    archived = [
        json.loads(line) for line in (data_dir / "knowledge-graph" / "archived-facts.jsonl").open()
    ]
    assert [entry["id"] for entry in archived] == [fact_id]
    assert archived[0]["archive_reason"] == "forgotten: user asked"
    assert archived[0]["archived_at"] == "2026-06-01T00:00:00Z"
    assert 0 < archived[0]["final_activation"] < 1
    assert fact_id not in activation_state(data_dir)
    assert (
        cli("--action", "recall", "--query", "Alex", now="2026-06-01T00:00:00Z").out.strip()
        == "No matching facts."
    )


def test_forget_of_an_unknown_id_changes_nothing(cli, data_dir):
    cli("--action", "remember", *ALEX)
    before = (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes()
    result = cli("--action", "forget", "--id", "fact-00000000-0000-0000-0000-000000000000")
    assert result.code == 3
    assert "no active fact with id 'fact-00000000-0000-0000-0000-000000000000'" in result.err
    assert (data_dir / "knowledge-graph" / "facts.jsonl").read_bytes() == before
    assert (data_dir / "knowledge-graph" / "archived-facts.jsonl").read_bytes() == b""


def test_remember_from_takes_source_as_the_default_provenance(cli, data_dir, tmp_path):
    source = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {"subject": "user", "predicate": "owns", "object": "a bike"},
            {
                "subject": "user",
                "predicate": "owns",
                "object": "a car",
                "source": "sessions/x.jsonl:3",
            },
        ],
    )
    assert cli("--action", "remember", "--from", str(source), "--source", "notes").code == 0
    assert [fact["source"] for fact in fact_lines(data_dir)] == ["notes", "sessions/x.jsonl:3"]
    assert cli("--action", "remember", "--from", str(source), "--pin").code == 2


def test_a_reassertion_is_reported_as_the_stored_fact(cli):
    cli("--action", "remember", "--subject", "User", "--predicate", "name", "--object", "Alex")
    result = cli(
        "--action", "remember", "--subject", "user", "--predicate", "NAME", "--object", "ALEX"
    )
    assert result.out.endswith("(reinforced): User name Alex\n")


def _line_facts(now, lines=(3, 9)):
    from vm_memory_oracle.model.fact import new_fact

    fields = {"subject": "user", "predicate": "drinks", "object": "oolong tea"}
    return [
        new_fact(
            {**fields, "source": f"sessions/2026-05-15-090000.jsonl:{line}"},
            created=now,
            default_source="x",
        )
        for line in lines
    ]


def _graph(data_dir):
    from vm_memory_oracle.clock import parse_iso
    from vm_memory_oracle.config import Settings
    from vm_memory_oracle.memory import Memory

    settings = Settings(lock_timeout_seconds=5)
    Memory.open(data_dir, settings).init()
    return Memory.open(data_dir, settings, now=parse_iso("2026-05-15T23:00:00Z")).graph()


@pytest.mark.parametrize("before", [[], [3]])
def test_reading_the_same_log_lines_again_counts_each_statement_once(data_dir, before, monkeypatch):
    """A fact said on lines 3 and 9 is one statement and one repetition, however many times
    those lines are ingested, even when a crash cut an ingestion between writing facts.jsonl
    and the activation state (`before`: lines ingested in full before the crash)."""
    from datetime import datetime, timezone

    from vm_memory_oracle.storage.store import Store

    now = datetime(2026, 5, 15, 23, tzinfo=timezone.utc)
    stamp = "2026-05-15T23:00:00Z"
    clean_dir = data_dir.parent / "clean"
    _graph(clean_dir).remember(_line_facts(stamp, before), now)
    _graph(clean_dir).remember(_line_facts(stamp), now)
    expected = (fact_lines(clean_dir), activation_state(clean_dir))
    assert expected[0][0]["importance"] == 0.2 and expected[0][0]["sources"] == [
        "sessions/2026-05-15-090000.jsonl:9"
    ]
    assert expected[1][expected[0][0]["id"]].access_count == 1

    _graph(data_dir).remember(_line_facts(stamp, before), now)

    def killed(self, *args, **kwargs):
        raise KeyboardInterrupt("killed between facts.jsonl and the activation state")

    with monkeypatch.context() as patch:
        patch.setattr(Store, "write_activation", killed)
        with pytest.raises(KeyboardInterrupt):
            _graph(data_dir).remember(_line_facts(stamp), now)
    assert fact_lines(data_dir) == expected[0]  # the facts were written, the state was not
    for _ in range(2):
        report = _graph(data_dir).remember(_line_facts(stamp), now)
        assert not report.added
    assert report.known == [expected[0][0]["id"]] * 2
    assert (fact_lines(data_dir), activation_state(data_dir)) == expected


def test_the_entities_are_written_only_when_they_change_and_only_new_lines_are_checked(
    cli, data_dir, monkeypatch
):
    """entities.jsonl is compared with what the facts make a line at a time, its records
    never parsed: left as it is when it holds those lines, else written with only the lines
    it did not hold checked against the schema; a record that would not pass is refused."""
    from vm_memory_oracle.errors import InvalidInputError
    from vm_memory_oracle.storage import jsonl, strict_json
    from vm_memory_oracle.storage.layout import Layout

    for said in ("Acme", "Rome", "Oslo"):
        cli("--action", "remember", "--subject", "user", "--predicate", "visited", "--object", said)
    layout = Layout(data_dir)
    path = layout.entities
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(text) for text in lines]
    checked = []
    problem = jsonl.problem
    monkeypatch.setattr(
        jsonl, "problem", lambda kind, record: checked.append(record) or problem(kind, record)
    )
    monkeypatch.setattr(strict_json, "loads", lambda *a, **k: pytest.fail("a record was parsed"))

    assert jsonl.lines_in_step(layout, path, "entity", lambda: records) is None
    assert checked == []
    lisbon = {"name": "Lisbon", "key": "lisbon", "fact_ids": records[0]["fact_ids"][:1]}
    changed = [*records, lisbon]
    assert list(jsonl.lines_in_step(layout, path, "entity", lambda: changed) or ()) == [
        *lines,
        json.dumps(lisbon, ensure_ascii=False, separators=(",", ":")),
    ]
    assert checked == [lisbon]  # the lines the file holds are not checked again
    with pytest.raises(InvalidInputError, match="entities.jsonl"):
        list(
            jsonl.lines_in_step(layout, path, "entity", lambda: [*records, {"name": "Lisbon"}])
            or ()
        )
    assert path.read_text(encoding="utf-8").splitlines() == lines
