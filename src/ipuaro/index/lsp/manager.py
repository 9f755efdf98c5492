"""The project's language servers (``index.languageServers``) and their cached answers.

:class:`LanguageServers` maps a file to the server of its language, asks it, and keeps each
answer in the store under the question (method, file, position, the file's content hash).
A cached answer is used only while every file it names still has the hash it had; the watcher
also drops, through :meth:`LanguageServers.files_changed`, the answers that involve a changed
file or ask about an identifier the changed file holds (a new use of ``run`` in another file
changes the answer about ``run``). Every way of not answering is None: the caller asks the
index.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

from ipuaro.index.lsp.jsonrpc import absolute_path_entries
from ipuaro.index.lsp.server import LanguageServer, Location
from ipuaro.index.parsers import language_for
from ipuaro.store.protocol import Store, StoreError

log = logging.getLogger(__name__)

Method = Literal["references", "definition"]

DEFAULT_COMMANDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "python": (
        ("basedpyright-langserver", "--stdio"),
        ("pyright-langserver", "--stdio"),
    ),
    "typescript": (("typescript-language-server", "--stdio"),),
    "javascript": (("typescript-language-server", "--stdio"),),
    "go": (("gopls",),),
    "rust": (("rust-analyzer",),),
}
"""``true`` in ``index.languageServers`` → the first of these found on PATH or beside ipuaro's
own Python (its virtual environment). Never a project's ``node_modules``: that is the
repository's code, not a program the user chose."""

_CONFIG_LANGUAGE = {"tsx": "typescript", "jsx": "javascript"}
"""A file's language (the index's name) → the ``index.languageServers`` key it uses."""


def search_path(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    # relative entries (".", "node_modules/.bin", "") would find the project's own programs
    return absolute_path_entries(
        os.pathsep.join([env.get("PATH", ""), str(Path(sys.executable).parent)])
    )


def resolve_command(
    language: str, value: str | bool, environ: Mapping[str, str] | None = None
) -> list[str] | None:
    """The argv to start for ``language``; None when ``true`` finds no known server (or the
    value is ``false`` / empty)."""
    where = search_path(environ)
    if value is True:
        for candidate in DEFAULT_COMMANDS.get(language, ()):
            found = shutil.which(candidate[0], path=where)
            if found is not None:
                return [found, *candidate[1:]]
        return None
    if not isinstance(value, str) or not value.strip():
        return None
    argv = shlex.split(value)
    found = shutil.which(argv[0], path=where)
    return [found, *argv[1:]] if found is not None else argv


class LanguageServers:
    def __init__(
        self,
        root: Path,
        configured: Mapping[str, str | bool],
        store: Store,
        *,
        environ: Mapping[str, str] | None = None,
        request_timeout: float | None = None,
    ) -> None:
        self.root = root.resolve()
        self.store = store
        self.servers: dict[str, LanguageServer] = {}
        self.problems: list[str] = []
        """Configured languages with no server to start (``true`` found none)."""
        self._warmed = False
        self._warming = threading.Event()
        """Clear while :meth:`warm_in_background` runs."""
        self._warming.set()
        for language, value in configured.items():
            if value is False:
                continue
            argv = resolve_command(language, value, environ)
            if argv is None:
                known = ", ".join(c[0] for c in DEFAULT_COMMANDS.get(language, ())) or "none"
                self.problems.append(
                    f"{language}: no language server found (known: {known}); install one or "
                    f'give its command, e.g. "{language}": "NAME --stdio"'
                )
                continue
            options = {} if request_timeout is None else {"request_timeout": request_timeout}
            self.servers[language] = LanguageServer(language, argv, self.root, **options)

    def server_for(self, path: str) -> LanguageServer | None:
        language = language_for(path)
        if language is None:
            return None
        key = _CONFIG_LANGUAGE.get(language, language)
        server = self.servers.get(key)
        if server is None and key == "javascript":
            server = self.servers.get("typescript")  # typescript-language-server does both
        return server

    # --- questions (None: ask the index) ---------------------------------------------------
    def references(self, path: str, line: int, column: int, name: str) -> list[Location] | None:
        return self._answer("references", path, line, column, name)

    def definition(self, path: str, line: int, column: int, name: str) -> list[Location] | None:
        return self._answer("definition", path, line, column, name)

    def _answer(
        self, method: Method, path: str, line: int, column: int, name: str
    ) -> list[Location] | None:
        server = self.server_for(path)
        if server is None:
            return None
        try:
            data = self.store.get_file(path)
        except StoreError:
            return None
        if data is None:
            return None
        key = f"{method}|{server.language}|{path}|{line}|{column}|{data.hash}"
        cached, stale = self._cached(key)
        if cached is not None:
            return cached
        if stale:  # changed without the watcher telling us: the server may not know either
            server.files_changed([p for p in stale if self.server_for(p) is server])
        found = (
            server.references(path, line, column)
            if method == "references"
            else server.definition(path, line, column)
        )
        if found is None:
            return None
        self._keep(key, name, path, found)
        return found

    def _cached(self, key: str) -> tuple[list[Location] | None, list[str]]:
        """The answer cached under ``key``, or None and the files it named that changed."""
        try:
            text = self.store.get_server_answer(key)
            if text is None:
                return None, []
            stored = json.loads(text)
            hashes: dict[str, str] = stored["hashes"]
            now = self.store.get_files(hashes)
            stale = [p for p, h in hashes.items() if now.get(p) is None or now[p].hash != h]
            if stale:
                return None, stale  # a file it names changed since: ask again
            found = [Location(str(p), int(line), int(col)) for p, line, col in stored["locations"]]
            return found, []
        except (StoreError, ValueError, KeyError, TypeError) as err:
            log.info("cached language-server answer %s not used: %s", key, err)
            return None, []

    def _keep(self, key: str, name: str, path: str, found: list[Location]) -> None:
        paths = {path, *(loc.path for loc in found)}
        try:
            files = self.store.get_files(paths)
            answer = {
                "locations": [[loc.path, loc.line, loc.column] for loc in found],
                "hashes": {p: data.hash for p, data in files.items()},
            }
            self.store.put_server_answer(key, name, paths, json.dumps(answer))
        except StoreError as err:
            log.info("language-server answer not cached: %s", err)

    # --- warming ----------------------------------------------------------------------------
    def warm(self) -> list[str]:
        """Start, in the background, the server of each configured language the indexed
        project has files of (called once the index is in, so the first question can already
        go to the server); returns those languages. Only the first call does anything: a
        later index does not restart a server that failed (a question still may, within
        :data:`~ipuaro.index.lsp.server.MAX_STARTS`). Never raises and never waits."""
        if self._warmed:
            return []
        try:
            paths = self.store.file_hashes()
        except StoreError as err:
            log.info("language servers not started early: %s", err)
            return []
        self._warmed = True
        wanted: dict[str, LanguageServer] = {}
        for path in paths:
            server = self.server_for(path)
            if server is not None:
                wanted.setdefault(server.language, server)
                if len(wanted) == len(self.servers):
                    break
        for server in wanted.values():
            server.ready()  # starts it in a thread
        if wanted:
            log.info("language servers starting early: %s", ", ".join(sorted(wanted)))
        return sorted(wanted)

    def warm_in_background(self) -> None:
        """:meth:`warm` in a thread of its own: listing the stored files of a large project
        (Django: ~30 ms cold) stays off the caller's event loop."""
        self._warming.clear()
        threading.Thread(target=self._warm_quietly, name="ipuaro-lsp-warm", daemon=True).start()

    def _warm_quietly(self) -> None:
        try:
            self.warm()
        except Exception as err:  # the store closed under it (the session ended): no start
            log.info("language servers not started early: %s", err)
        finally:
            self._warming.set()

    def until_ready(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until every server started (by :meth:`warm`, in the
        background too, or a question) is ready, starting none; False when one is not (or
        none was started)."""
        deadline = time.monotonic() + timeout
        self._warming.wait(timeout)
        started = [s for s in self.servers.values() if s.state != "idle"]
        return bool(started) and all(
            s.until_ready(max(0.0, deadline - time.monotonic())) for s in started
        )

    # --- changes and life -------------------------------------------------------------------
    def files_changed(self, paths: Iterable[str]) -> None:
        """Project-relative paths that changed or went: drop the cached answers involving them
        or asking about a name they hold, and tell the running servers."""
        changed = sorted(set(paths))
        if not changed:
            return
        names: set[str] = set()
        for path in changed:
            try:
                indexes = self.store.get_file_indexes(path)
            except StoreError:
                indexes = None
            if indexes is not None:
                names.update(ref.name for ref in indexes.references)
                names.update(symbol.name for symbol in indexes.symbols)
        try:
            self.store.drop_server_answers(changed, names)
        except StoreError as err:
            log.warning("cached language-server answers not dropped: %s", err)
        by_server: dict[str, list[str]] = {}
        for path in changed:
            server = self.server_for(path)
            if server is not None:
                by_server.setdefault(server.language, []).append(path)
        for language, mine in by_server.items():
            self.servers[language].files_changed(mine)

    def describe(self) -> list[str]:
        """One line per configured language: its command and whether it is used."""
        return [server.describe() for server in self.servers.values()] + self.problems

    def close(self) -> None:
        for server in self.servers.values():
            server.close()
