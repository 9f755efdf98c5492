"""A real HTTP model server for tests, speaking Ollama's ``/api/*`` and OpenAI's ``/v1/*``.

Tests script every answer; nothing is improvised. A chat request with an empty queue and no
responder gets HTTP 500, so a test cannot pass by accident. Every request is recorded.

In a test::

    from tests.stubs.model_server import ModelStubServer, ScriptedReply

    def test_x(model_server: ModelStubServer) -> None:      # fixture: import it in conftest
        model_server.enqueue(ScriptedReply(text="hello", chunks=3))
        client = OllamaClient(model="qwen2.5-coder:7b-instruct", base_url=model_server.url)

As a process (for terminal tests)::

    python -m tests.stubs.model_server --port 11500 --script replies.json

where the script is ``{"models": [{"name": …}], "replies": [{…ScriptedReply fields…}],
"rules": [{"match": "text in the last user message", "reply": {…}}]}``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import signal
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

from tests.stubs.script import ScriptedReply, StubModel, StubToolCall
from tests.stubs.wire import (
    Frames,
    ollama_chat_frames,
    ollama_error_body,
    ollama_pull_lines,
    ollama_show,
    ollama_tags,
    openai_chat_frames,
    openai_completion,
    openai_error_body,
    openai_models,
)

__all__ = [
    "ModelStubServer",
    "RecordedRequest",
    "ScriptedReply",
    "StubModel",
    "StubToolCall",
    "model_server",
]

DEFAULT_MODEL = "qwen2.5-coder:7b-instruct"
Responder = Callable[[dict[str, Any]], ScriptedReply]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    """Parsed JSON, or None for an empty / non-JSON body."""


class _QuietServer(ThreadingHTTPServer):
    """Clients that hang up mid-stream (cancellation tests) are expected, not errors to print."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class ModelStubServer:
    def __init__(self, models: list[StubModel] | None = None, *, port: int = 0) -> None:
        self.models: list[StubModel] = models if models is not None else [StubModel(DEFAULT_MODEL)]
        self.pullable: dict[str, StubModel] = {}
        """Models ``/api/pull`` can fetch (added to ``models`` on success)."""
        self.responder: Responder | None = None
        """Answers chat requests when the queue is empty: request body → reply."""
        self.reject_response_formats: set[str] = set()
        """``response_format`` types (json_schema, json_object) answered with 400."""
        self.reject_tools = False
        self.tool_rendering: Literal["always", "with_choice", "never"] = "always"
        """/v1: whether the "model" sees the tools sent. ``with_choice``: only with a
        ``tool_choice`` other than "none", and only beside a system message (llama-cpp-python's
        chatml-function-calling renders them inside it); ``never``: a chat template without
        tools. Dropped tools are not counted in
        the prompt and the model cannot call them (scripted native calls are not sent)."""
        self.streams_tool_calls = True
        """False: like llama-cpp-python's chatml-function-calling, a streamed request whose
        reply is a tool call answers 200 and drops the connection ("Automatic streaming tool
        choice is not supported"); the same request not streamed gets the call."""
        self.reject_stream_options = False
        self.api_key: str | None = None
        """If set, /v1 requests without ``Authorization: Bearer <api_key>`` get 401."""
        self.pull_delay = 0.0
        self.served: tuple[str, int] | None = None
        """(flavour, window): answer like ``llama.cpp`` (/props), ``vllm`` (max_model_len),
        ``lmstudio`` (/api/v0/models) or ``llama-cpp-python`` (says its window only when
        refusing a longer prompt) serving that context window."""
        self.requests: list[RecordedRequest] = []
        self.unstreamable: deque[ScriptedReply] = deque()
        """Tool-call replies a stream could not carry (``streams_tool_calls``): the next
        non-streamed request gets them."""
        self.disconnects = 0
        """Streams whose client went away before the end."""
        self.disconnected = threading.Event()
        self._queue: deque[ScriptedReply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> ModelStubServer:
        handler = type("BoundHandler", (_Handler,), {"stub": self})
        self._httpd = _QuietServer(("127.0.0.1", self._port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            with self._lock:
                connections = list(self._connections)
            for connection in connections:  # idle keep-alive connections would block the join
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ModelStubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start() the server first"
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Ollama's base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    # --- scripting ------------------------------------------------------------------------

    def enqueue(self, *replies: ScriptedReply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of every chat request, both protocols, in order, but the one-token
        ``"stream": false`` requests of the tool check (``probe_requests``)."""
        chat_paths = ("/api/chat", "/v1/chat/completions")
        probes = self.probe_requests()
        return [
            r.body
            for r in self.requests
            if r.path in chat_paths and not any(r.body is probe for probe in probes)
        ]

    def probe_requests(self) -> list[dict[str, Any]]:
        """Bodies of the one-token non-streamed /v1 chat requests (the client's tool check)."""
        return [
            r.body
            for r in self.requests
            if r.path == "/v1/chat/completions"
            and isinstance(r.body, dict)
            and r.body.get("stream") is False
            and r.body.get("max_tokens") == 1
        ]

    def renders_tools(self, body: dict[str, Any]) -> bool:
        """Whether the "model" sees the tools of this /v1 request (``tool_rendering``)."""
        if not body.get("tools") or self.tool_rendering == "never":
            return False
        if self.tool_rendering == "with_choice":  # and in the system message, as its template
            messages = body.get("messages") or []
            system = any(m.get("role") == "system" for m in messages if isinstance(m, dict))
            return system and body.get("tool_choice") not in (None, "none")
        return True

    def next_reply(self, body: dict[str, Any]) -> ScriptedReply | None:
        with self._lock:
            if self.unstreamable and body.get("stream") is False:
                return self.unstreamable.popleft()
            if self._queue:
                return self._queue.popleft()
        return self.responder(body) if self.responder is not None else None

    def wait(self, seconds: float) -> bool:
        """Sleep that ends early when the server stops; False if it stopped."""
        return not self._stop.wait(seconds) if seconds > 0 else not self._stop.is_set()

    def note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1
        self.disconnected.set()

    def track(self, connection: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def model(self, name: str) -> StubModel | None:
        return next((m for m in self.models if m.name == name), None)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    stub: ModelStubServer
    server_version = "ModelStub/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def setup(self) -> None:
        super().setup()
        self.stub.track(self.connection, True)

    def finish(self) -> None:
        self.stub.track(self.connection, False)
        with contextlib.suppress(OSError):  # the client is gone; nothing left to flush to
            super().finish()

    # --- dispatch -------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        path = self.path.split("?", 1)[0]
        self.stub.requests.append(RecordedRequest(method, path, dict(self.headers), body))
        routes: dict[tuple[str, str], Callable[[Any], None]] = {
            ("GET", "/api/version"): lambda _: self._json(200, {"version": "0.12.3"}),
            ("GET", "/api/tags"): lambda _: self._json(200, ollama_tags(self.stub.models)),
            ("POST", "/api/show"): self._ollama_show,
            ("POST", "/api/pull"): self._ollama_pull,
            ("POST", "/api/chat"): self._ollama_chat,
            ("GET", "/v1/models"): self._openai_models,
            ("GET", "/props"): self._served_props,
            ("GET", "/api/v0/models"): self._served_lmstudio,
            ("POST", "/extras/tokenize/count"): self._served_token_count,
            ("POST", "/v1/completions"): self._served_completion,
            ("POST", "/v1/chat/completions"): self._openai_chat,
        }
        route = routes.get((method, path))
        if route is None:
            self._bytes(404, b"404 page not found", "text/plain")
            return
        if path.startswith("/v1/") and not self._authorized():
            self._bytes(401, openai_error_body("Incorrect API key provided", 401))
            return
        route(body if isinstance(body, dict) else {})

    def _authorized(self) -> bool:
        key = self.stub.api_key
        return key is None or self.headers.get("Authorization") == f"Bearer {key}"

    # --- Ollama ---------------------------------------------------------------------------

    def _ollama_show(self, body: dict[str, Any]) -> None:
        model = self.stub.model(str(body.get("model") or body.get("name") or ""))
        if model is None:
            self._bytes(404, ollama_error_body(f"model '{body.get('model')}' not found"))
            return
        self._json(200, ollama_show(model))

    def _ollama_pull(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or body.get("name") or "")
        self._start_stream("application/x-ndjson")
        target = self.stub.pullable.get(name)
        if target is None:
            self._chunk(b'{"status":"pulling manifest"}\n')
            self._chunk(ollama_error_body("pull model manifest: file does not exist") + b"\n")
            self._end_stream()
            return
        for line in ollama_pull_lines():
            if not self.stub.wait(self.stub.pull_delay) or not self._chunk(line):
                return
        self.stub.models.append(target)
        self._end_stream()

    def _ollama_chat(self, body: dict[str, Any]) -> None:
        model = str(body.get("model") or "")
        if self.stub.model(model) is None:
            message = f'model "{model}" not found, try pulling it first'
            self._bytes(404, ollama_error_body(message))
            return
        if body.get("tools") and self.stub.reject_tools:
            message = f"registry.ollama.ai/library/{model} does not support tools"
            self._bytes(400, ollama_error_body(message))
            return
        reply = self.stub.next_reply(body)
        if reply is None:
            message = "model stub: no scripted reply queued for POST /api/chat"
            self._bytes(500, ollama_error_body(message))
            return
        if reply.status != 200:
            self._bytes(reply.status, ollama_error_body(reply.error_message))
            return
        self._play(reply, ollama_chat_frames(reply, model))

    # --- OpenAI ---------------------------------------------------------------------------

    def _openai_models(self, _: dict[str, Any]) -> None:
        payload = openai_models(self.stub.models)
        if self.stub.served is not None and self.stub.served[0] == "vllm":
            for entry in payload["data"]:
                entry["max_model_len"] = self.stub.served[1]
        self._json(200, payload)

    # --- where servers say their window ---------------------------------------------------

    def _flavour(self, flavour: str) -> int | None:
        served = self.stub.served
        if served is None or served[0] != flavour:
            self._bytes(404, b'{"detail":"Not Found"}')
            return None
        return served[1]

    def _served_props(self, _: dict[str, Any]) -> None:
        window = self._flavour("llama.cpp")
        if window is not None:  # two slots: each request gets half of n_ctx
            settings = {"n_ctx": window, "temperature": 0.8}
            self._json(200, {"default_generation_settings": settings, "n_ctx": window * 2})

    def _served_lmstudio(self, _: dict[str, Any]) -> None:
        window = self._flavour("lmstudio")
        if window is not None:
            data = [
                {"id": m.name, "max_context_length": m.context_length,
                 "loaded_context_length": window, "state": "loaded"}
                for m in self.stub.models
            ]  # fmt: skip
            self._json(200, {"object": "list", "data": data})

    def _served_token_count(self, body: dict[str, Any]) -> None:
        if self._flavour("llama-cpp-python") is not None:
            self._json(200, {"count": len(str(body.get("input") or "").split())})

    def _served_completion(self, body: dict[str, Any]) -> None:
        window = self._flavour("llama-cpp-python")
        if window is None:
            return
        tokens = len(str(body.get("prompt") or "").split())
        if tokens < window:
            self._json(200, {"choices": [{"text": "hi", "finish_reason": "length"}]})
            return
        message = (
            f"This model's maximum context length is {window} tokens, however you requested "
            f"{tokens + 1} tokens ({tokens} in your prompt; 1 for the completion). Please "
            "reduce your prompt; or completion length."
        )
        self._bytes(400, openai_error_body(message, 400))

    def _openai_chat(self, body: dict[str, Any]) -> None:
        response_format = body.get("response_format")
        if isinstance(response_format, dict):
            kind = response_format.get("type")
            if kind in self.stub.reject_response_formats:
                message = f"response_format type '{kind}' is not supported by this server"
                self._bytes(400, openai_error_body(message, 400))
                return
        if body.get("tools") and self.stub.reject_tools:
            self._bytes(400, openai_error_body("tools param requires --jinja flag", 400))
            return
        if "stream_options" in body and self.stub.reject_stream_options:
            message = "Unrecognized request argument supplied: stream_options"
            self._bytes(400, openai_error_body(message, 400))
            return
        if self._beyond_llama_cpp_python_window(body):
            return
        if body.get("stream") is False and body.get("max_tokens") == 1:
            self._openai_counted(body)  # the client's tool check: one token, counted
            return
        reply = self.stub.next_reply(body)
        dropped = bool(body.get("tools")) and not self.stub.renders_tools(body)
        if reply is not None and reply.tool_calls and dropped:
            # The model never saw the tools it was sent: it cannot call them.
            reply = dataclasses.replace(reply, tool_calls=[])
        if reply is None:
            message = "model stub: no scripted reply queued for POST /v1/chat/completions"
            self._bytes(500, openai_error_body(message, 500))
            return
        if reply.status != 200:
            self._bytes(reply.status, openai_error_body(reply.error_message, reply.status))
            return
        if body.get("stream") is False:
            self._json(200, openai_completion(reply, str(body.get("model"))))
            return
        if reply.tool_calls and not self.stub.streams_tool_calls:
            self.stub.unstreamable.append(reply)  # asked again without streaming: answered
            self._start_stream("text/event-stream")
            self._abort()
            return
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
        self._play(reply, openai_chat_frames(reply, str(body.get("model")), include_usage))

    def _prompt_words(self, body: dict[str, Any]) -> int:
        messages = body.get("messages") or []
        words = sum(len(str(m.get("content") or "").split()) for m in messages)
        if self.stub.renders_tools(body):
            words += len(json.dumps(body["tools"]).split())
        return words

    def _beyond_llama_cpp_python_window(self, body: dict[str, Any]) -> bool:
        """llama-cpp-python with a prompt above its window (words count as tokens): a
        non-streamed request gets its 400; a streamed one gets 200, then the connection is
        dropped before any event (the server raises inside the stream)."""
        served = self.stub.served
        if served is None or served[0] != "llama-cpp-python":
            return False
        window, tokens = served[1], self._prompt_words(body)
        if tokens < window:
            return False
        if body.get("stream") is False:
            message = (
                f"This model's maximum context length is {window} tokens, however you "
                f"requested {tokens + 1} tokens ({tokens} in your prompt; 1 for the "
                "completion). Please reduce your prompt; or completion length."
            )
            self._bytes(400, openai_error_body(message, 400))
        else:
            self._start_stream("text/event-stream")
            self._abort()
        return True

    def _openai_counted(self, body: dict[str, Any]) -> None:
        """A non-streamed request (the client's tool check): one token of answer, and the
        prompt counted in words — the tools only when the "model" sees them."""
        words = self._prompt_words(body)
        message = {"role": "assistant", "content": "Hello"}
        choice = {"index": 0, "message": message, "finish_reason": "length"}
        usage = {"prompt_tokens": words, "completion_tokens": 1, "total_tokens": words + 1}
        payload = {"id": "chatcmpl-probe", "object": "chat.completion", "choices": [choice],
                   "model": str(body.get("model")), "usage": usage}  # fmt: skip
        self._json(200, payload)

    # --- streaming ------------------------------------------------------------------------

    def _play(self, reply: ScriptedReply, frames: Frames) -> None:
        self._start_stream(frames.content_type)
        if not self.stub.wait(reply.first_token_delay):
            return
        for frame in frames.opening:
            if not self._chunk(frame):
                return
        for index in range(len(frames.content) + 1):
            if reply.error_after == index:
                if self._chunk(frames.error):
                    self._end_stream()
                return
            if reply.disconnect_after == index:
                self._abort()
                return
            if index == len(frames.content):
                break
            if index > 0 and not self.stub.wait(reply.chunk_delay):
                return
            if not self._chunk(frames.content[index]):
                return
        for frame in frames.closing:
            if not self._chunk(frame):
                return
        self._end_stream()

    def _start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _chunk(self, data: bytes) -> bool:
        """Send one chunk; False (and the disconnect noted) if the client went away."""
        try:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.stub.note_disconnect()
            return False
        return True

    def _end_stream(self) -> None:
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.stub.note_disconnect()

    def _abort(self) -> None:
        """Drop the connection mid-body, as a crashed server would."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _json(self, status: int, data: Any) -> None:
        self._bytes(status, json.dumps(data).encode())

    def _bytes(self, status: int, data: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


@pytest.fixture
def model_server() -> Iterator[ModelStubServer]:
    """A started stub with one model, ``qwen2.5-coder:7b-instruct`` (32K context, tools)."""
    with ModelStubServer() as server:
        yield server


# --- standalone ----------------------------------------------------------------------------


def load_script(server: ModelStubServer, script: dict[str, Any]) -> None:
    if "models" in script:
        server.models = [StubModel.from_dict(m) for m in script["models"]]
    server.enqueue(*(ScriptedReply.from_dict(r) for r in script.get("replies", [])))
    rules = [
        (str(r["match"]), ScriptedReply.from_dict(r["reply"])) for r in script.get("rules", [])
    ]
    if rules:

        def respond(body: dict[str, Any]) -> ScriptedReply:
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            last = str(users[-1].get("content", "")) if users else ""
            for match, reply in rules:
                if match in last:
                    return reply
            return ScriptedReply(status=500, error_message=f"model stub: no rule matches {last!r}")

        server.responder = respond


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted Ollama/OpenAI-compatible model stub.")
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any)")
    parser.add_argument("--script", type=Path, help="JSON file: models, replies, rules")
    args = parser.parse_args(argv)
    server = ModelStubServer(port=args.port)
    if args.script is not None:
        try:
            load_script(server, json.loads(args.script.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"model stub: cannot use script {args.script}: {exc}", file=sys.stderr)
            return 2
    server.start()
    print(f"model stub listening on {server.url}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    done.wait()
    server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
