"""The skill as OpenClaw meets it: scripts/install-openclaw installs the bundle with the real
`openclaw` CLI, which finds it eligible with nothing missing, and the installed copy runs on
its own; the real agent (`openclaw agent --local`, its model a server scripted here) talks,
the memory learns from its SQLite transcript, writes the workspace MEMORY.md the next turn's
prompt holds, and answers the agent's exec of recall; the plugin, set up by
`scripts/install-openclaw --plugin`, answers the agent's memory tools and learns as turns end,
through one gateway on 127.0.0.1 that runs the agent as a user's runs it; and the bundle
passes the Agent Skills validator (`agentskills validate`, PyPI skills-ref). The agent tests
are marked `openclaw_agent`: `scripts/test -m "not openclaw_agent"` skips them; CI runs them.

OpenClaw needs Node >= 24, which the npm package node@24 provides without root. Both are
installed once into a cache outside the repository ($VM_MEMORY_ORACLE_TEST_CACHE, else
~/.cache/vm-memory-oracle-tests) and reused by later runs. When the npm registry cannot be
reached, the OpenClaw test is skipped and says so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import BUNDLE
from openclaw_gateway import (
    copied,
    free_port,
    memory_processes,
    start_gateway,
    stop_gateway,
    wait_for,
)
from openclaw_install import installed_environment
from scripted_model import (
    ScriptedModel,
    last_meaningful_role,
    last_user_text,
    meaningful,
    message_text,
)


@pytest.fixture(scope="module")
def openclaw_env():
    """PATH with Node 24 and the openclaw CLI first."""
    return installed_environment()


def staged_bundle(target: Path) -> Path:
    """The bundle as a user gets it (its tracked files and new ones not ignored: no .venv,
    no .git), in a directory named after the skill, as the spec requires."""
    stage = target / "vm-memory-oracle"
    listed = subprocess.run(
        ["git", "-C", str(BUNDLE), "ls-files", "-co", "--exclude-standard", "-z"],
        capture_output=True,
        check=False,
    )
    if listed.returncode == 0:
        for name in filter(None, listed.stdout.decode().split("\0")):
            source = BUNDLE / name
            if source.is_file():
                (stage / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, stage / name)
    else:  # not a git checkout
        shutil.copytree(
            BUNDLE,
            stage,
            ignore=shutil.ignore_patterns(
                ".venv",
                ".venv.lock",
                ".git",
                "__pycache__",
                "*.egg-info",
                ".pytest_cache",
                ".benchmarks",
                ".hypothesis",
                "memory-demo",
            ),
        )
    return stage


GATEWAY_TOKEN = "openclaw-test-token"


@dataclass
class OpenClawHome:
    """A temporary HOME with OpenClaw's state, its config, the scripted model and the skill
    installed by scripts/install-openclaw into the agent's workspace."""

    env: dict
    root: Path
    state: Path
    workspace: Path
    base: Path  # the installed skill
    model: ScriptedModel
    script: dict  # what the model does on the next user turn
    gateway_port: int  # of the gateway plugin_gateway starts


RECALLED = re.compile(r"<relevant-memories>.*?</relevant-memories>", re.DOTALL)


def _decide(script: dict):
    """The model's move for the user message holding a scripted question: a tool call
    ((tool, arguments), or an exec command), words of its own (("say", text)), or a tool
    call whose result it then repeats (("repeat", tool, arguments)), as a model does with a
    page or file it read; after any other tool result, "Done."."""

    def decide(body: dict):
        # What the person asked, not what auto-recall put before it: a question learned
        # earlier may be among the memories recalled.
        asked = RECALLED.sub("", last_user_text(body))
        command = next((script[q] for q in script if q in asked), None)
        if last_meaningful_role(body) == "tool":
            if isinstance(command, tuple) and command[0] == "repeat":
                result = message_text(meaningful(body.get("messages") or [])[-1])
                return ("text", f"It says: {result.strip()}")
            return ("text", "Done.")
        if command is None:
            return ("text", "Noted.")
        if isinstance(command, tuple) and command[0] == "say":
            return ("text", command[1])
        if isinstance(command, tuple) and command[0] == "repeat":
            return ("tool", *command[1:])
        if isinstance(command, tuple):  # (tool, arguments)
            return ("tool", *command)
        return ("tool", "exec", {"command": command})

    return decide


@pytest.fixture(scope="module")
def openclaw_home(openclaw_env, tmp_path_factory):
    root = tmp_path_factory.mktemp("openclaw")
    home, state, workspace = root / "home", root / "state", root / "agent-workspace"
    for directory in (home, state, workspace):
        directory.mkdir()
    script: dict = {}
    port = free_port()
    with ScriptedModel(_decide(script)) as model:
        # JSON5, as OpenClaw writes it: comments, unquoted keys, trailing commas. The
        # workspace is not OpenClaw's default: the memory must read it from here.
        (state / "openclaw.json").write_text(f"""// written by the test
{{
  models: {{ mode: "merge", providers: {{ scripted: {{
    baseUrl: "http://127.0.0.1:{model.port}/v1", apiKey: "test-key",
    api: "openai-completions",
    models: [{{ id: "scripted-model", name: "Scripted", reasoning: false, input: ["text"],
               cost: {{input: 0, output: 0, cacheRead: 0, cacheWrite: 0}},
               contextWindow: 128000, maxTokens: 4096 }}],
  }}, }}, }},
  agents: {{ defaults: {{ workspace: "{workspace}",
                         model: {{ primary: "scripted/scripted-model" }},
                         heartbeat: {{ every: "24h", target: "none" }}, }}, }},
  // The plugin's tests talk to the agent through a gateway (plugin_gateway), as a user's
  // agent runs; the others run it in-process (--local).
  gateway: {{ mode: "local", port: {port}, bind: "loopback",
              auth: {{ mode: "token", token: "{GATEWAY_TOKEN}" }} }},
  update: {{ checkOnStart: false }},
}}
""")
        env = {
            **openclaw_env,
            "HOME": str(home),
            "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_NO_AUTO_UPDATE": "1",
            "OPENCLAW_GATEWAY_TOKEN": GATEWAY_TOKEN,
        }
        installed = subprocess.run(
            [str(BUNDLE / "scripts" / "install-openclaw")],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr[-3000:]
        base = Path(
            installed.stdout.strip()
            .splitlines()[-1]
            .removeprefix("Installed vm-memory-oracle into ")
        )
        yield OpenClawHome(env, root, state, workspace, base, model, script, port)


def agent_turn(
    setup: OpenClawHome,
    message: str,
    session: str | None = None,
    agent: str = "main",
    local: bool = True,
) -> tuple[dict, float]:
    """One turn of the real agent `agent` in its main session (or in its session
    `session`), run in this process (--local) or by the running gateway: its --json reply
    and seconds."""
    begun = time.perf_counter()
    where = ["--session-key", f"agent:{agent}:{session}"] if session else ["--agent", agent]
    turn = subprocess.run(
        [
            "openclaw",
            "agent",
            *(["--local"] if local else []),
            *where,
            "--message",
            message,
            "--thinking",
            "off",
            "--timeout",
            "180",
            "--json",
        ],
        env=setup.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=400,
    )
    took = time.perf_counter() - begun
    assert turn.returncode == 0, turn.stdout[-2000:] + turn.stderr[-3000:]
    return json.loads(turn.stdout), took


def test_openclaw_installs_the_skill_finds_it_eligible_and_its_entrypoint_runs(
    openclaw_home, tmp_path
):
    env = openclaw_home.env
    info = subprocess.run(
        ["openclaw", "skills", "info", "vm-memory-oracle", "--json"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert info.returncode == 0, info.stderr
    skill = json.loads(info.stdout)
    assert skill["name"] == "vm-memory-oracle"
    assert skill["eligible"] is True
    assert skill["requirements"]["bins"] == ["python3"]
    assert all(not missing for missing in skill["missing"].values()), skill["missing"]
    base = Path(skill["baseDir"])
    assert base == openclaw_home.base
    assert base.is_relative_to(openclaw_home.workspace) and (base / "SKILL.md").is_file()
    # Only the bundle's own files were copied: no checkout, no caches, no outputs.
    for name in (".git", "benchmarks/output", "memory-demo", ".pytest_cache"):
        assert not (base / name).exists(), name

    # The installed copy, as the agent runs it: its own venv (made by install-openclaw).
    data = tmp_path / "data"
    entrypoint = base / "scripts" / "vm-memory-oracle"
    init = subprocess.run(
        [str(entrypoint), "--data-path", str(data), "--json", "--action", "init"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert init.returncode == 0, init.stderr[-3000:]
    assert "config.yaml" in json.loads(init.stdout)["created"]
    health = subprocess.run(
        [str(entrypoint), "--data-path", str(data), "--json", "--action", "health-check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert health.returncode == 0, health.stderr
    assert json.loads(health.stdout)["status"] == "healthy"
    assert (data / "health.json").is_file()
    imported = subprocess.run(
        [
            str(base / ".venv" / "bin" / "python"),
            "-c",
            "import vm_memory_oracle; print(vm_memory_oracle.__file__)",
        ],
        capture_output=True,
        text=True,
    )
    assert Path(imported.stdout.strip()).is_relative_to(base)  # the installed code, not ours


@pytest.mark.openclaw_agent
def test_the_real_agent_learns_sees_and_recalls_the_memory(openclaw_home, tmp_path):
    """Conversation in OpenClaw -> summarize imports it from the agent's SQLite transcript
    -> consolidate writes the workspace MEMORY.md -> the next turn's system prompt holds it
    and the agent's exec of the skill's recall returns the fact."""
    setup = openclaw_home
    base, data = setup.base, tmp_path / "memory"
    memory = [str(base / "scripts" / "vm-memory-oracle"), "--data-path", str(data)]
    init = subprocess.run(
        [str(base / "scripts" / "init_memory.sh"), str(data), "--openclaw"],
        env=setup.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert init.returncode == 0, init.stderr
    assert f"Connected to OpenClaw at {setup.state}" in init.stdout

    _, first = agent_turn(setup, "I am allergic to peanuts and I live in Porto.")
    summarized = subprocess.run(
        memory + ["--json", "--action", "summarize", "--all"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert summarized.returncode == 0, summarized.stderr
    report = json.loads(summarized.stdout)
    assert report["imported_turns"] >= 2  # the user's turn and the agent's reply
    recalled = subprocess.run(
        memory
        + [
            "--json",
            "--action",
            "recall",
            "--query",
            "What is the user allergic to?",
            "--no-boost",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert recalled.returncode == 0, recalled.stderr
    top = json.loads(recalled.stdout)["results"][0]
    assert top["object"] == "peanuts" and top["source"].startswith("sessions/")
    facts = [
        json.loads(line)
        for line in (data / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    ]
    peanut = next(fact for fact in facts if fact["object"] == "peanuts")
    assert any(origin.startswith("openclaw:main/") for origin in peanut["sources"])

    consolidated = subprocess.run(
        memory + ["--json", "--action", "consolidate"], capture_output=True, text=True, timeout=600
    )
    assert consolidated.returncode == 0, consolidated.stderr
    workspace_memory = setup.workspace / "MEMORY.md"
    info = os.lstat(workspace_memory)
    assert stat.S_ISREG(info.st_mode) and info.st_nlink == 1  # what OpenClaw will load
    text = workspace_memory.read_text()
    peanut_line = next(line for line in text.splitlines() if "peanuts" in line)

    query = "What am I allergic to?"
    setup.script[query] = (
        f"{base}/scripts/vm-memory-oracle --data-path {data} --action recall "
        f"--query 'What is the user allergic to?' --no-boost"
    )
    before = len(setup.model.requests)
    reply, second = agent_turn(setup, query)
    requests = setup.model.requests[before:]
    system = requests[0]["messages"][0]["content"]
    assert "<name>vm-memory-oracle</name>" in system
    assert f"<location>{base}/SKILL.md</location>" in system
    assert f"## {workspace_memory}" in system and peanut_line in system
    tool_results = [
        message_text(message)
        for message in requests[-1]["messages"]
        if message.get("role") == "tool"
    ]
    assert any("allergic to peanuts" in result for result in tool_results), tool_results
    assert reply["meta"]["systemPromptReport"]["injectedWorkspaceFiles"]

    # A turn of more than 1 KB, which OpenClaw stores zstd-compressed, comes through whole.
    long_turn = "Please keep this for the garden plan. My favourite tea is oolong. " + " ".join(
        f"Bed {n} gets tomatoes, basil and marigolds this spring." for n in range(1, 40)
    )
    assert len(long_turn.encode()) > 1024
    _, third = agent_turn(setup, long_turn)
    database = setup.state / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    with sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True) as connection:
        compressed = connection.execute(
            "SELECT COUNT(*) FROM transcript_events WHERE event_zstd IS NOT NULL"
        ).fetchone()[0]
    assert compressed >= 1
    again = subprocess.run(
        memory + ["--json", "--action", "summarize", "--all"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert again.returncode == 0, again.stderr
    copied = [
        json.loads(line)
        for name in json.loads(again.stdout)["imported"]
        for line in (data / name).read_text().splitlines()
    ]
    assert long_turn in [turn["text"] for turn in copied]
    events = sum(
        1
        for _ in sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True).execute(
            "SELECT 1 FROM transcript_events"
        )
    )
    figures = {
        "seconds_per_turn": [round(first, 1), round(second, 1), round(third, 1)],
        "transcript_events": events,
        "turns_imported": report["imported_turns"] + json.loads(again.stdout)["imported_turns"],
        "workspace_memory_md_chars": len(text),
    }
    with_output(figures)


def openclaw(setup: OpenClawHome, *args: str) -> str:
    done = subprocess.run(
        ["openclaw", *args],
        env=setup.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, (
        f"openclaw {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    )
    return done.stdout


def configure(setup: OpenClawHome, *settings: tuple[str, object]) -> None:
    """Set each (path, value) of OpenClaw's configuration, in one `openclaw config set`."""
    changes = [{"path": path, "value": value} for path, value in settings]
    openclaw(setup, "config", "set", "--batch-json", json.dumps(changes))


def this_turn(requests: list[dict], said: str) -> list[dict]:
    """The messages of the last request after the user's message saying `said`: this turn's
    tool calls and results (the session's history holds earlier turns' too, and OpenClaw
    adds context of its own as user messages after them)."""
    messages = requests[-1]["messages"]
    asked = max(
        i
        for i, message in enumerate(messages)
        if message.get("role") == "user" and said in message_text(message)
    )
    return messages[asked + 1 :]


def tool_results(requests: list[dict], said: str) -> list[str]:
    return [message_text(m) for m in this_turn(requests, said) if m.get("role") == "tool"]


@dataclass
class PluginGateway:
    """The plugin set up as a user sets it up (`scripts/install-openclaw --plugin`: the memory
    slot, memory-core off, conversation access allowed, tool search off; auto-recall on) on
    the memory `data`, and OpenClaw's gateway on 127.0.0.1 running the agent, as a user's
    agent runs: its turns start no OpenClaw of their own."""

    setup: OpenClawHome
    data: Path
    log: str  # the session log the memory held before the plugin was installed
    inspected: str  # `openclaw plugins inspect --runtime --json`, before the gateway started
    process: subprocess.Popen | None

    def turn(self, message: str, session: str | None = None, agent: str = "main") -> list[dict]:
        """One turn through the gateway: the requests the model received in it."""
        assert self.process is not None and self.process.poll() is None, "no gateway runs"
        before = len(self.setup.model.requests)
        agent_turn(self.setup, message, session, agent, local=False)
        return self.setup.model.requests[before:]

    def stop(self) -> None:
        """Stop the gateway; what its last turns asked of the memory is done once the
        memory's processes end."""
        if self.process is None:
            return
        gateway, self.process = self.process, None
        stop_gateway(gateway, lambda: settled(self.data))


@pytest.fixture(scope="module")
def plugin_gateway(openclaw_home):
    setup = openclaw_home
    base, data = setup.base, setup.root / "plugin-memory"
    memory = [str(base / "scripts" / "vm-memory-oracle"), "--data-path", str(data)]
    assert subprocess.run(memory + ["--action", "init"], capture_output=True).returncode == 0
    log = "2026-05-14-090000.jsonl"
    turns = [
        ("user", "I'm allergic to peanuts, so please keep that in mind."),
        ("assistant", "Noted: no peanuts in anything I suggest."),
    ]
    (data / "sessions" / log).write_text(
        "".join(
            json.dumps({"ts": f"2026-05-14T09:0{n}:00Z", "role": role, "text": text}) + "\n"
            for n, (role, text) in enumerate(turns)
        )
    )
    summarized = subprocess.run(memory + ["--action", "summarize", "--all"], capture_output=True)
    assert summarized.returncode == 0, summarized.stderr
    # The one step the docs give. An earlier test's --local turns left the main agent's
    # transcript, which the memory's nightly summarize then learns too.
    connected = subprocess.run(
        [str(BUNDLE / "scripts" / "install-openclaw"), "--plugin", "--data-path", str(data)],
        env=setup.env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert connected.returncode == 0, connected.stdout + connected.stderr[-3000:]
    configure(
        setup,
        ("plugins.entries.vm-memory-oracle.config.autoRecall", True),
        # An agent of its own for the live test: the main agent's transcript holds the
        # other tests' turns, asked with markers ("(plugin)", "(auto-recall)") that share
        # words with no person's question.
        ("agents.entries.live", {}),
    )
    inspected = openclaw(setup, "plugins", "inspect", "vm-memory-oracle", "--runtime", "--json")
    gateway = start_gateway(
        setup.env, setup.gateway_port, GATEWAY_TOKEN, log=setup.root / "gateway.log"
    )
    running = PluginGateway(setup, data, log, inspected, gateway)
    try:
        yield running
    finally:
        running.stop()


def settled(data: Path, timeout: float = 300) -> None:
    """Wait until the memory processes on `data` have ended: what the last turn asked of
    them is done."""
    deadline = time.monotonic() + timeout
    while memory_processes(data):
        assert time.monotonic() < deadline, memory_processes(data)
        time.sleep(0.2)


def learned(data: Path, words: str) -> bool:
    """Whether a fact of the memory holds `words`: its turn was learned."""
    facts = data / "knowledge-graph" / "facts.jsonl"
    return facts.exists() and any(words in line for line in facts.read_text().splitlines())


@pytest.mark.openclaw_agent
def test_a_statement_is_found_in_the_next_session_with_no_job_run(plugin_gateway):
    """A statement said in one session is learned as its turn ends, found by the real
    agent's memory_search in the next session and brought by auto-recall to a new
    session's first request, with no summarize run; after the nightly summarize --all and
    consolidate, the memory holds it once and recall of the question puts it first."""
    gateway = plugin_gateway
    setup, data = gateway.setup, gateway.data
    memory = [str(setup.base / "scripts" / "vm-memory-oracle"), "--data-path", str(data)]
    statement = (
        "By the way, I'm severely allergic to sesame, so keep that in mind when you suggest food."
    )
    gateway.turn(statement, session="live-1", agent="live")
    # The turn's learning, in the background, is done: no job was run.
    wait_for(lambda: learned(data, "sesame"), "the statement, learned live")

    question = "What am I allergic to?"  # asked as a person asks it, with no marker
    setup.script[question] = ("memory_search", {"query": question})
    (found,) = tool_results(gateway.turn(question, session="live-2", agent="live"), question)
    top = json.loads(found)["results"][0]
    assert "sesame" in top["snippet"], found[:2000]

    menu = gateway.turn("Which allergies should the menu avoid?", session="live-3", agent="live")
    first_request = json.dumps(menu[0]["messages"])
    assert "<relevant-memories>" in first_request and "sesame" in first_request, (
        first_request[-3000:] + (setup.root / "gateway.log").read_text()[-5000:]
    )

    # The last turn learned too, then the nightly jobs, as cron runs them beside the agent.
    wait_for(lambda: copied(data, "the menu avoid"), "the last turn, learned live")
    for action in (["summarize", "--all"], ["consolidate"]):
        done = subprocess.run(memory + ["--action", *action], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    facts = (data / "knowledge-graph" / "facts.jsonl").read_text().splitlines()
    assert [json.loads(line)["object"] for line in facts if "sesame" in line] == ["sesame"]
    assert (data / "MEMORY.md").read_text().count("sesame") <= 1
    recalled = subprocess.run(
        memory + ["--json", "--action", "recall", "--query", "What am I allergic to?", "--k", "3"],
        capture_output=True,
        text=True,
    )
    assert recalled.returncode == 0, recalled.stderr
    # The nightly run learns the main agent's days too, where the peanut allergy was said:
    # the statements come first, the sesame one among them, above every asking.
    texts = [hit["text"] for hit in json.loads(recalled.stdout)["results"]]
    sesame = next(place for place, text in enumerate(texts) if "sesame" in text)
    assert all("allergic to" in text and "?" not in text for text in texts[: sesame + 1]), texts


@pytest.mark.openclaw_agent
def test_the_plugin_answers_openclaws_memory_tools_from_this_memory(plugin_gateway):
    """openclaw-plugin/ installed by `scripts/install-openclaw --plugin` (which runs `openclaw
    plugins install`): OpenClaw loads it in the memory slot, the real agent's memory_search
    (not exec) finds the peanut allergy with its source, memory_get opens that line, and
    auto-recall puts the fact in the model's request. The plugin finds the skill
    install-openclaw put in the workspace: its config names only the data directory."""
    gateway = plugin_gateway
    setup, text = gateway.setup, gateway.inspected
    assert '"status": "loaded"' in text and '"memorySlotSelected": true' in text, text[:3000]
    assert "memory_search" in text and "memory_get" in text and "agent_end" in text

    question = "Which allergies do I have? (plugin)"  # no question scripted before holds it
    # The memory holds the sesame allergy the live test learned, too.
    setup.script[question] = ("memory_search", {"query": "Am I allergic to peanuts?"})
    begun = time.perf_counter()
    requests = gateway.turn(question)
    searched = time.perf_counter() - begun
    found = tool_results(requests, question)
    assert len(found) == 1, found
    result = json.loads(found[0])
    top = result["results"][0]
    assert "peanuts" in top["snippet"] and result["provider"] == "vm-memory-oracle"
    assert top["path"] == f"sessions/{gateway.log}" and top["startLine"] == 1
    called = [
        call["function"]["name"]
        for message in this_turn(requests, question)
        for call in message.get("tool_calls") or []
    ]
    assert called == ["memory_search"]  # no exec

    opening = "Open the allergy line (plugin)"
    setup.script[opening] = ("memory_get", {"path": top["path"], "from": 1, "lines": 1})
    (opened,) = tool_results(gateway.turn(opening), opening)
    assert json.loads(opened).get("status") == "ok" and "allergic to peanuts" in opened, opened

    asked = json.dumps(gateway.turn("Which snacks should I avoid? (auto-recall)")[0]["messages"])
    assert "<relevant-memories>" in asked and "allergic to peanuts" in asked
    with_output({"plugin_search_turn_seconds": round(searched, 1)})


@pytest.mark.openclaw_agent
def test_with_the_plugin_removed_openclaws_own_memory_answers_again(plugin_gateway):
    """`openclaw plugins uninstall` and memory-core enabled again: the real agent's
    memory_search is OpenClaw's own again, and finds a note of the workspace."""
    gateway = plugin_gateway
    setup = gateway.setup
    gateway.stop()
    openclaw(setup, "plugins", "uninstall", "vm-memory-oracle", "--force")
    openclaw(setup, "plugins", "enable", "memory-core")
    notes = setup.workspace / "memory" / "bees.md"
    notes.parent.mkdir(exist_ok=True)
    notes.write_text("# Notes\n\nThe user keeps three beehives in the garden.\n")
    back = "Do I keep bees? (memory-core)"
    setup.script[back] = ("memory_search", {"query": "beehives"})
    before = len(setup.model.requests)
    agent_turn(setup, back)
    (own,) = tool_results(setup.model.requests[before:], back)
    assert "vm-memory-oracle" not in own
    assert "beehives" in own and "memory/bees.md" in own, own[:2000]


def with_output(figures: dict) -> None:
    sys.path.insert(0, str(BUNDLE / "benchmarks"))
    from results import record

    path = record("openclaw_agent", figures)
    print(f"\nOpenClaw agent end to end: {figures} ({path})")


def test_agentskills_validate_passes_on_the_bundle(tmp_path):
    validator = Path(sys.executable).with_name("agentskills")
    assert validator.exists(), "skills-ref is a test dependency (pyproject.toml [test])"
    stage = staged_bundle(tmp_path)
    result = subprocess.run(
        [str(validator), "validate", str(stage)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Valid skill")
