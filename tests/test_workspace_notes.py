"""An OpenClaw workspace's notes (memory/*.md, USER.md) through the long-lived process: a
`learn` of the workspace copies the new lines of its changed notes into sessions/ and learns
them as summarize does, so that the next search finds them, cited as the note's own path and
line, and `get` opens that line of the note as it is now. Each line is learned once, whether
live, saved again, or by the nightly summarize; a note that cannot be read is a warning, not
a fault. Real files, the real entrypoint, the hashing embedder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_serve import Served, services
from vm_memory_oracle.openclaw.notes import MAX_NOTE_BYTES

from conftest import data_files


@pytest.fixture
def workspace(tmp_path) -> Path:
    path = tmp_path / "workspace"
    (path / "memory").mkdir(parents=True)
    return path


@pytest.fixture
def memory(cli, data_dir):
    assert cli("--action", "init").code == 0
    assert cli("--action", "config", "--set", "embedding_model=hash").code == 0
    return data_dir


@pytest.fixture
def served(memory):
    with services(memory) as start:
        yield start


def learn_notes(service: Served, workspace: Path) -> dict:
    answer = service.ask("learn", notes=str(workspace))
    assert answer["ok"], answer
    return answer["result"]


def search(service: Served, query: str) -> list[dict]:
    answer = service.ask("search", query=query, maxResults=4)
    assert answer["ok"], answer
    return answer["result"]["results"]


def get(service: Served, workspace: Path, path: str, first: int, lines: int = 1) -> dict:
    return service.ask("get", path=path, workspace=str(workspace), **{"from": first}, lines=lines)


def copied_lines(data_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in sorted((data_dir / "sessions").glob("*.jsonl"))
        for line in path.read_text().splitlines()
    ]


def facts_of(data_dir: Path) -> list[dict]:
    path = data_dir / "knowledge-graph" / "facts.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_note_line_is_found_cited_as_the_note_and_get_opens_it(served, workspace):
    (workspace / "memory" / "2026-05-14.md").write_text(
        "# 2026-05-14\n\n- Deployed the billing service.\n- The staging server is called heron-7.\n"
    )
    (workspace / "USER.md").write_text(
        "# User\n\n- Prefers green tea over coffee <!-- observed 2026-05-01 -->\n"
    )
    service = served()
    learned = learn_notes(service, workspace)
    assert learned["importedLines"] == 3 and learned["episodes"] == 3, learned
    assert learned["days"] == ["2026-05-14", "2026-05-15"]  # USER.md: the day it was seen

    heron = [hit for hit in search(service, "staging server heron-7") if "heron" in hit["snippet"]]
    assert heron and {hit["citation"] for hit in heron} == {"memory/2026-05-14.md#L4"}
    assert all(
        (hit["path"], hit["startLine"], hit["endLine"], hit["source"])
        == ("memory/2026-05-14.md", 4, 4, "memory")
        for hit in heron
    )
    opened = get(service, workspace, "memory/2026-05-14.md", 4)
    assert opened["ok"] and opened["result"]["text"] == "- The staging server is called heron-7."

    tea = [hit for hit in search(service, "green tea or coffee") if "tea" in hit["snippet"]]
    assert tea and {hit["citation"] for hit in tea} == {"USER.md#L3"}
    user = get(service, workspace, "USER.md", 3)
    assert user["ok"] and "Prefers green tea over coffee" in user["result"]["text"]
    assert user["result"]["origin"] == "workspace"


def test_an_edited_note_learns_only_its_new_lines_and_a_save_reinforces_nothing(
    served, workspace, memory
):
    note = workspace / "memory" / "projects.md"
    note.write_text("- I live in Porto.\n- My sister is called Ana.\n")
    service = served()
    first = learn_notes(service, workspace)
    assert first["importedLines"] == 2 and first["added"] >= 1, first
    facts = facts_of(memory)

    note.write_text(note.read_text())  # saved again, unchanged
    assert learn_notes(service, workspace)["importedLines"] == 0
    assert facts_of(memory) == facts

    note.write_text(
        "# Projects\n- I live in Porto.\n- My sister is called Maria.\n- I own a cat.\n"
    )
    edited = learn_notes(service, workspace)
    assert edited["importedLines"] == 2 and edited["reinforced"] == 0, edited
    copied = copied_lines(memory)
    assert [line["text"] for line in copied] == [
        "I live in Porto.",
        "My sister is called Ana.",
        "My sister is called Maria.",
        "I own a cat.",
    ]
    assert [line["origin"] for line in copied[2:]] == [
        "note:memory/projects.md#L3",
        "note:memory/projects.md#L4",
    ]
    porto = [fact for fact in facts_of(memory) if "Porto" in fact["object"]]
    assert porto == [fact for fact in facts if "Porto" in fact["object"]]  # not reinforced
    assert learn_notes(service, workspace)["importedLines"] == 0


def test_a_secret_in_a_note_is_redacted_before_anything_is_written(served, workspace, memory):
    secret = "sk-abcdefghijklmnopqrstuvwx1234"
    (workspace / "memory" / "2026-05-15.md").write_text(f"- The api key is {secret}.\n")
    service = served()
    assert learn_notes(service, workspace)["importedLines"] == 1
    assert "[REDACTED:openai-key]" in copied_lines(memory)[0]["text"]
    assert not [name for name, data in data_files(memory).items() if secret.encode() in data]
    opened = get(service, workspace, "memory/2026-05-15.md", 1)
    assert opened["ok"] and secret not in opened["result"]["text"]


def test_notes_that_cannot_be_read_are_skipped_with_a_warning_naming_each(
    served, workspace, memory, tmp_path
):
    notes = workspace / "memory"
    (notes / "good.md").write_text("- The boat is moored in Lagos.\n")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- A file that is not the workspace's.\n")
    (notes / "linked.md").symlink_to(outside)
    (notes / "latin1.md").write_bytes("- Caf\xe9 au lait.\n".encode("latin-1"))
    (notes / "huge.md").write_text("- word\n" * (MAX_NOTE_BYTES // 7 + 1))
    (notes / "folder.md").mkdir()
    unreadable = notes / "locked.md"
    unreadable.write_text("- Locked away.\n")
    unreadable.chmod(0)
    service = served()
    learned = learn_notes(service, workspace)
    warnings = learned["warnings"]
    for name, why in (
        ("linked.md", "a symbolic link"),
        ("latin1.md", "not UTF-8"),
        ("huge.md", "more than a note may hold"),
        ("folder.md", "not a regular file"),
    ):
        [warning] = [w for w in warnings if f"memory/{name}:" in w]
        assert why in warning and "skipped" in warning and "\n" not in warning
    texts = [line["text"] for line in copied_lines(memory)]
    if os.geteuid() != 0:  # root reads a file whatever its mode
        assert any("memory/locked.md: cannot be read" in w for w in warnings)
        assert "Locked away." not in texts
    assert "The boat is moored in Lagos." in texts
    assert not any("not the workspace's" in text or "Caf" in text for text in texts)
    refused = get(service, workspace, "memory/linked.md", 1)
    assert not refused["ok"] and "symbolic link" in refused["error"]["message"]


def test_the_nightly_summarize_after_the_live_import_adds_nothing_twice(
    served, workspace, memory, cli
):
    (workspace / "memory" / "2026-05-15.md").write_text("- I live in Porto.\n- I drive a van.\n")
    learn_notes(served(), workspace)
    before = data_files(memory, exclude=("audit.jsonl",))
    nightly = cli("--json", "--action", "summarize", "--all").json()
    assert nightly["added"] == 0 and nightly["reinforced"] == 0 and nightly["episodes"] == 0
    after = data_files(memory, exclude=("audit.jsonl",))
    assert {name: after[name] for name in before if not name.startswith("state/")} == {
        name: data for name, data in before.items() if not name.startswith("state/")
    }


def test_get_refuses_what_is_not_a_note_of_the_workspace_and_changes_nothing(
    served, workspace, memory
):
    (workspace / "USER.md").write_text("- Prefers tea.\n")
    (workspace / "memory" / "sub").mkdir()
    (workspace / "memory" / "sub" / "deep.md").write_text("- Deep.\n")
    (workspace / "secret.txt").write_text("nope\n")
    service = served()
    before = data_files(memory)
    for path, fields, wanted in (
        ("../secret.txt", {"workspace": str(workspace)}, "must be a path inside the memory"),
        ("memory/../secret.txt", {"workspace": str(workspace)}, "must be a path inside"),
        ("/etc/passwd", {"workspace": str(workspace)}, "must be a path inside the memory"),
        ("memory/sub/deep.md", {"workspace": str(workspace)}, "memory/<name>.md"),
        ("secret.txt", {"workspace": str(workspace)}, "get reads MEMORY.md"),
        ("USER.md", {}, "needs the request's workspace"),
        ("USER.md", {"workspace": "relative/dir"}, "must be an absolute path"),
        ("USER.md", {"workspace": str(workspace / "gone")}, "no such workspace directory"),
        ("memory/missing.md", {"workspace": str(workspace)}, "no such file in the workspace"),
    ):
        answer = service.ask("get", path=path, **fields)
        assert not answer["ok"] and wanted in answer["error"]["message"], (path, answer)
        assert "\n" not in answer["error"]["message"]
    for fields, wanted in (
        ({"notes": ""}, "notes must name an OpenClaw workspace directory"),
        ({"notes": str(workspace / "gone")}, "no such workspace directory"),
    ):
        answer = service.ask("learn", **fields)
        assert not answer["ok"] and wanted in answer["error"]["message"], answer
    assert data_files(memory) == before


def test_a_note_the_older_import_copied_is_taken_over_and_nothing_is_learned_twice(
    served, workspace, memory, cli
):
    note = workspace / "memory" / "2026-05-15.md"
    note.write_text("- I live in Porto.\n- I drive a van.\n")
    assert (
        cli("--action", "config", "--set", f"openclaw_memory_dir={workspace / 'memory'}").code == 0
    )
    assert cli("--json", "--action", "summarize", "--all").json()["added"] >= 1
    facts = facts_of(memory)

    service = served()
    assert learn_notes(service, workspace)["importedLines"] == 0
    note.write_text(note.read_text() + "- My sister is called Ana.\n")
    assert learn_notes(service, workspace)["importedLines"] == 1
    nightly = cli("--json", "--action", "summarize", "--all").json()
    assert nightly["imported"] == [] and nightly["reinforced"] == 0, nightly
    texts = [line["text"] for line in copied_lines(memory)]
    assert sorted(texts) == ["I drive a van.", "I live in Porto.", "My sister is called Ana."]
    assert [fact for fact in facts_of(memory) if fact["id"] in {f["id"] for f in facts}] == facts


# OpenClaw 2026.9.6's USER.md as it writes it into a new workspace (`openclaw setup`: its
# template's body, without front matter).
USER_TEMPLATE = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6-USER.md"
OWNERS_LINES = "- Prefer tea over coffee in the afternoon.\n- Always answer in French.\n"


def cited_copy_lines(data_dir: Path, fact: dict) -> list[str]:
    """The texts of the session log lines a fact cites (`sessions/<file>:<line>`)."""
    texts = []
    for source in fact["source"].split(", "):
        log, line = source.rsplit(":", 1)
        lines = (data_dir / log).read_text().splitlines()
        texts.append(json.loads(lines[int(line) - 1])["text"])
    return texts


def test_openclaws_own_user_md_template_is_never_learned_and_the_owners_lines_are(
    served, workspace, memory, cli
):
    template = USER_TEMPLATE.read_text()
    (workspace / "USER.md").write_text(template)
    service = served()
    learn_notes(service, workspace)
    assert cli("--action", "summarize", "--all").code == 0
    assert cli("--action", "consolidate").code == 0
    assert facts_of(memory) == [] and copied_lines(memory) == []
    memory_md = (memory / "MEMORY.md").read_text()
    for words in ("directive", "Prefer", "observation date", "4,000-character"):
        assert words not in memory_md

    (workspace / "USER.md").write_text(template + OWNERS_LINES)
    learn_notes(service, workspace)
    assert cli("--action", "summarize", "--all").code == 0
    assert cli("--action", "consolidate").code == 0
    copied = [line["text"] for line in copied_lines(memory)]
    assert copied == ["Prefer tea over coffee in the afternoon.", "Always answer in French."]
    facts = facts_of(memory)
    assert facts
    for fact in facts:  # each learned from one of the owner's two lines, as theirs
        assert set(cited_copy_lines(memory, fact)) <= set(copied), fact
        assert fact["provenance"]["origin"] == "owner", fact
    learned = " ".join(fact.get("text", fact["object"]) for fact in facts)
    assert "tea" in learned and "French" in learned
    memory_md = (memory / "MEMORY.md").read_text()
    assert "tea" in memory_md or "French" in memory_md
    for words in ("directive", "observation date", "concise progress", "4,000-character"):
        assert words not in memory_md and words not in learned


def test_front_matter_comments_and_placeholders_of_a_template_say_nothing(
    served, workspace, memory
):
    """A template copied whole (front matter and all), the dev gateway's built-in profile
    with its empty labels, a comment over several lines: only the owner's lines are copied."""
    (workspace / "USER.md").write_text(
        '---\nsummary: "Durable user preference and profile directives"\ntitle: "USER template"\n'
        "read_when:\n  - Bootstrapping a workspace manually\n---\n\n"
        + USER_TEMPLATE.read_text()
        + "\n- Name:\n- **Preferred address:**\n- Notes:\n- Always ...\n- …\n"
        "<!-- observed: 2026-11-02 | status: active -->\n"
        "- Prefer tea over coffee. <!-- a note to\nthe agent over two lines -->\n"
        "<!--\nobserved: 2026-11-01\nstatus: superseded\n-->\n"
        "- Always answer in French.\n"
    )
    (workspace / "memory" / "2026-11-03.md").write_text(
        "---\n\nThe plumber comes on Friday.\n\n---\n"
    )  # a rule, then prose: no front matter
    service = served()
    learn_notes(service, workspace)
    copied = sorted(line["text"] for line in copied_lines(memory))
    assert copied == [
        "Always answer in French.",
        "Prefer tea over coffee.",
        "The plumber comes on Friday.",
    ]
    audit = (memory / "state" / "audit.jsonl").read_text()
    assert "line(s) of OpenClaw's templates left out" in audit


def installed_templates() -> Path:
    """docs/reference/templates of the openclaw package the OpenClaw tests install."""
    import openclaw_install
    from openclaw_install import OPENCLAW_VERSION, TEST_CACHE

    package = TEST_CACHE / f"openclaw-{OPENCLAW_VERSION}" / "node_modules" / "openclaw"
    if not openclaw_install.installed() and not openclaw_install.install_expected():
        pytest.skip(
            f"OpenClaw {OPENCLAW_VERSION} is not installed in {TEST_CACHE} (the real-OpenClaw "
            "tests install it: scripts/test tests/test_openclaw_connect.py)"
        )
    openclaw_install.installed_environment()  # this run's install, waited for
    return package / "docs" / "reference" / "templates"


@pytest.mark.slow
def test_the_shipped_template_lines_are_those_of_the_installed_openclaw():
    """The lines the notes learner ships (openclaw/user_templates.json) are those of the
    installed package's USER.md templates, of the version it names; the fixture is the
    body OpenClaw writes into a workspace."""
    from vm_memory_oracle.openclaw.templates import shipped_templates, template_lines

    templates = installed_templates()
    package = json.loads((templates.parents[2] / "package.json").read_text())
    shipped = shipped_templates()
    assert shipped.openclaw == package["version"]
    assert shipped.lines == {
        f"docs/reference/templates/{name}": tuple(template_lines((templates / name).read_text()))
        for name in ("USER.md", "USER.dev.md")
    }
    body = (templates / "USER.md").read_text().split("\n---\n", 1)[1].lstrip()
    assert body == USER_TEMPLATE.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["USER.md", "USER.dev.md"])
@pytest.mark.parametrize("front_matter", [True, False], ids=["whole", "body"])
def test_no_line_of_the_installed_templates_is_copied(tmp_path, workspace, name, front_matter):
    from datetime import datetime, timezone

    from vm_memory_oracle.memory import Memory

    text = (installed_templates() / name).read_text()
    (workspace / "USER.md").write_text(
        text if front_matter else text.split("\n---\n", 1)[1].lstrip()
    )
    memory = Memory.open(tmp_path / "memory", now=datetime(2026, 11, 28, tzinfo=timezone.utc))
    report = memory.learn_notes(workspace)
    assert report.imported_turns == 0 and copied_lines(tmp_path / "memory") == []
