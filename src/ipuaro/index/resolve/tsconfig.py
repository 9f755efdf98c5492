"""``tsconfig.json`` / ``jsconfig.json`` path aliases: ``baseUrl``, ``paths`` and ``extends``.

Each source file uses the nearest config up its folder tree (what editors do). ``extends`` chains
are followed (relative files, arrays as in TS 5, and packages under ``node_modules`` when present
on disk); ``baseUrl`` and ``paths`` are resolved against the config that defines them, as tsc
does. When the nearest config has no aliases but ``references`` other configs (the Vite/Angular
``tsconfig.app.json`` layout), the first referenced config with aliases is used.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, read_repo_bytes
from ipuaro.index.resolve import jsonc

CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_MAX_EXTENDS = 16


def join(folder: str, relative: str) -> str:
    """Project-relative normalised join (``..`` may climb above the root: callers check)."""
    joined = posixpath.normpath(posixpath.join(folder, relative)) if folder else relative
    joined = posixpath.normpath(joined)
    return "" if joined == "." else joined


@dataclass(frozen=True)
class PathAliases:
    base_url: str | None
    """Project-relative folder bare specifiers are tried against (``baseUrl``)."""
    paths_base: str
    """Folder ``paths`` targets are relative to: ``baseUrl`` if set, else the defining config's."""
    paths: tuple[tuple[str, tuple[str, ...]], ...]

    def match(self, specifier: str) -> tuple[str, list[str]] | None:
        """The best-matching ``paths`` pattern (longest prefix wins, exact beats wildcard) and
        its candidate project-relative bases, or None."""
        best: tuple[int, str, list[str]] | None = None
        for pattern, targets in self.paths:
            if "*" in pattern:
                prefix, _, suffix = pattern.partition("*")
                if not (
                    specifier.startswith(prefix)
                    and specifier.endswith(suffix)
                    and len(specifier) >= len(prefix) + len(suffix)
                ):
                    continue
                star = specifier[len(prefix) : len(specifier) - len(suffix)]
                score = len(prefix)
                bases = [join(self.paths_base, t.replace("*", star, 1)) for t in targets]
            elif pattern == specifier:
                score = 1 << 30
                bases = [join(self.paths_base, t) for t in targets]
            else:
                continue
            if best is None or score > best[0]:
                best = (score, pattern, bases)
        return None if best is None else (best[1], best[2])


@dataclass
class _Loaded:
    base_url: str | None = None
    paths: dict[str, list[str]] | None = None
    paths_dir: str = ""
    references: tuple[str, ...] = ()


class TsConfigs:
    """Finds and loads the alias settings that apply to a file. Config files are read from
    disk on first use and cached; :meth:`invalidate` after one changes."""

    def __init__(self, root: Path, files: Collection[str]) -> None:
        self.root = root
        self._files = files
        self._loaded: dict[str, _Loaded] = {}
        self._nearest: dict[str, str | None] = {}

    def invalidate(self) -> None:
        self._loaded.clear()
        self._nearest.clear()

    def for_file(self, rel: str) -> PathAliases | None:
        config_path = self._nearest_config(posixpath.dirname(rel))
        if config_path is None:
            return None
        loaded = self._load(config_path, 0)
        if loaded.paths is None and loaded.base_url is None:
            for reference in loaded.references:
                candidate = self._load(reference, 0)
                if candidate.paths is not None or candidate.base_url is not None:
                    loaded = candidate
                    break
        if loaded.paths is None and loaded.base_url is None:
            return None
        paths_base = loaded.base_url if loaded.base_url is not None else loaded.paths_dir
        paths = tuple(
            (pattern, tuple(t for t in targets if isinstance(t, str)))
            for pattern, targets in (loaded.paths or {}).items()
            if isinstance(targets, list)
        )
        return PathAliases(loaded.base_url, paths_base, paths)

    def _nearest_config(self, folder: str) -> str | None:
        if folder in self._nearest:
            return self._nearest[folder]
        found: str | None = None
        for name in CONFIG_NAMES:
            candidate = f"{folder}/{name}" if folder else name
            if candidate in self._files:
                found = candidate
                break
        if found is None and folder:
            found = self._nearest_config(posixpath.dirname(folder))
        self._nearest[folder] = found
        return found

    def _read(self, rel: str) -> dict[str, Any] | None:
        if rel.startswith(".."):
            return None
        try:
            raw = read_repo_bytes(self.root / rel, CONFIG_FILE_LIMIT)
            data = jsonc.loads(raw.decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    def _load(self, rel: str, depth: int) -> _Loaded:
        cached = self._loaded.get(rel)
        if cached is not None:
            return cached
        self._loaded[rel] = _Loaded()  # breaks extends cycles
        data = self._read(rel)
        result = _Loaded()
        if data is not None and depth < _MAX_EXTENDS:
            folder = posixpath.dirname(rel)
            extends = data.get("extends")
            parents = extends if isinstance(extends, list) else [extends] if extends else []
            for parent in parents:
                if not isinstance(parent, str):
                    continue
                parent_rel = self._extends_target(folder, parent)
                if parent_rel is not None:
                    inherited = self._load(parent_rel, depth + 1)
                    result = _Loaded(
                        inherited.base_url if inherited.base_url is not None else result.base_url,
                        inherited.paths if inherited.paths is not None else result.paths,
                        inherited.paths_dir if inherited.paths is not None else result.paths_dir,
                    )
            options = data.get("compilerOptions")
            if isinstance(options, dict):
                if isinstance(options.get("baseUrl"), str):
                    result.base_url = join(folder, options["baseUrl"])
                if isinstance(options.get("paths"), dict):
                    result.paths = options["paths"]
                    result.paths_dir = folder
            references = data.get("references")
            if isinstance(references, list):
                result.references = tuple(
                    self._reference_target(folder, item["path"])
                    for item in references
                    if isinstance(item, dict) and isinstance(item.get("path"), str)
                )
        self._loaded[rel] = result
        return result

    def _extends_target(self, folder: str, spec: str) -> str | None:
        if spec.startswith((".", "/")):
            target = join(folder, spec)
            if not target.endswith(".json") and not (self.root / target).is_file():
                target += ".json"
            return target
        # A shared config package (``@tsconfig/node20/tsconfig.json``): only if installed.
        for candidate in (spec, f"{spec}.json", f"{spec}/tsconfig.json"):
            target = join("node_modules", candidate)
            if (self.root / target).is_file():
                return target
        return None

    def _reference_target(self, folder: str, spec: str) -> str:
        target = join(folder, spec)
        return target if target.endswith(".json") else join(target, "tsconfig.json")
