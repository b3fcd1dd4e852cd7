"""The recall process that stays up: requests as JSON lines on stdin, answers on stdout.

`vm-memory-oracle --data-path DIR --action serve` is the second door to the memory, for a
caller that asks often (the OpenClaw plugin's memory_search and memory_get): it answers
each request as `--action recall` or a read of the memory's files would, without starting
Python, importing numpy and faiss and loading the model each time. What it parsed stays
in memory while the files it came from are unchanged (storage/snapshot.py), so a search
after summarize or remember sees their facts.

A request is one line, `{"id": ..., "op": "search" | "get" | "learn" | "forget" | "ping",
...}`; its answer is one line with the same id, `{"id": ..., "ok": true, "result": {...}}` or
`{"id": ..., "ok": false, "error": {"code": ..., "exit_code": N, "message": ...}}`, the
message the command line would print. A bad request is answered with an error and the
process goes on; it ends when stdin closes.

    search  {"query": TEXT, "maxResults": N (default 6), "minScore": X (default 0),
             "boost": false (what is injected without being asked for is not a use),
             "sessionKey": KEY (the session asked in: a group sees its own memories,
             openclaw/visibility.py), "trustedOnly": true (the owner's and agent's only),
             "injected": true (put into a prompt unasked: no turn that only asks)}
            -> {"results": [{path, startLine, endLine, score, snippet, source, citation,
                id, kind, origin (a turn that recorded it)}], "provider", "model",
                "warnings"}
    get     {"path": "MEMORY.md" | "daily/<day>.md" | "sessions/<log>.jsonl" |
             "knowledge-graph/facts.jsonl", "from": LINE (default 1), "lines": N,
             "sessionKey": KEY (in a group, the lines up to the first it may not hear)}
            -> {"path", "text", "from", "lines", "origin"}
            or {"path": "memory/<name>.md" | "USER.md", "workspace": DIR, ...}: a note of
            the OpenClaw workspace DIR, read as it is now (origin "workspace")
    learn   {"agent": ID, "stateDir": DIR (OpenClaw's state directory; the memory's
             openclaw_state_dir when it has one), "session": ID (named in the answer)}
            -> {"agent", "session", "importedTurns", "turns", "added", "reinforced",
                "episodes", "days", "warnings"}
            or {"notes": DIR (an OpenClaw workspace)}
            -> {"notes", "importedLines", "turns", "added", "reinforced", "episodes",
                "days", "warnings"}
    forget  {"ids": [FACT_ID, ...] | "query" | "session" | "sender" | "since"/"until": TEXT,
             "confirm": false (a preview: nothing changes) | true, "reason": TEXT,
             "sessionKey": KEY, "senderIsOwner": true (asked in a chat: the owner's only)}
            -> what `forget --json` prints (forgetting/asked.py); refused in a group chat,
               or for a sender not the owner
    ping    {} -> {"pid", "dataPath"}

learn is the live path (the plugin sends it when an OpenClaw turn ends, and when a note of
a workspace changes): the agent's new transcript turns, or the workspace's new note lines,
learned in one commit as summarize learns them (learning/live.py), the derived indexes
brought in step, and only then the answer, so that the next search finds them. A hit
learned from a note's line is cited as that note's path and line, as OpenClaw's own memory
cites it. The plugin sends learns to a process of their own, one at a time, so a search is
never queued behind one.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING

from .errors import (
    EXIT_DATA_DIR,
    EXIT_FAILURE,
    EXIT_INVALID_INPUT,
    EXIT_LOCK_TIMEOUT,
    EXIT_STORAGE,
    EXIT_USAGE,
    InvalidInputError,
    OracleError,
    UsageError,
    os_failure,
)
from .model.turn import OPENCLAW_ID
from .openclaw.notes import is_note_path, note_citations
from .openclaw.visibility import shown_to, viewer_of, visible_lines
from .recall.results import Found, FoundEpisode, JsonObject, cited_turn
from .storage import derived

if TYPE_CHECKING:
    from .learning.learn import LearnReport
    from .memory import Memory

PROVIDER = "vm-memory-oracle"
DEFAULT_RESULTS = 6
MAX_RESULTS = 50
GET_LINES = 200  # lines a get returns when it names no count
GET_CHARS = 20_000  # at most this many characters in one get's text
SNIPPET_CHARS = 700  # a hit's snippet: a fact, or a passage of a turn
# The error codes of answers, by the exit code the command line gives the same fault.
CODES = {
    EXIT_FAILURE: "failure",
    EXIT_USAGE: "usage",
    EXIT_INVALID_INPUT: "invalid_input",
    EXIT_LOCK_TIMEOUT: "lock_timeout",
    EXIT_DATA_DIR: "data_dir",
    EXIT_STORAGE: "storage",
}
_READABLE = (
    re.compile(r"^MEMORY\.md$"),
    re.compile(r"^daily/[^/]+\.md$"),
    re.compile(r"^sessions/[^/]+\.jsonl$"),
    re.compile(r"^knowledge-graph/facts\.jsonl$"),
)


@dataclass(frozen=True)
class Cited:
    """One search result as OpenClaw's memory_search reads it: the file and line it cites
    (a workspace note's line, a session log's turn, else the fact's line of facts.jsonl),
    its score, a snippet, and whether it is a fact or a turn."""

    path: str
    line: int
    score: float
    snippet: str
    kind: str  # "fact" or "episode"
    id: str
    note: bool = False  # the path is a note of the workspace (memory/<name>.md, USER.md)
    origin: str | None = None  # where a turn came from, when it recorded that

    def to_json(self) -> JsonObject:
        said = self.kind == FoundEpisode.KIND and not self.note
        entry = {
            "path": self.path,
            "startLine": self.line,
            "endLine": self.line,
            "score": self.score,
            "snippet": self.snippet,
            "source": "sessions" if said else "memory",
            "citation": f"{self.path}#L{self.line}",
            "id": self.id,
            "kind": self.kind,
        }
        if self.origin is not None:
            entry["origin"] = self.origin
        return entry


@dataclass(frozen=True)
class Searched:
    """A search's answer: the results, the model that searched, the warnings of the
    recall."""

    results: tuple[Cited, ...]
    model: str | None
    warnings: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {
            "results": [cited.to_json() for cited in self.results],
            "provider": PROVIDER,
            "model": self.model,
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class Read:
    """A get's answer: the lines read, from the file or from the episodes of a session log
    clean removed (`origin`)."""

    path: str
    text: str
    first: int
    lines: int
    origin: str

    def to_json(self) -> JsonObject:
        return {
            "path": self.path,
            "text": self.text,
            "from": self.first,
            "lines": self.lines,
            "origin": self.origin,
        }


@dataclass(frozen=True)
class Learned:
    """A learn's answer: what the live learn did (learning.learn.LearnReport), for the
    agent and session of a turn that ended, or for the workspace whose notes changed."""

    report: LearnReport
    warnings: tuple[str, ...]
    agent: str | None = None
    session: str | None = None
    workspace: str | None = None

    def to_json(self) -> JsonObject:
        report = self.report
        head: JsonObject = (
            {"notes": self.workspace, "importedLines": report.imported_turns}
            if self.workspace is not None
            else {
                "agent": self.agent,
                "session": self.session,
                "importedTurns": report.imported_turns,
            }
        )
        return {
            **head,
            "turns": report.turns,
            "added": report.added,
            "reinforced": report.reinforced,
            "episodes": report.episodes,
            "days": list(report.days),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class Forgetting:
    """A forget's answer: what `forget --json` prints (forgetting/asked.py)."""

    answer: JsonObject

    def to_json(self) -> JsonObject:
        return self.answer


@dataclass(frozen=True)
class Pong:
    pid: int
    data_path: str

    def to_json(self) -> JsonObject:
        return {"pid": self.pid, "dataPath": self.data_path}


Answer = Searched | Read | Learned | Forgetting | Pong


class Service:
    """Answers requests with the memory opened afresh for each (`open_memory()`: the time,
    settings and data path as the process's own options and the environment give them now,
    so a changed config or clock is seen by the next request)."""

    def __init__(self, open_memory: Callable[[], Memory]):
        self.open_memory = open_memory

    def answer(self, line: str) -> JsonObject:
        """The answer to one request line (never raises)."""
        ident = None
        try:
            try:
                request = json.loads(line)
            except ValueError as exc:
                raise InvalidInputError(f"request is not JSON ({exc})") from None
            if not isinstance(request, dict):
                raise InvalidInputError("request must be a JSON object")
            ident = request.get("id")
            op = request.get("op")
            handlers: dict[str, Callable[[JsonObject], Answer]] = {
                "search": self.search,
                "get": self.get,
                "learn": self.learn,
                "forget": self.forget,
                "ping": self.ping,
            }
            handler = handlers.get(op) if isinstance(op, str) else None
            if handler is None:
                raise UsageError(f"op must be search, get, learn, forget or ping, got {op!r}")
            return {"id": ident, "ok": True, "result": handler(request).to_json()}
        except OracleError as exc:
            return _refusal(ident, exc.exit_code, str(exc))
        except OSError as exc:
            return _refusal(ident, *os_failure(exc))
        except Exception as exc:  # the process must outlive any one request
            return _refusal(ident, EXIT_FAILURE, f"{type(exc).__name__}: {exc}")

    # -- the operations ---------------------------------------------------------------------
    def ping(self, request: JsonObject) -> Pong:
        memory = self._memory()
        return Pong(os.getpid(), str(memory.data_path))

    def search(self, request: JsonObject) -> Searched:
        from .recall import Asked

        query = request.get("query")
        if not isinstance(query, str):
            raise InvalidInputError("query must be a string", key="query")
        k = _count(request, "maxResults", DEFAULT_RESULTS, MAX_RESULTS)
        floor = request.get("minScore", 0)
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0 <= floor <= 1:
            raise InvalidInputError(f"minScore must be from 0 to 1, got {floor!r}", key="minScore")
        boost = _flag(request, "boost", True)
        injected = _flag(request, "injected", False)
        memory = self._memory()
        shown = shown_to(request, memory.settings)
        (result_set,) = memory.recall(
            [Asked(query, k, injected=injected)], boost=boost, shown=shown
        )
        hits = [hit for hit in result_set.hits if hit.score >= floor]
        lines = _fact_lines(memory.layout(), [hit.id for hit in hits if hit.cited is None])
        notes = note_citations(memory.store(), [hit.cited for hit in hits if hit.cited])
        return Searched(
            tuple(_cited(hit, lines, notes) for hit in hits),
            result_set.embedder,
            tuple(memory.warnings()),
        )

    def get(self, request: JsonObject) -> Read:
        path = request.get("path")
        if not isinstance(path, str) or not path.strip():
            raise InvalidInputError("path must name a file of the memory", key="path")
        first = _count(request, "from", 1, None)
        count = _count(request, "lines", GET_LINES, None)
        memory = self._memory()
        viewer = viewer_of(request, memory.settings)
        if is_note_path(path.strip()):  # the owner's notes: in a group only if shared
            visible_lines(viewer, path.strip(), "")
            return _workspace_note(request, path.strip(), first, count)
        layout = memory.checked_layout()
        relative = _readable(path.strip())
        target = layout.root / relative
        refused = memory.store().refused(target)
        if refused is not None:
            raise refused.error()
        if target.is_file():
            text, origin = _lines_of(target, first, count), "file"
        elif relative.startswith("sessions/"):  # a log clean removed: its turns' episodes
            text, origin = _episode_lines(memory, relative, first, count), "episodes"
        else:
            raise InvalidInputError("no such file in the memory", source=relative)
        shown = visible_lines(viewer, relative, text)
        if shown != text:  # cut before a line this session may not hear
            text, count = shown, shown.count("\n") + 1
        if relative.startswith("sessions/"):
            text = _said_forgotten(text)
        from .extract.redact import redact

        return Read(relative, redact(text).text[:GET_CHARS], first, count, origin)

    def learn(self, request: JsonObject) -> Learned:
        if "notes" in request:
            return self.learn_notes(request)
        agent = _name(request, "agent")
        session = _name(request, "session") if request.get("session") is not None else None
        memory = self._memory("summarize")
        state_dir = memory.settings.openclaw_state_dir or request.get("stateDir")
        if not isinstance(state_dir, str) or not state_dir.strip():
            raise UsageError(
                "learn needs OpenClaw's state directory: the memory's openclaw_state_dir "
                "or the request's stateDir"
            )
        report = memory.learn_agent(agent, state_dir)
        return Learned(report, tuple(memory.warnings()), agent=agent, session=session)

    def learn_notes(self, request: JsonObject) -> Learned:
        workspace = _workspace(request, "notes")
        memory = self._memory("summarize")
        report = memory.learn_notes(workspace)
        return Learned(report, tuple(memory.warnings()), workspace=str(workspace))

    def forget(self, request: JsonObject) -> Forgetting:
        from .forgetting.asked import forget_asked

        memory = self._memory("forget")
        return Forgetting(forget_asked(memory, request))

    def _memory(self, action: str = "recall") -> Memory:
        memory = self.open_memory()
        memory.action = action
        return memory


def _refusal(ident, exit_code: int, message: str) -> JsonObject:
    error = {"code": CODES.get(exit_code, "failure"), "exit_code": exit_code, "message": message}
    return {"id": ident, "ok": False, "error": error}


FORGOTTEN_LINE = "[forgotten: the owner asked the memory to forget what was said here]"


def _said_forgotten(text: str) -> str:
    """A session log's lines as get reads them, a forgotten one (forgetting/) saying so."""
    from .forgetting.marks import forgotten_line

    return "\n".join(FORGOTTEN_LINE if forgotten_line(line) else line for line in text.split("\n"))


def _name(request: dict, key: str) -> str:
    """An OpenClaw agent's or session's id from the request: a short name without
    slashes."""
    value = request.get(key)
    if not isinstance(value, str) or not OPENCLAW_ID.fullmatch(value):
        raise InvalidInputError(
            f"{key} must be an OpenClaw id (letters, digits, '.', '_', ':' or '-', "
            f"at most 128), got {str(value)[:80]!r}",
            key=key,
        )
    return value


def _flag(request: dict, key: str, default: bool) -> bool:
    value = request.get(key, default)
    if not isinstance(value, bool):
        raise InvalidInputError(f"{key} must be true or false, got {value!r}", key=key)
    return value


def _count(request: dict, key: str, default: int, most: int | None) -> int:
    value = request.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInputError(f"{key} must be a whole number from 1, got {value!r}", key=key)
    return min(value, most) if most is not None else value


def _cited(
    hit: Found, fact_lines: dict[str, int], notes: dict[tuple[str, int], tuple[str, int]]
) -> Cited:
    """A hit as a search result: the note line or turn it cites, or the fact's line of
    facts.jsonl."""
    cited = hit.cited
    note = notes.get(cited) if cited is not None else None
    if note is not None:
        path, line = note
    elif cited is not None:
        path, line = cited
    else:
        path, line = "knowledge-graph/facts.jsonl", fact_lines.get(hit.id, 1)
    if isinstance(hit, FoundEpisode) and note is not None:
        text, when = hit.text, ""  # the note's own words, as its line reads
    elif isinstance(hit, FoundEpisode):
        text, when = f"{hit.speaker} said: {hit.text}", hit.said_at[:10]
    else:
        text, when = hit.text, ""
    snippet = text[:SNIPPET_CHARS] + (f" ({when})" if when else "")
    origin = hit.origin
    return Cited(path, line, hit.score, snippet, hit.KIND, hit.id, note is not None, origin)


def _workspace(request: dict, key: str) -> Path:
    """The OpenClaw workspace a request names: an existing directory."""
    value = request.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{key} must name an OpenClaw workspace directory", key=key)
    path = Path(value).expanduser()
    if not path.is_absolute():
        raise InvalidInputError(f"must be an absolute path, got {value[:200]!r}", key=key)
    if not path.is_dir():
        raise InvalidInputError("no such workspace directory", source=str(path)[:300])
    return path


def _workspace_note(request: dict, path: str, first: int, count: int) -> Read:
    """Lines of a note of the workspace the request names (USER.md, memory/<name>.md), as
    the file is now, its secrets redacted. A link is refused: a note is the workspace's own
    file."""
    from .extract.redact import redact

    if request.get("workspace") is None:
        raise InvalidInputError(
            "reading a workspace note needs the request's workspace", source=path
        )
    target = _workspace(request, "workspace") / path
    if target.is_symlink():
        raise InvalidInputError("a symbolic link, not a note of the workspace", source=path)
    if not target.is_file():
        raise InvalidInputError("no such file in the workspace", source=path)
    text = _lines_of(target, first, count)
    return Read(path, redact(text).text[:GET_CHARS], first, count, "workspace")


def _fact_lines(layout, ids: Iterable[str]) -> dict[str, int]:
    """The line of facts.jsonl holding each of `ids`: where get opens a fact that no session
    line holds."""
    wanted = set(ids)
    if not wanted:
        return {}
    lines = _line_of_each_fact(layout.facts)
    return {ident: lines[ident] for ident in wanted if ident in lines}


def _line_of_each_fact(path: Path) -> dict[str, int]:
    """The first line of `path` (facts.jsonl) holding each fact id; an unreadable line is
    skipped. Kept in memory while the file is unchanged (storage/derived.Derived), so a
    search does not scan 10,000 lines for the one fact it cites."""
    memo: derived.Derived[dict[str, int]] = derived.Derived(
        path.with_name(f"{path.name} lines"),  # a name only: kept in memory, never written
        layout=derived.layout_of(None, (sys.modules[__name__],)),
        sources=(path,),
        disk=False,
    )

    def make(key: tuple | None) -> dict[str, int]:
        lines: dict[str, int] = {}
        try:
            with path.open("rb") as handle:
                for number, raw in enumerate(handle, start=1):
                    try:
                        ident = json.loads(raw).get("id")
                    except (ValueError, AttributeError):
                        continue
                    if isinstance(ident, str):
                        lines.setdefault(ident, number)
        except FileNotFoundError:
            pass
        return lines

    return derived.brought_in_step(memo, make)


def _readable(path: str) -> str:
    """`path` as a name inside the data directory that get may read, or an error naming it:
    MEMORY.md, a daily summary, a session log, the facts."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or ".." in pure.parts or "\\" in path:
        raise InvalidInputError("must be a path inside the memory", source=path)
    name = pure.as_posix()
    if not any(pattern.match(name) for pattern in _READABLE):
        raise InvalidInputError(
            "get reads MEMORY.md, daily/<day>.md, sessions/<log>.jsonl, "
            "knowledge-graph/facts.jsonl, or a workspace's USER.md or memory/<name>.md",
            source=path,
        )
    return name


def _lines_of(path: Path, first: int, count: int) -> str:
    chosen = []
    size = 0
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if number < first:
                continue
            if number >= first + count or size > GET_CHARS:
                break
            chosen.append(line.rstrip("\n"))
            size += len(line)
    return "\n".join(chosen)


def _episode_lines(memory: Memory, log: str, first: int, count: int) -> str:
    """What the turns at lines first..first+count-1 of a session log said, from their
    episodes (one line a turn, its passages joined), for a log clean has removed."""
    from .episodes import Episode, episode_files

    turns: dict[str, list[Episode]] = {}
    store = memory.store()
    for path in episode_files(memory.layout()):
        for record in store.read_records(path, "episode", copy=False):
            cited = cited_turn(record["source"])
            if cited is not None and cited[0] == log and first <= cited[1] < first + count:
                turns.setdefault(record["source"], []).append(Episode.from_record(record))
    if not turns:
        raise InvalidInputError("no such file in the memory, and no turn of it kept", source=log)
    lines = []
    for source in sorted(turns, key=lambda source: int(source.rsplit(":", 1)[1])):
        parts = sorted(turns[source], key=lambda episode: episode.part)
        said = " ".join(episode.text for episode in parts)
        lines.append(json.dumps({"ts": parts[0].ts, "role": parts[0].speaker, "text": said}))
    return "\n".join(lines)


def run(
    open_memory: Callable[[], Memory], stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout
) -> int:
    """Answer request lines until stdin closes (`open_memory`: see Service). A caller that
    went away (OpenClaw's process ends right after a turn when run as a command) is not
    answered, but what it sent is still done: a learn it asked for is not lost."""
    service = Service(open_memory)
    heard = True
    for line in stdin:
        if not line.strip():
            continue
        answer = json.dumps(service.answer(line), ensure_ascii=False) + "\n"
        if not heard:
            continue
        try:
            stdout.write(answer)
            stdout.flush()
        except BrokenPipeError:
            heard = False
            _silence(stdout)
    return 0


def _silence(stdout: IO[str]) -> None:
    """Point a closed stdout at /dev/null, so that the flush at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
