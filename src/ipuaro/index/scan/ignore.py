"""Which project paths are never indexed: ``.git/`` and ``.ipuaro/``, ipuaro's own temp files
(:mod:`ipuaro.domain.tempfiles`), the config's ignore patterns, ``.gitignore`` rules.

Git semantics: a ``.gitignore`` in a folder applies to paths below it with patterns relative to
that folder; the deepest file with a matching pattern decides (negations included); a path inside
an ignored folder stays ignored whatever deeper files say. ``.git/info/exclude`` is the
lowest-precedence root file. The config's ``project.ignorePatterns`` are a separate
gitignore-style list (root-relative) that always wins: "never indexed" means never.

Specs are loaded lazily per folder and cached, so the watcher can ask about any path cheaply and
drop a folder's cache entry when its ``.gitignore`` is edited.

Ignore files are repository content: only a regular file is read, up to a size cap, and a list
holds at most :data:`MAX_PATTERNS` patterns (every path is matched against every pattern, so
400,000 of them would stall indexing); what is cut is said once in :attr:`ProjectIgnore.notices`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from pathspec import GitIgnoreSpec

from ipuaro.config.schema import Config
from ipuaro.domain.repofiles import TEXT_FILE_LIMIT, read_repo_bytes
from ipuaro.domain.tempfiles import is_temp_name

GIT_DIR = ".git"
OWN_DIR = ".ipuaro"
"""ipuaro's own per-project state (preferences, traces): never indexed, and never a reason
for the watcher to re-index (a trace written per request would loop)."""
ALWAYS_EXCLUDED = frozenset({GIT_DIR, OWN_DIR})
GITIGNORE = ".gitignore"
MAX_PATTERNS = 5_000
"""Most patterns used from one ignore file or from ``project.ignorePatterns``."""


def _read_lines(path: Path, notices: list[str]) -> list[str] | None:
    try:
        raw = read_repo_bytes(path, TEXT_FILE_LIMIT)
    except FileNotFoundError:
        return None
    except OSError as error:  # a FIFO, a device, a huge file: said, never read
        notices.append(f"ignore rules not read: {error}")
        return None
    # A .gitignore that is not UTF-8 is still usable for its ASCII patterns.
    lines = raw.decode("utf-8", errors="replace").splitlines()
    return _capped(lines, str(path), notices)


def _capped(lines: list[str], source: str, notices: list[str]) -> list[str]:
    patterns = [line for line in lines if line.strip() and not line.startswith("#")]
    if len(patterns) <= MAX_PATTERNS:
        return patterns
    notices.append(
        f"{source}: {len(patterns):,} ignore patterns; only the first {MAX_PATTERNS:,} are "
        "used (so indexing does not stall): shorten the list"
    )
    return patterns[:MAX_PATTERNS]


class ProjectIgnore:
    """Answers ``is_ignored(rel, is_dir)`` for project-relative POSIX paths."""

    def __init__(
        self,
        root: Path,
        ignore_patterns: Iterable[str] = (),
        excluded_paths: Iterable[str] = (),
    ) -> None:
        self.root = root
        self._excluded = frozenset(excluded_paths)
        """Exact project-relative paths never indexed (a store database kept in the project)."""
        self.notices: list[str] = []
        """Ignore rules not read or cut short, one line each."""
        patterns = _capped(list(ignore_patterns), "project.ignorePatterns", self.notices)
        self._config_spec = GitIgnoreSpec.from_lines(patterns)
        self._specs: dict[str, GitIgnoreSpec | None] = {}
        self._dir_ignored: dict[str, bool] = {}
        lines = _read_lines(root / GIT_DIR / "info" / "exclude", self.notices)
        self._exclude_spec = GitIgnoreSpec.from_lines(lines) if lines else None

    @classmethod
    def from_root(
        cls, root: Path, config: Config, excluded_paths: Iterable[str] = ()
    ) -> ProjectIgnore:
        return cls(root, config.project.ignore_patterns, excluded_paths)

    # --- cache control ------------------------------------------------------------------
    def invalidate(self, folder: str = "") -> None:
        """Forget the cached rules of ``folder`` (its ``.gitignore`` changed) and every
        cached folder verdict, which may depend on it."""
        self._specs.pop(folder, None)
        self._dir_ignored.clear()

    def is_gitignore(self, rel: str) -> bool:
        return rel == GITIGNORE or rel.endswith("/" + GITIGNORE)

    # --- queries ------------------------------------------------------------------------
    def is_ignored(self, rel: str, is_dir: bool = False) -> bool:
        """Whether ``rel`` (or any folder above it) is excluded from the index."""
        rel = rel.strip("/")
        if not rel or rel == ".":
            return False
        parts = rel.split("/")
        prefix = ""
        for part in parts[:-1]:
            prefix = f"{prefix}/{part}" if prefix else part
            if self._folder_ignored(prefix):
                return True
        return self.matches(rel, is_dir)

    def _folder_ignored(self, folder: str) -> bool:
        cached = self._dir_ignored.get(folder)
        if cached is None:
            cached = self.matches(folder, True)
            self._dir_ignored[folder] = cached
        return cached

    def matches(self, rel: str, is_dir: bool) -> bool:
        """The path's own verdict, assuming no folder above it is ignored (the scanner prunes
        ignored folders, so it only needs this)."""
        name = rel.rsplit("/", 1)[-1]
        if name in ALWAYS_EXCLUDED or rel in self._excluded:
            return True
        if not is_dir and is_temp_name(name):  # an atomic write in progress, or a killed one
            return True
        probe = rel + "/" if is_dir else rel
        if self._config_spec.match_file(probe):
            return True
        parent = rel.rsplit("/", 1)[0] if "/" in rel else ""
        folder: str | None = parent
        while folder is not None:
            spec = self._spec_for(folder)
            if spec is not None:
                local = probe[len(folder) + 1 :] if folder else probe
                verdict = spec.check_file(local).include
                if verdict is not None:
                    return verdict
            folder = None if not folder else (folder.rsplit("/", 1)[0] if "/" in folder else "")
        if self._exclude_spec is not None:
            return self._exclude_spec.check_file(probe).include is True
        return False

    def _spec_for(self, folder: str) -> GitIgnoreSpec | None:
        if folder in self._specs:
            return self._specs[folder]
        path = self.root / folder / GITIGNORE if folder else self.root / GITIGNORE
        spec: GitIgnoreSpec | None = None
        if os.path.lexists(path):
            lines = _read_lines(path, self.notices)
            if lines:
                spec = GitIgnoreSpec.from_lines(lines)
        self._specs[folder] = spec
        return spec
