"""JSON-RPC 2.0 over a child process's stdin/stdout with LSP's ``Content-Length`` framing.

Thread-based on purpose: tools run on whatever event loop their front end has (or none), and a
language server outlives any one call. A reader thread parses frames and completes the
caller's future; requests the server sends us (``workspace/configuration``,
``client/registerCapability``, progress tokens) are answered with the empty answers the
protocol allows, so no server waits on us. Every failure — the program is missing, it exits,
a frame does not parse, an answer does not come in time — is a :class:`ServerFailed`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import IO, Any

from ipuaro.domain.errors import IpuaroError

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 64 * 1024 * 1024
"""A frame larger than this is taken as a broken stream, not read into memory."""
MAX_HEADER_LINE = 64 * 1024
"""A header line longer than this is a broken stream (output that is not LSP), not kept."""
STDERR_PIECE = 4096
"""stderr is read in pieces of at most this size: a flood without line breaks stays small."""


def absolute_path_entries(path: str) -> str:
    """``path`` (a PATH value) without its relative entries: ``.``, ``node_modules/.bin`` or an
    empty entry mean "the folder I am in" — the project's, whose programs are the repository's
    code, never a server the user chose."""
    return os.pathsep.join(entry for entry in path.split(os.pathsep) if os.path.isabs(entry))


def server_environment() -> dict[str, str]:
    """ipuaro's environment for a server, its PATH without relative entries: the server's
    program is looked up in the project's folder (its working directory) otherwise."""
    environ = dict(os.environ)
    if "PATH" in environ:
        environ["PATH"] = absolute_path_entries(environ["PATH"])
    return environ


class ServerFailed(IpuaroError):
    """The server cannot answer: not started, exited, broke the protocol or timed out."""


class ServerTimeout(ServerFailed):
    """A request got no answer in its time."""


def encode_frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_frame(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length: int | None = None
    while True:
        line = stream.readline(MAX_HEADER_LINE + 1)
        if not line:
            return None
        if len(line) > MAX_HEADER_LINE:
            raise ServerFailed(
                f"a header line longer than {MAX_HEADER_LINE} bytes: the output is not LSP"
            )
        line = line.strip()
        if not line:
            if length is None:
                continue  # stray blank line between frames
            break
        name, _, value = line.decode("ascii", "replace").partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError as err:
                raise ServerFailed(f"bad Content-Length header {line!r}") from err
    if length < 0 or length > MAX_FRAME_BYTES:
        raise ServerFailed(f"frame of {length} bytes")
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        message = json.loads(body)
    except ValueError as err:
        raise ServerFailed(f"a frame is not JSON: {err}") from err
    if not isinstance(message, dict):
        raise ServerFailed("a frame is not a JSON object")
    return message


class JsonRpcProcess:
    """One server process. ``request`` blocks the calling thread up to its time-out."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        try:
            self.process = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=env if env is not None else server_environment(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # a Ctrl+C in the terminal is ours, not the server's
            )
        except OSError as err:
            raise ServerFailed(f"cannot start {argv[0]!r}: {err}") from err
        self._next_id = 0
        self._pending: dict[int, Future[Any]] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self.failure: str | None = None
        self.last_heard = time.monotonic()
        """When the server last sent anything (the start waits for it to go quiet)."""
        self.working: set[Any] = set()
        """``$/progress`` tokens begun and not ended: the server is loading or analysing."""
        self.stderr_tail: deque[str] = deque(maxlen=20)
        """The server's last lines on stderr (why it exited, for the user)."""
        self._reader = threading.Thread(target=self._read_loop, name="ipuaro-lsp", daemon=True)
        self._reader.start()
        threading.Thread(target=self._drain_stderr, name="ipuaro-lsp-err", daemon=True).start()

    def last_error(self) -> str:
        """The line of the server's stderr that most likely says why it stopped."""
        lines = list(self.stderr_tail)
        errors = [line for line in lines if "error" in line.lower()]
        return (errors or lines or [""])[-1]

    def _drain_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        with contextlib.suppress(OSError, ValueError):
            for raw in iter(lambda: stderr.readline(STDERR_PIECE), b""):
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    self.stderr_tail.append(line[:300])

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.failure is None and self.process.poll() is None

    def request(self, method: str, params: Any, timeout: float) -> Any:
        future: Future[Any] = Future()
        with self._lock:
            if self.failure is not None:
                raise ServerFailed(self.failure)
            self._next_id += 1
            number = self._next_id
            self._pending[number] = future
        try:
            self._send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
            return future.result(timeout)
        except FutureTimeout as err:
            raise ServerTimeout(f"{method} got no answer in {timeout:g} s") from err
        finally:
            with self._lock:
                self._pending.pop(number, None)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def _send(self, message: dict[str, Any]) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            with self._write_lock:
                stdin.write(encode_frame(message))
                stdin.flush()
        except (OSError, ValueError) as err:
            self._fail(f"the server's input closed: {err}")
            raise ServerFailed(self.failure or str(err)) from err

    def _read_loop(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                message = read_frame(stdout)
                if message is None:
                    break
                self.last_heard = time.monotonic()
                self._dispatch(message)
        except (ServerFailed, OSError, ValueError) as err:
            self._fail(str(err))
            return
        code = self.process.wait()
        said = f": {self.last_error()}" if self.stderr_tail else ""
        self._fail(f"the server exited (code {code}){said}")

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "method" in message:
            if message["method"] == "$/progress":
                self._progress(message.get("params"))
            if "id" in message:  # a request of the server's: answer so it does not wait
                self._answer(message["id"], message["method"], message.get("params"))
            return  # notifications (diagnostics, logs, progress) are not used
        number = message.get("id")
        with self._lock:
            future = self._pending.get(number) if isinstance(number, int) else None
        if future is None or future.done():
            return
        if "error" in message:
            error = message["error"]
            text = error.get("message") if isinstance(error, dict) else error
            future.set_exception(ServerFailed(f"the server answered an error: {text}"))
        else:
            future.set_result(message.get("result"))

    def _progress(self, params: Any) -> None:
        if not isinstance(params, dict) or not isinstance(params.get("value"), dict):
            return
        token, kind = params.get("token"), params["value"].get("kind")
        if not isinstance(token, str | int):
            return
        if kind == "begin":
            self.working.add(token)
        elif kind == "end":
            self.working.discard(token)

    def _answer(self, number: Any, method: str, params: Any) -> None:
        result: Any = None
        if method == "workspace/configuration":
            items = params.get("items", []) if isinstance(params, dict) else []
            result = [None] * len(items)
        elif method == "workspace/workspaceFolders":
            result = []
        with contextlib.suppress(ServerFailed):
            self._send({"jsonrpc": "2.0", "id": number, "result": result})

    def _fail(self, why: str) -> None:
        with self._lock:
            if self.failure is None:
                self.failure = why
            pending, self._pending = list(self._pending.values()), {}
        for future in pending:
            if not future.done():
                future.set_exception(ServerFailed(why))

    def close(self, timeout: float = 2.0) -> None:
        """``shutdown`` then ``exit``; a server that does not leave in time is killed."""
        if self.alive:
            with contextlib.suppress(ServerFailed):
                self.request("shutdown", None, timeout)
                self.notify("exit", None)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        self._fail("closed")
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, 9)
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        self._fail("killed")
