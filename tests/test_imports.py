"""Another assistant's history brought in (`--action import`): a ChatGPT export, Claude
Code's and Codex's session transcripts, each following its public format
(tests/fixtures/histories/), are learned once (a second import learns nothing), recall
finds what they said, the person's words are the owner's and the assistant's the agent's
(untrusted after a tool's output); a dry run counts exactly and writes nothing; a file of
another format is refused naming it, with nothing written; a damaged line is skipped with a
warning naming its file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import NOW, data_files, hash_embedder, recall_results, run_entrypoint

FIXTURES = Path(__file__).parent / "fixtures" / "histories"
CLAUDE_FILE = "projects/-home-ana-code-tidepool/4f35e220-c435-4cf7-b9b9-f40426042847.jsonl"
CODEX_FILE = (
    "sessions/2025/05/20/rollout-2025-05-20T10-00-00-0196f2a1-7c3e-7d20-9a1b-1234567890ab.jsonl"
)

# What each fixture holds that the memory has not learned: conversations, turns, days.
COUNTS = {
    "chatgpt": (2, 6, ["2025-03-14", "2025-03-16"]),
    "claude-code": (1, 5, ["2025-04-02"]),
    "codex": (2, 5, ["2025-05-20", "2025-08-08"]),
}
# A statement of the person's in each, what recall is asked, and the fact it finds.
SAID = {
    "chatgpt": ("where does Maya live", "user's sister Maya lives in Porto"),
    "claude-code": ("favourite editor", "Helix"),
    "codex": ("what is the cat called", "Miso"),
}


@pytest.fixture
def histories(tmp_path) -> Path:
    """The fixtures, copied under a path with a space."""
    target = tmp_path / "my histories"
    shutil.copytree(FIXTURES, target)
    return target


def imported(cli, histories: Path, form: str, *extra: str) -> dict:
    result = cli(
        "--json", "--action", "import", "--from", str(histories / form), "--format", form, *extra
    )
    assert result.code == 0, result.err
    return result.json()


def session_lines(data_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((data_dir / "sessions").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


@pytest.mark.parametrize("form", sorted(COUNTS))
def test_a_history_is_learned_once_and_recall_finds_what_the_person_said(
    cli, data_dir, histories, form
):
    hash_embedder(cli)
    conversations, turns, days = COUNTS[form]
    first = imported(cli, histories, form)
    assert (first["conversations"], first["turns"], first["days"]) == (
        conversations,
        turns,
        len(days),
    )
    assert (first["first_day"], first["last_day"]) == (days[0], days[-1])
    assert first["copied"] == turns and first["added"] > 0 and first["commits"] == 1
    for day in days:  # each turn dated by its own time: its day's summary and episodes
        assert (data_dir / "daily" / f"{day}.md").is_file()
        assert (data_dir / "episodes" / f"{day}.jsonl").is_file()
    before = data_files(data_dir)
    again = imported(cli, histories, form)
    assert (again["conversations"], again["turns"], again["added"], again["commits"]) == (
        0,
        0,
        0,
        0,
    )
    assert data_files(data_dir) == before  # nothing learned, nothing written
    query, expected = SAID[form]
    found = recall_results(cli, query)
    assert any(expected in (result.get("text") or "") for result in found[:3]), found[:3]


def test_the_person_is_the_owner_the_assistant_the_agent_and_untrusted_after_a_tool(
    cli, data_dir, histories
):
    hash_embedder(cli)
    for form in COUNTS:
        imported(cli, histories, form)
    said = {line["text"]: line for line in session_lines(data_dir)}
    origin = {text: line["provenance"]["origin"] for text, line in said.items()}
    assert origin["My sister Maya lives in Porto and teaches chemistry."] == "owner"
    assert origin["That sounds like a wonderful job by the ocean."] == "agent"
    assert origin["Porto has light rain today, about 18 degrees."] == "untrusted"  # after a tool
    assert origin["My favourite editor is Helix and I write the tide parser in Rust."] == "owner"
    assert origin["Helix is a fine choice for Rust work."] == "agent"
    assert origin["The README says the tidepool service runs on port 8088."] == "untrusted"
    assert origin["I prefer tabs over spaces and my cat is called Miso."] == "owner"
    assert origin["The kelp release in VERSION is 3.2.1."] == "untrusted"
    assert origin["My brother Tomas lives in Vigo."] == "owner"  # an older Codex rollout
    # What is not the conversation's as last seen, nor anyone's words, is not copied.
    for absent in (
        "I live in Madrid.",  # a branch the person edited away
        "Porto weather: 18C, light rain.",  # a tool's output
        "The tidepool service runs on port 8088.",  # a tool's result
        "Search the repository for the tide constants.",  # a sub-agent's
        "Let me look at the parser.",  # thinking
        "print('hi')",  # code, not text
    ):
        assert absent not in said
    assert not any(
        text.startswith(
            ("<environment_context>", "<user_instructions>", "<command-name>", "Caveat:")
        )
        for text in said
    )
    # Each line names where it was said; each fact learned from it, who said it.
    assert said["My brother Tomas lives in Vigo."]["origin"] == (
        "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e#1"
    )
    facts = [
        json.loads(line)
        for line in (data_dir / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    ]
    helix = [fact for fact in facts if "Helix" in fact.get("text", "")]
    assert helix and all(fact["provenance"]["origin"] == "owner" for fact in helix)
    assert all(fact["created"] == NOW for fact in facts)  # made now, said when said
    assert {fact["valid_from"][:10] for fact in helix} == {"2025-04-02"}


@pytest.mark.parametrize("form", sorted(COUNTS))
def test_a_dry_run_counts_exactly_and_writes_nothing(cli, data_dir, histories, form):
    hash_embedder(cli)
    before = data_files(data_dir)
    conversations, turns, days = COUNTS[form]
    report = imported(cli, histories, form, "--dry-run")
    assert report["dry_run"] is True
    assert (report["conversations"], report["turns"], report["days"]) == (
        conversations,
        turns,
        len(days),
    )
    assert report["copied"] == report["commits"] == 0
    assert data_files(data_dir) == before
    text = cli("--action", "import", "--from", str(histories / form), "--format", form, "--dry-run")
    assert text.out == (
        f"[DRY RUN] {histories / form}: would learn {conversations} conversation(s), {turns} "
        f"turn(s) of {len(days)} day(s) ({days[0]} to {days[-1]}); nothing was written\n"
    )


def test_a_dry_run_of_a_memory_not_made_yet_makes_nothing(cli, data_dir, histories):
    report = imported(cli, histories, "codex", "--dry-run")
    assert report["turns"] == 5
    assert not data_dir.exists()


def test_a_later_export_learns_only_what_was_said_since(cli, data_dir, histories):
    hash_embedder(cli)
    imported(cli, histories, "chatgpt")
    export = histories / "chatgpt" / "conversations.json"
    conversations = json.loads(export.read_text(encoding="utf-8"))
    mapping = conversations[1]["mapping"]
    mapping["c"]["children"] = ["u2"]
    mapping["u2"] = {
        "id": "u2",
        "parent": "c",
        "children": [],
        "message": {
            "id": "u2",
            "author": {"role": "user"},
            "create_time": 1742209200.0,
            "content": {"content_type": "text", "parts": ["I also cannot eat shellfish."]},
            "metadata": {},
        },
    }
    conversations[1]["current_node"] = "u2"
    export.write_text(json.dumps(conversations), encoding="utf-8")
    assert (
        cli(
            "--json",
            "--action",
            "import",
            "--from",
            str(export),
            "--format",
            "chatgpt",
            "--dry-run",
        ).json()["turns"]
        == 1
    )
    report = imported(cli, histories, "chatgpt")
    assert (report["conversations"], report["turns"], report["first_day"]) == (1, 1, "2025-03-17")
    lines = session_lines(data_dir)
    assert [line["origin"] for line in lines if "shellfish" in line["text"]] == [
        "chatgpt:67d63c30-2222-8000-9000-bbbbbbbbbbbb#3"
    ]
    assert len(lines) == 7  # the six learned before, once


@pytest.mark.parametrize(
    ("form", "given", "found"),
    [
        (
            "chatgpt",
            "codex/" + CODEX_FILE,
            "it starts with a JSON object, not an array of conversations",
        ),
        ("chatgpt", "not-an-export.json", "its item 1 is not a conversation with a mapping"),
        ("chatgpt", "binary.bin", "it is not UTF-8 text"),
        ("codex", "claude-code/" + CLAUDE_FILE, "its lines are Claude Code's"),
        ("codex", "chatgpt/conversations.json", "no line of it is a JSON object"),
        ("claude-code", "codex/" + CODEX_FILE, "its lines are Codex's"),
        ("claude-code", "binary.bin", "no line of it is a JSON object"),
        ("claude-code", "codex", "none of its 2 *.jsonl files is a Claude Code session transcript"),
        ("codex", "claude-code", "it holds no rollout-*.jsonl file"),
    ],
)
def test_a_history_of_another_format_is_refused_naming_it_and_nothing_is_written(
    data_dir, histories, form, given, found
):
    (histories / "not-an-export.json").write_text('[{"name": "a list, but of no conversations"}]')
    (histories / "binary.bin").write_bytes(bytes(range(256)) * 64)
    env = {"MEMORY_ORACLE_NOW": NOW}
    assert run_entrypoint("--data-path", str(data_dir), "--action", "init", env=env).returncode == 0
    before = data_files(data_dir)
    path = histories / given
    result = run_entrypoint(
        "--data-path",
        str(data_dir),
        "--action",
        "import",
        "--from",
        str(path),
        "--format",
        form,
        env=env,
    )
    assert result.returncode == 10, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: "), lines
    assert found in lines[0]
    assert result.stdout == ""
    assert data_files(data_dir) == before


def test_a_truncated_chatgpt_export_is_refused_before_anything_is_learned(cli, data_dir, histories):
    hash_embedder(cli)
    export = histories / "chatgpt" / "conversations.json"
    whole = export.read_text(encoding="utf-8")
    export.write_text(whole[: len(whole) - 200], encoding="utf-8")  # inside the second one
    before = data_files(data_dir)
    result = cli("--action", "import", "--from", str(export), "--format", "chatgpt")
    assert result.code == 10
    assert result.err == (
        f"Error: {export}: not a ChatGPT export's conversations.json (a JSON array of "
        "conversations, each with a mapping): it ends inside a conversation\n"
    )
    assert data_files(data_dir) == before


def test_a_damaged_line_is_skipped_naming_its_file_and_line_and_the_other_files_are_read(
    cli, data_dir, histories
):
    hash_embedder(cli)
    projects = histories / "claude-code" / "projects"
    other = projects / "-home-ana-notes" / "0c1d2e3f-0000-4000-8000-000000000001.jsonl"
    other.parent.mkdir()
    other.write_text(
        "\x00\x01 not json\n"
        + json.dumps(
            {
                "type": "user",
                "sessionId": other.stem,
                "timestamp": "2025-06-01T08:00:00Z",
                "message": {"role": "user", "content": "My bicycle is a green Brompton."},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    (projects / "-home-ana-notes" / "stray.jsonl").write_text('{"no": "type"}\n')
    result = cli("--json", "--action", "import", "--from", str(projects), "--format", "claude-code")
    assert result.code == 0, result.err
    assert (result.json()["conversations"], result.json()["turns"], result.json()["files"]) == (
        2,
        6,
        2,
    )
    warnings = result.err.splitlines()
    assert (
        f"Warning: {projects / CLAUDE_FILE.removeprefix('projects/')}:11: not a JSON object"
        in "\n".join(warnings)
    )
    assert any(line.startswith(f"Warning: {other}:1: not a JSON object") for line in warnings)
    assert any(
        line.startswith(
            f"Warning: {projects / '-home-ana-notes' / 'stray.jsonl'}: not a Claude Code"
        )
        and line.endswith("; skipped")
        for line in warnings
    )
    assert any("green Brompton" in line["text"] for line in session_lines(data_dir))


def test_a_large_export_is_parsed_a_chunk_at_a_time(tmp_path, monkeypatch):
    from vm_memory_oracle.imports import chatgpt
    from vm_memory_oracle.imports.said import Reading

    export = json.loads((FIXTURES / "chatgpt" / "conversations.json").read_text(encoding="utf-8"))
    many = []
    for number in range(40):
        for conversation in export:
            copy = json.loads(json.dumps(conversation))
            copy["id"] = copy["conversation_id"] = f"{conversation['id']}-{number}"
            copy["title"] = "é ✓ " * number  # characters of several bytes across the chunks
            many.append(copy)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(many, ensure_ascii=False, indent=1), encoding="utf-8")
    whole = list(chatgpt.conversations(path, Reading()))
    monkeypatch.setattr(chatgpt, "CHUNK", 97)
    reading = Reading()
    chunked = list(chatgpt.conversations(path, reading))
    assert chunked == whole and len(chunked) == 80
    assert reading.done == path.stat().st_size
    assert [len(found.turns) for found in chunked[:2]] == [4, 2]


def test_an_import_commits_a_batch_at_a_time_and_a_stopped_one_goes_on_where_it_stopped(
    cli, data_dir, histories, monkeypatch
):
    from vm_memory_oracle.imports import history

    hash_embedder(cli)
    monkeypatch.setattr(history, "BATCH_TURNS", 3)  # the first conversation, then the second
    learn_batch, calls = history._learn_batch, []

    def stopped_at_the_second(*args, **kwargs):
        calls.append(args[3][0].key)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return learn_batch(*args, **kwargs)

    monkeypatch.setattr(history, "_learn_batch", stopped_at_the_second)
    assert (
        cli("--action", "import", "--from", str(histories / "chatgpt"), "--format", "chatgpt").code
        == 130
    )
    monkeypatch.setattr(history, "_learn_batch", learn_batch)
    left = imported(cli, histories, "chatgpt", "--dry-run")
    assert (left["conversations"], left["turns"], left["days"]) == (1, 2, 1)
    report = imported(cli, histories, "chatgpt")
    assert (report["conversations"], report["turns"], report["commits"]) == (1, 2, 1)
    audit = [
        json.loads(line)
        for line in (data_dir / "state" / "audit.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert [
        entry["change"].split(";")[0] for entry in audit if entry["step"] == "import chatgpt"
    ] == [
        "imported 4 turn(s) of 1 chatgpt conversation(s) into sessions/",
        "imported 2 turn(s) of 1 chatgpt conversation(s) into sessions/",
    ]
    assert len(session_lines(data_dir)) == 6


def test_a_forgotten_turn_is_not_brought_back_by_an_import(cli, data_dir, histories):
    hash_embedder(cli)
    imported(cli, histories, "claude-code")
    forgot = cli("--action", "forget", "--query", "Helix Rust parser", "--yes")
    assert forgot.code == 0, forgot.err
    (data_dir / "state" / "imports.json").unlink()  # as if the ledger were lost
    again = imported(cli, histories, "claude-code")
    assert again["turns"] == 5 and again["copied"] < 5
    texts = [line["text"] for line in session_lines(data_dir)]
    assert texts.count("My daughter Ines starts school in September.") == 2  # copied again
    assert not any("tide parser in Rust" in text for text in texts)
    assert not any(
        "Helix" in (result.get("text") or "")
        for result in recall_results(cli, "favourite editor Helix")
    )


def codex_import(memory: str, histories: Path, *more: str) -> list[str]:
    """The command line of an import of the Codex fixtures into `memory`."""
    return [
        *("--data-path", memory, "--now", NOW, "--action", "import"),
        *("--from", str(histories / "codex"), "--format", "codex", *more),
    ]


@pytest.mark.parametrize("terminal", [True, False])
def test_a_progress_bar_is_drawn_on_a_terminal_only(tmp_path, histories, terminal):
    from test_progress import run

    code, out, err = run(
        codex_import(str(tmp_path / "memory"), histories, "--dry-run"), terminal=terminal
    )
    assert code == 0 and out.startswith("[DRY RUN] ")
    assert ("read codex" in err and "\r" in err) is terminal
    assert (err == "") is not terminal


def test_an_import_s_bar_follows_the_episodes_embedded_and_indexed(tmp_path, histories):
    """After the turns are learned, the indexes are built over every episode made: the bar
    follows that too, in MB of the episodes files, so a long build is not silent."""
    from test_progress import run

    memory = str(tmp_path / "memory")
    for args in (["--action", "init"], ["--action", "config", "--set", "embedding_model=hash"]):
        assert run(["--data-path", memory, *args], terminal=False)[0] == 0
    code, _, err = run(codex_import(memory, histories), terminal=True)
    assert code == 0, err
    assert "learn codex" in err
    assert "embedding episodes, MB" in err and "indexing episodes, MB" in err
