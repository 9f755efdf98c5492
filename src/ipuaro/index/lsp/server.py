"""One language server for one language of one project, started in the background.

States: ``idle`` (not started) → ``starting`` (a thread runs ``initialize``) → ``ready``; a
start that fails, a crash or a time-out makes it ``failed``. ``ready()`` starts it (the
session's early start, or the first question, which gets None: the index answers); so does
every question while it starts. A server that failed
is started again by a later question, at most :data:`MAX_STARTS` times in a session; then it
stays ``failed`` and the index answers for the rest of the session.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ipuaro.index.lsp.jsonrpc import JsonRpcProcess, ServerFailed, ServerTimeout
from ipuaro.index.parsers import language_for as language_of

log = logging.getLogger(__name__)

State = Literal["idle", "starting", "ready", "failed"]

START_TIMEOUT_S = 60.0
"""``initialize`` may take this long (a first run of a large project's server)."""
REQUEST_TIMEOUT_S = 10.0
"""One question may take this long; past it the server counts as hung and is stopped."""
SETTLE_S = 1.5
"""After ``initialized``, a server is used once it has been quiet this long: servers scan the
workspace after the handshake (pyright lists its source files ~0.7 s later), and a question
asked before that gets an answer from the open file alone — which would then be cached."""
OPEN_SETTLE_S = 0.5
"""After a file is first opened, the server is asked once it has reported no work in progress
and been quiet this long (typescript-language-server loads the file's project only then)."""
OPEN_WAIT_S = 3.0
"""How long a question waits for that; past it the index answers and the server goes on
loading for the next question."""
CLOSE_JOIN_S = 5.0
"""How long closing waits for a start under way to stop its process."""
MAX_STARTS = 3
"""Starts per session (the first and two restarts after a crash or a hang)."""

LANGUAGE_IDS = {
    "python": "python",
    "typescript": "typescript",
    "tsx": "typescriptreact",
    "javascript": "javascript",
    "jsx": "javascriptreact",
    "go": "go",
    "rust": "rust",
}
"""The index's language of a file → the LSP ``languageId`` of ``didOpen``."""


_CHANGED, _DELETED = 2, 3
"""``FileChangeType`` of ``workspace/didChangeWatchedFiles``."""


@dataclass(frozen=True)
class Location:
    """A place a server named: project-relative path, 1-based line and column (code points)."""

    path: str
    line: int
    column: int


class LanguageServer:
    def __init__(
        self,
        language: str,
        argv: Sequence[str],
        root: Path,
        *,
        start_timeout: float = START_TIMEOUT_S,
        request_timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        self.language = language
        self.argv = list(argv)
        self.root = root.resolve()
        self.start_timeout = start_timeout
        self.request_timeout = request_timeout
        self.state: State = "idle"
        self.starts = 0
        self.problem: str | None = None
        """Why the server is not used (the last failure), for /status and doctor."""
        self._process: JsonRpcProcess | None = None
        self._opened: dict[str, int] = {}
        """Open documents: path → hash of the text sent."""
        self._lock = threading.Lock()
        self._closed = False
        self._starting: JsonRpcProcess | None = None
        self._thread: threading.Thread | None = None
        """The process of a start under way (``close`` stops it too)."""
        self._start_ended = threading.Event()
        """Clear while a start is under way; set when it ends (ready or failed) or the server
        is closed: :meth:`until_ready` waits on it without starting anything."""

    # --- life -------------------------------------------------------------------------------
    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def ready(self) -> bool:
        """True when a question can go to the server now; otherwise starts it (in the
        background) when it may be started, and returns False."""
        with self._lock:
            if self.state == "ready" and self._process is not None and not self._process.alive:
                self._failed(self._process.failure or "the server exited")
            if self.state == "ready":
                return True
            if self.state == "starting" or self._closed or self.starts >= MAX_STARTS:
                return False
            self.state = "starting"
            self.starts += 1
            self._start_ended.clear()
        thread = threading.Thread(
            target=self._start, name=f"ipuaro-lsp-{self.language}", daemon=True
        )
        self._thread = thread
        thread.start()
        return False

    def wait_ready(self, timeout: float) -> bool:
        """Start if needed and wait up to ``timeout`` seconds (tests, ``ipuaro doctor``)."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if (self.state == "failed" and self.starts >= MAX_STARTS) or self._closed:
                return False
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def until_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a start under way to end, without starting one:
        True when the server is ready then (the signal for ``warm`` starts), False at once
        when it failed, was never started or is closed."""
        if self.state == "starting":
            self._start_ended.wait(timeout)
        return self.state == "ready" and not self._closed

    def _start(self) -> None:
        options = initialization_options(self.argv)
        if options is None:
            with self._lock:
                self._failed(
                    f"no TypeScript installed beside {self.argv[0]} (the project's own "
                    "node_modules/typescript is never run); install it there, e.g. "
                    "`npm i -g typescript typescript-language-server`"
                )
            return
        try:
            process = JsonRpcProcess(self.argv, self.root)
        except ServerFailed as err:
            with self._lock:
                self._failed(str(err))
            return
        with self._lock:
            if self._closed:  # closed while the process was being spawned
                process.kill()
                return
            self._starting = process
        try:
            uri = self.root.as_uri()
            process.request(
                "initialize",
                {
                    "processId": None,
                    "rootUri": uri,
                    "rootPath": str(self.root),
                    "workspaceFolders": [{"uri": uri, "name": self.root.name}],
                    "capabilities": _CAPABILITIES,
                    "initializationOptions": options,
                    "clientInfo": {"name": "ipuaro"},
                },
                self.start_timeout,
            )
            process.notify("initialized", {})
            deadline = time.monotonic() + self.start_timeout
            while time.monotonic() - process.last_heard < SETTLE_S:
                if not process.alive or time.monotonic() > deadline or self._closed:
                    raise ServerFailed(process.failure or "the server did not settle")
                time.sleep(0.05)
        except ServerFailed as err:
            process.kill()
            with self._lock:
                self._starting = None
                if not self._closed:
                    self._failed(str(err))
            return
        with self._lock:
            self._starting = None
            if self._closed:
                process.kill()
                return
            self._process, self._opened = process, {}
            self.state, self.problem = "ready", None
            self._start_ended.set()
        log.info("language server for %s ready (pid %d)", self.language, process.pid)

    def _failed(self, why: str) -> None:
        """Under the lock: stop using the server (killed if it still runs)."""
        process, self._process = self._process, None
        self.state, self.problem = "failed", why
        self._start_ended.set()
        self._opened = {}
        if process is not None:
            process.kill()
        log.warning("language server for %s not used: %s", self.language, why)

    def close(self) -> None:
        """Stop the server: a running one is asked to leave (then killed), one still starting
        is killed — a session that ends before its server is up leaves no process behind."""
        with self._lock:
            self._closed = True
            self._start_ended.set()
            process, self._process = self._process, None
            starting, self._starting = self._starting, None
        if starting is not None:
            starting.kill()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            # A start between spawning and taking the lock sees the close and kills its
            # process there: wait for it, so the process is gone when close returns.
            thread.join(CLOSE_JOIN_S)
        if process is not None:
            process.close()

    def describe(self) -> str:
        command = " ".join(self.argv)
        if self.state == "ready":
            return f"{self.language}: {command} (running, pid {self.pid})"
        if self.state == "failed":
            gave_up = " — the index answers for this session" if self.starts >= MAX_STARTS else ""
            return f"{self.language}: {command} (not used: {self.problem}{gave_up})"
        return f"{self.language}: {command} ({self.state})"

    # --- questions --------------------------------------------------------------------------
    def references(self, path: str, line: int, column: int) -> list[Location] | None:
        """Every use of the symbol at ``path:line:column`` (1-based), its declaration included;
        None when the server cannot answer now."""
        return self._ask(
            "textDocument/references", path, line, column, {"includeDeclaration": True}
        )

    def definition(self, path: str, line: int, column: int) -> list[Location] | None:
        return self._ask("textDocument/definition", path, line, column, None)

    def files_changed(self, paths: Iterable[str]) -> None:
        """Tell a running server that files of its language changed on disk: each one that
        still exists is opened with its new text (an open document is part of the server's
        program at once; a file-system event alone is taken in later, when the server gets
        to it), each one that went is closed and reported deleted."""
        with self._lock:
            process = self._process if self.state == "ready" else None
        changed = sorted(set(paths))
        if process is None or not changed:
            return
        try:
            events = []
            for path in changed:
                uri = self._uri(path)
                try:
                    text = (self.root / path).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    text = None
                if text is not None:
                    self._open(process, path, text)
                    events.append({"uri": uri, "type": _CHANGED})
                    continue
                with self._lock:
                    was_open = self._opened.pop(path, None) is not None
                if was_open:
                    process.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
                events.append({"uri": uri, "type": _DELETED})
            process.notify("workspace/didChangeWatchedFiles", {"changes": events})
        except ServerFailed as err:
            with self._lock:
                if self._process is process:
                    self._failed(str(err))

    def _ask(
        self, method: str, path: str, line: int, column: int, context: dict[str, Any] | None
    ) -> list[Location] | None:
        if not self.ready():
            return None
        with self._lock:
            process = self._process
        if process is None:
            return None
        try:
            text = (self.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        lines = text.split("\n")
        if not 1 <= line <= len(lines):
            return None
        params: dict[str, Any] = {
            "textDocument": {"uri": self._uri(path)},
            "position": {"line": line - 1, "character": _utf16(lines[line - 1], column - 1)},
        }
        if context is not None:
            params["context"] = context
        try:
            opened = self._open(process, path, text)
            if not self._settled(process, OPEN_WAIT_S if opened else 0.0, opened):
                return None  # still loading: the index answers this one
            result = process.request(method, params, self.request_timeout)
        except ServerTimeout as err:
            if process.working:  # slow because it is loading (a large project), not hung
                log.info("language server for %s still loading: %s", self.language, err)
                return None
            with self._lock:
                if self._process is process:
                    self._failed(str(err))
            return None
        except ServerFailed as err:
            with self._lock:
                if self._process is process:
                    self._failed(str(err))
            return None
        if process.working:
            # Answered while still loading (tsserver answers from the open file alone until
            # its project is in): not the whole answer, so not used and not cached.
            return None
        return self._locations(result)

    def _settled(self, process: JsonRpcProcess, wait: float, opened: bool) -> bool:
        """No work in progress (and, after an open, quiet for a moment) within ``wait``."""
        since = time.monotonic()
        deadline = since + wait
        while True:
            heard = max(process.last_heard, since)
            quiet = not opened or time.monotonic() - heard >= OPEN_SETTLE_S
            if not process.working and quiet:
                return True
            if time.monotonic() >= deadline or not process.alive:
                return False
            time.sleep(0.05)

    def _open(self, process: JsonRpcProcess, path: str, text: str) -> bool:
        """Open ``path`` with ``text``; one opened with other text (changed on disk without
        the watcher saying so) is closed and opened again: an open document is the server's
        truth about that file."""
        digest = hash(text)
        with self._lock:
            before = self._opened.get(path)
            if before == digest:
                return False
            self._opened[path] = digest
        if before is not None:
            process.notify("textDocument/didClose", {"textDocument": {"uri": self._uri(path)}})
        process.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self._uri(path),
                    "languageId": LANGUAGE_IDS.get(language_of(path) or "", self.language),
                    "version": 1,
                    "text": text,
                }
            },
        )
        return True

    def _uri(self, path: str) -> str:
        return (self.root / path).as_uri()

    def _locations(self, result: Any) -> list[Location]:
        items = result if isinstance(result, list) else [result] if result else []
        found: dict[tuple[str, int, int], Location] = {}
        texts: dict[str, list[str] | None] = {}
        for item in items:
            if not isinstance(item, dict):
                continue
            uri = item.get("uri", item.get("targetUri"))
            span = item.get("range", item.get("targetSelectionRange"))
            if not isinstance(uri, str) or not isinstance(span, dict):
                continue
            relative = self._relative(uri)
            start = span.get("start")
            if relative is None or not isinstance(start, dict):
                continue  # outside the project (a library, a stub): not ours to show
            line, character = int(start.get("line", 0)) + 1, int(start.get("character", 0))
            if relative not in texts:
                try:
                    texts[relative] = (self.root / relative).read_text("utf-8").split("\n")
                except (OSError, UnicodeDecodeError):
                    texts[relative] = None
            lines = texts[relative]
            text = lines[line - 1] if lines is not None and 1 <= line <= len(lines) else ""
            location = Location(relative, line, _code_points(text, character) + 1)
            found[(location.path, location.line, location.column)] = location
        return sorted(found.values(), key=lambda loc: (loc.path, loc.line, loc.column))

    def _relative(self, uri: str) -> str | None:
        from urllib.parse import unquote, urlparse

        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return None
        try:
            return Path(unquote(parsed.path)).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None


def initialization_options(argv: list[str]) -> dict[str, Any] | None:
    """What the server is initialized with: for typescript-language-server, the ``tsserver.js``
    installed beside it (found the way Node resolves ``typescript`` from the server's own
    files), since otherwise it runs the workspace's ``node_modules/typescript`` — the
    repository's code. None when that server has no TypeScript beside it."""
    program = Path(argv[0])
    if program.name != "typescript-language-server":
        return {}
    try:
        real = program.resolve(strict=True)
    except (OSError, RuntimeError):
        return {}  # not found: the start fails and says so
    for folder in real.parents:
        tsserver = folder / "node_modules" / "typescript" / "lib" / "tsserver.js"
        if tsserver.is_file():
            return {"tsserver": {"path": str(tsserver)}}
    return None


def _utf16(text: str, code_points: int) -> int:
    """LSP counts UTF-16 code units; the index counts code points."""
    return len(text[:code_points].encode("utf-16-le")) // 2


def _code_points(text: str, units: int) -> int:
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text) if count >= units else units


_CAPABILITIES: dict[str, Any] = {
    "textDocument": {
        "references": {"dynamicRegistration": False},
        "definition": {"dynamicRegistration": False, "linkSupport": False},
        "synchronization": {"dynamicRegistration": False},
    },
    "workspace": {
        "workspaceFolders": True,
        "configuration": True,
        "didChangeWatchedFiles": {"dynamicRegistration": False},
    },
    "window": {"workDoneProgress": True},
}
