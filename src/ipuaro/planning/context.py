"""Fulfilling the model's ``context_requests`` (and auto-context) from the index and the disk.

``read_file`` reads the file from disk (the text the plan will be applied to; its sha256 goes
into the plan record), refusing paths outside the project and secret files; a missing path
gets "did you mean" names from the index. ``search`` looks through the indexed text (literal,
case-insensitive, an optional glob). ``logs`` shows the last lines of a project log file.
``env`` describes the environment (``planning.environment``).

Every answer is cached for the plan cycle (:class:`ContextCache`); hits and misses are counted
per kind for the trace.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pathspec

from ipuaro.domain.plan import ContextRequest
from ipuaro.planning.diet import (
    PRIORITY_ENV,
    PRIORITY_REQUESTED_FILE,
    PRIORITY_SEARCH,
    ContextBlock,
)
from ipuaro.planning.environment import describe_environment
from ipuaro.security.policy.paths import PathPolicy, PathRefused

if TYPE_CHECKING:
    from ipuaro.store.protocol import Store

SEARCH_MATCHES = 50
DEFAULT_LOG_LINES = 200
MAX_LOG_LINES = 2_000


@dataclass
class ContextCache:
    """Answers to context requests for one plan cycle, with hit/miss counts per kind."""

    blocks: dict[tuple[Any, ...], ContextBlock] = field(default_factory=dict)
    hits: dict[str, int] = field(default_factory=dict)
    misses: dict[str, int] = field(default_factory=dict)

    def get(self, key: tuple[Any, ...], make: Callable[[], ContextBlock]) -> ContextBlock:
        kind = str(key[0])
        if key in self.blocks:
            self.hits[kind] = self.hits.get(kind, 0) + 1
            return self.blocks[key]
        self.misses[kind] = self.misses.get(kind, 0) + 1
        block = make()
        self.blocks[key] = block
        return block

    def stats(self) -> dict[str, Any]:
        hits, misses = sum(self.hits.values()), sum(self.misses.values())
        return {
            "hits": hits,
            "misses": misses,
            "hitRate": round(hits / (hits + misses), 3) if hits + misses else 0.0,
            "byKind": {
                kind: {"hits": self.hits.get(kind, 0), "misses": self.misses.get(kind, 0)}
                for kind in sorted(set(self.hits) | set(self.misses))
            },
        }


def file_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ContextSource:
    """Reads what a plan may be shown; remembers the sha256 of every file text it showed."""

    def __init__(self, root: Path, store: Store, paths: PathPolicy) -> None:
        self.root = root
        self.store = store
        self.paths = paths
        self.cache = ContextCache()
        self.read_files: dict[str, str] = {}
        """Project path -> sha256 of the whole text of each file shown (``PlanRecord``)."""

    # --- the requests ---------------------------------------------------------------------

    def fulfil(self, request: ContextRequest) -> ContextBlock:
        key = (
            request.kind,
            request.path,
            request.start_line,
            request.end_line,
            request.query,
            request.glob,
            request.source,
            request.last_n,
        )
        block = self.cache.get(key, lambda: self._fulfil(request))
        if block.kind == "file" and block.path is not None and block.path not in self.read_files:
            # A cache hit from an earlier round still counts as shown.
            text = self.file_text(block.path)
            if text is not None:
                self.read_files[block.path] = file_sha256(text)
        return block

    def _fulfil(self, request: ContextRequest) -> ContextBlock:
        if request.kind == "read_file":
            return self.read_file(
                request.path or "", request.start_line, request.end_line, PRIORITY_REQUESTED_FILE
            )
        if request.kind == "search":
            return self.search(request.query or "", request.glob)
        if request.kind == "logs":
            return self.logs(request.source, request.last_n)
        return ContextBlock("env", "ENV", describe_environment(self.root), PRIORITY_ENV)

    # --- files ----------------------------------------------------------------------------

    def file_text(self, path: str) -> str | None:
        """The file's whole text from disk (None: missing, refused, not UTF-8)."""
        try:
            resolved = self.paths.resolve(path)
        except PathRefused:
            return None
        if self.paths.is_secret(resolved.rel) or not resolved.abs.is_file():
            return None
        try:
            with resolved.abs.open(encoding="utf-8", newline="") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError):
            return None

    def read_file(
        self, path: str, start: int | None, end: int | None, priority: int
    ) -> ContextBlock:
        title = f"FILE[{path}]"
        try:
            resolved = self.paths.resolve(path)
        except PathRefused as refused:
            return ContextBlock("file", title, f"(not shown: {refused.reason})", priority)
        rel = resolved.rel
        title = f"FILE[{rel}]"
        if self.paths.is_secret(rel):
            note = "(not shown: a secret file; the user has not allowed reading it)"
            return ContextBlock("file", title, note, priority)
        text = self.file_text(rel)
        if text is None:
            return ContextBlock("file", title, f"(not shown: {self._missing(rel)})", priority)
        self.read_files[rel] = file_sha256(text)
        lines = text.splitlines()
        first = max(1, start or 1)
        last = min(len(lines), end or len(lines))
        if start is None and end is None:
            title += f" ({len(lines)} lines)"
        else:
            title += f" lines {first}-{last} of {len(lines)}"
        numbered = "\n".join(f"{n}| {lines[n - 1]}" for n in range(first, last + 1))
        return ContextBlock("file", title, numbered or "(empty file)", priority, path=rel)

    def _missing(self, rel: str) -> str:
        if (self.root / rel).is_dir():
            return "it is a folder; ask for a file in it"
        known = list(self.store.file_hashes())
        close = difflib.get_close_matches(rel, known, n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        return f"no readable text file {rel!r} in the project{hint}"

    # --- search ---------------------------------------------------------------------------

    def search(self, query: str, glob: str | None) -> ContextBlock:
        title = f'SEARCH "{query}"' + (f" in {glob}" if glob else "")
        paths = sorted(self.store.file_hashes())
        if glob:
            spec = pathspec.GitIgnoreSpec.from_lines([glob])
            paths = [p for p in paths if spec.match_file(p)]
        candidates = self.store.files_containing(paths, query, case_sensitive=False)
        pattern = re.compile(re.escape(query), re.IGNORECASE)
        found: list[str] = []
        for path in candidates:
            if self.paths.is_secret(path):
                continue
            data = self.store.get_file(path)
            for number, line in enumerate(data.lines if data else [], start=1):
                if pattern.search(line):
                    found.append(f"{path}:{number}: {line.strip()[:200]}")
                    if len(found) >= SEARCH_MATCHES:
                        break
            if len(found) >= SEARCH_MATCHES:
                found.append(f"(stopped at {SEARCH_MATCHES} matches; narrow the query or glob)")
                break
        text = "\n".join(found) if found else "(no matches)"
        return ContextBlock("search", title, text, PRIORITY_SEARCH)

    # --- logs -----------------------------------------------------------------------------

    def logs(self, source: str | None, last_n: int | None) -> ContextBlock:
        count = min(max(1, last_n or DEFAULT_LOG_LINES), MAX_LOG_LINES)
        title = f"LOGS[{source or '?'}] last {count} lines"
        known = sorted(p for p in self.store.file_hashes() if p.endswith(".log"))
        text = self.file_text(source) if source else None
        if text is None:
            where = f"; log files in the project: {', '.join(known[:10])}" if known else ""
            note = (
                f"(no log {source!r}: ipuaro reads log files inside the project only; name one "
                f"as source{where})"
            )
            return ContextBlock("logs", title, note, PRIORITY_SEARCH)
        tail = text.splitlines()[-count:]
        return ContextBlock("logs", title, "\n".join(tail) or "(empty)", PRIORITY_SEARCH)
