"""Which secret files a project holds, for commands whose reads are not known in advance.

``cat $f``, ``grep -r KEY .`` or ``xargs cat`` read files that only appear at run time, so the
command policy asks before them when the folder they may read holds a secret file. Finding out
walks the tree once and keeps the answer for :data:`CACHE_S` seconds, so ``decide()`` stays fast
for a burst of commands and still notices a ``.env`` created a moment ago.

Folders of installed packages and tool caches (:data:`SKIPPED_DIRS`) are not searched: their
``*.pem``/``*.key`` files are test fixtures of the packages (``certifi/cacert.pem``), not the
project's secrets, and counting them would make every command with a run-time path ask. A
command that names such a folder directly is still checked file by file. A tree larger than
:data:`MAX_ENTRIES` is not finished: the answer is then "unknown" and the policy asks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE_S", "MAX_ENTRIES", "SKIPPED_DIRS", "SecretScan"]

CACHE_S = 3.0
MAX_ENTRIES = 50_000
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "site-packages",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)


@dataclass(frozen=True)
class _Result:
    secrets: tuple[str, ...]
    complete: bool
    taken_at: float


class SecretScan:
    """Secret files under a project root; ``is_secret`` classifies a root-relative path and
    ``inside`` maps a symlink's target back into the project (None if it leaves)."""

    def __init__(
        self,
        root: Path,
        is_secret: Callable[[str], bool],
        inside: Callable[[Path], str | None],
    ) -> None:
        self.root = root
        self._is_secret = is_secret
        self._inside = inside
        self._result: _Result | None = None

    def under(self, rel: str = ".") -> list[str] | None:
        """Secret files (and secret folders) at or below ``rel``; None when the project is too
        large to tell."""
        result = self._current()
        rel = rel.strip("/")
        if rel in ("", "."):
            found = list(result.secrets)
        else:
            found = [s for s in result.secrets if s == rel or s.startswith(rel + "/")]
            if not found and rel.split("/")[0] in SKIPPED_DIRS:
                return self._walk_one(rel)
        if not found and not result.complete:
            return None
        return found

    def _current(self) -> _Result:
        now = time.monotonic()
        if self._result is None or now - self._result.taken_at > CACHE_S:
            secrets, complete = self._walk(self.root, skip=True)
            self._result = _Result(tuple(secrets), complete, now)
        return self._result

    def _walk_one(self, rel: str) -> list[str] | None:
        start = self.root / rel
        if not start.is_dir():
            return []
        secrets, complete = self._walk(start, skip=False)
        return secrets if secrets or complete else None

    def _walk(self, start: Path, *, skip: bool) -> tuple[list[str], bool]:
        secrets: list[str] = []
        seen = 0
        stack = [start]
        while stack:
            directory = stack.pop()
            try:
                entries = list(os.scandir(directory))
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if seen > MAX_ENTRIES:
                    return secrets, False
                rel = Path(entry.path).relative_to(self.root).as_posix()
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    is_link = entry.is_symlink()
                except OSError:
                    continue
                if self._is_secret(rel):
                    secrets.append(rel)
                elif is_link:
                    target = self._inside(Path(entry.path))
                    if target is not None and target != "." and self._is_secret(target):
                        secrets.append(rel)
                elif is_dir and not (skip and entry.name in SKIPPED_DIRS):
                    stack.append(Path(entry.path))
        return sorted(secrets), True
