"""An OpenAI-compatible chat completions server on 127.0.0.1, scripted by a test.

OpenClaw's agent streams `POST /v1/chat/completions`; each request is recorded, and the
reply is what the test's `decide(body)` returns: ("tool", name, arguments) for one tool
call, or ("text", words). OpenClaw adds a user-role message of its own after every user
message and tool result (opening with its internal-context marker): `last_meaningful_role`
looks past those, so a script can tell a fresh user turn from a tool result.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INTERNAL = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>"
MAX_REQUESTS = 100  # a script that never stops calling tools ends the test, not the machine


def message_text(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def meaningful(messages: list[dict]) -> list[dict]:
    return [
        message
        for message in messages
        if not (
            message.get("role") == "user" and message_text(message).lstrip().startswith(INTERNAL)
        )
    ]


def last_meaningful_role(body: dict) -> str | None:
    kept = meaningful(body.get("messages") or [])
    return kept[-1].get("role") if kept else None


def last_user_text(body: dict) -> str:
    for message in reversed(meaningful(body.get("messages") or [])):
        if message.get("role") == "user":
            return message_text(message)
    return ""


class ScriptedModel:
    def __init__(self, decide):
        self.decide = decide
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                body = json.loads(
                    self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}"
                )
                with model._lock:
                    model.requests.append(body)
                    count = len(model.requests)
                if count > MAX_REQUESTS or not self.path.endswith("/chat/completions"):
                    self._json(500, {"error": {"message": "no more requests scripted"}})
                    return
                self._reply(body, model.decide(body))

            def _json(self, code, payload):
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _reply(self, body, decision):
                base = {
                    "id": "chatcmpl-" + uuid.uuid4().hex[:12],
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                }
                if decision[0] == "tool":
                    _, name, arguments = decision
                    call = {
                        "index": 0,
                        "id": "call_" + uuid.uuid4().hex[:12],
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                    deltas, finish = (
                        [{"role": "assistant", "content": None, "tool_calls": [call]}],
                        "tool_calls",
                    )
                else:
                    deltas, finish = [{"role": "assistant", "content": decision[1]}], "stop"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                chunks = [
                    {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                    for delta in deltas
                ]
                chunks.append(
                    {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
                )
                chunks.append(
                    {
                        **base,
                        "choices": [],
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 10,
                            "total_tokens": 110,
                        },
                    }
                )
                for chunk in chunks:
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
