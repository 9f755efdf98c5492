"""Resolve an import specifier written in one project file to another project file.

JavaScript / TypeScript, in order: ``node:`` builtins; relative paths; ``tsconfig`` ``paths``
then ``baseUrl``; workspace packages by name (every ``package.json`` with a ``name`` in the
project, which covers npm/yarn/pnpm workspaces and lerna alike), with subpaths
(``@scope/pkg/sub``) through the package's ``exports`` map or its folder. Probing tries the
exact file, ``.js``→``.ts`` (TS ESM style), the extensions in :data:`PROBE_EXTENSIONS`, a
folder's ``package.json`` entry fields and finally ``index.*``.

The languages read by their tags query (Go, Rust, Java, C, Ruby, PHP, …): ``resolver_langs``.

Python: relative imports (``from ..a import b``) from the file's package; absolute imports
whose top-level package or module exists under a source root (the project root, ``src/``, and
the parent of every top-level package, so src-layout and django's ``tests/`` work). For
``from pkg import name`` a submodule ``pkg/name.py`` wins over ``pkg/__init__.py``.

A :class:`Resolution` says whether the specifier is internal (relative, an alias pattern, a
workspace package, a project python package) and the file it reached, if any.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, read_repo_bytes
from ipuaro.index.resolve.resolver_langs import MANIFESTS, RESOLVED_TAGS_LANGUAGES, TagsResolver
from ipuaro.index.resolve.tsconfig import TsConfigs, join

PROBE_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json")
_JS_TO_TS = {
    ".js": (".ts", ".tsx", ".d.ts"),
    ".jsx": (".tsx",),
    ".mjs": (".mts", ".d.mts"),
    ".cjs": (".cts", ".d.cts"),
}
_ENTRY_FIELDS = ("types", "typings", "module", "main", "source")
_EXPORT_CONDITIONS = ("types", "import", "module", "default", "require", "node", "browser")
JS_LANGUAGES = frozenset({"typescript", "tsx", "javascript", "jsx"})
CONFIG_BASENAMES = frozenset({"tsconfig.json", "jsconfig.json", "package.json"})


@dataclass(frozen=True, slots=True)
class Resolution:
    path: str | None
    """Project-relative file the specifier reaches, or None."""
    internal: bool
    """Whether the specifier points into the project (even if no file matched)."""


EXTERNAL = Resolution(None, False)


def is_layout_file(rel: str) -> bool:
    """Files whose appearance, removal or edit changes how imports resolve."""
    name = rel.rsplit("/", 1)[-1]
    return (
        name in CONFIG_BASENAMES
        or name in MANIFESTS
        or (name.startswith("tsconfig") and name.endswith(".json"))
    )


class ProjectLayout:
    """Everything resolution needs, derived from the project's file list (cheap to rebuild)."""

    def __init__(self, root: Path, files: Collection[str]) -> None:
        self.root = root
        self.files: set[str] = set(files)
        self._tsconfigs = TsConfigs(root, self.files)
        self._packages: dict[str, str] | None = None
        self._package_json: dict[str, dict[str, Any]] = {}
        self._py_roots: dict[str, list[str]] | None = None
        self._tags = TagsResolver(root, self.files)

    @classmethod
    def load(cls, root: Path, files: Collection[str]) -> ProjectLayout:
        return cls(root, files)

    def update(self, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None:
        """Track file-set changes; derived maps are rebuilt lazily when they may differ."""
        changed = False
        for rel in added:
            if rel not in self.files:
                self.files.add(rel)
                changed = True
        for rel in removed:
            if rel in self.files:
                self.files.discard(rel)
                changed = True
        if changed:
            self.invalidate()

    def invalidate(self) -> None:
        """Forget cached configs (a tsconfig/package.json was edited, or files moved)."""
        self._tsconfigs.invalidate()
        self._packages = None
        self._package_json.clear()
        self._py_roots = None
        self._tags.invalidate()

    # --- entry point ----------------------------------------------------------------------
    def resolve(
        self, from_path: str, specifier: str, language: str | None, name: str | None = None
    ) -> Resolution:
        """``name`` is the imported name of ``from X import name`` (Python submodules)."""
        if not specifier:
            return EXTERNAL
        if language == "python":
            return self._resolve_python(from_path, specifier, name)
        if language in JS_LANGUAGES:
            return self._resolve_js(from_path, specifier)
        if language in RESOLVED_TAGS_LANGUAGES:
            found = self._tags.resolve(from_path, specifier, language)
            return Resolution(found, found is not None)
        return EXTERNAL

    # --- JavaScript / TypeScript ------------------------------------------------------------
    def _resolve_js(self, from_path: str, specifier: str) -> Resolution:
        if specifier.startswith("node:"):
            return EXTERNAL
        specifier = specifier.split("?", 1)[0].split("#", 1)[0] or specifier
        if specifier.startswith(("./", "../")) or specifier in (".", ".."):
            base = join(posixpath.dirname(from_path), specifier)
            return Resolution(self._probe(base), True)
        if specifier.startswith("/"):
            return Resolution(self._probe(specifier.lstrip("/")), True)
        aliases = self._tsconfigs.for_file(from_path)
        if aliases is not None:
            matched = aliases.match(specifier)
            if matched is not None:
                pattern, bases = matched
                for base in bases:
                    found = self._probe(base)
                    if found is not None:
                        return Resolution(found, True)
                if pattern != "*":  # a catch-all "*" mapping says nothing about intent
                    return Resolution(None, True)
            if aliases.base_url is not None:
                found = self._probe(join(aliases.base_url, specifier))
                if found is not None:
                    return Resolution(found, True)
        package = self._workspace_package(specifier)
        if package is not None:
            name, folder = package
            subpath = specifier[len(name) + 1 :]
            return Resolution(self._resolve_package(folder, subpath), True)
        return EXTERNAL

    def _probe(self, base: str, *, entry_fields: bool = True) -> str | None:
        if not base or base.startswith(".."):
            return None
        files = self.files
        if base in files:
            return base
        stem, ext = posixpath.splitext(base)
        for replacement in _JS_TO_TS.get(ext, ()):
            if stem + replacement in files:
                return stem + replacement
        for extension in PROBE_EXTENSIONS:
            if base + extension in files:
                return base + extension
        if entry_fields and f"{base}/package.json" in files:
            manifest = self._manifest(f"{base}/package.json")
            for entry in _entry_points(manifest, "."):
                found = self._probe(join(base, entry), entry_fields=False)
                if found is not None:
                    return found
        for extension in PROBE_EXTENSIONS:
            candidate = f"{base}/index{extension}"
            if candidate in files:
                return candidate
        return None

    def _manifest(self, rel: str) -> dict[str, Any]:
        cached = self._package_json.get(rel)
        if cached is None:
            try:
                raw = read_repo_bytes(self.root / rel, CONFIG_FILE_LIMIT)
                data = json.loads(raw.decode("utf-8"))
            except (OSError, ValueError, RecursionError):
                data = {}
            cached = data if isinstance(data, dict) else {}
            self._package_json[rel] = cached
        return cached

    def _workspace_package(self, specifier: str) -> tuple[str, str] | None:
        if self._packages is None:
            packages: dict[str, str] = {}
            for rel in sorted(self.files):
                if rel == "package.json" or rel.endswith("/package.json"):
                    name = self._manifest(rel).get("name")
                    if isinstance(name, str) and name and name not in packages:
                        packages[name] = posixpath.dirname(rel)
            self._packages = packages
        parts = specifier.split("/")
        candidates = ["/".join(parts[:2]), parts[0]] if specifier.startswith("@") else [parts[0]]
        for name in candidates:
            folder = self._packages.get(name)
            if folder is not None:
                return name, folder
        return None

    def _resolve_package(self, folder: str, subpath: str) -> str | None:
        manifest_rel = f"{folder}/package.json" if folder else "package.json"
        manifest = self._manifest(manifest_rel)
        key = f"./{subpath}" if subpath else "."
        for entry in _entry_points(manifest, key):
            found = self._probe(join(folder, entry), entry_fields=False)
            if found is not None:
                return found
        if subpath:
            for base in (join(folder, subpath), join(folder, "src/" + subpath)):
                found = self._probe(base, entry_fields=False)
                if found is not None:
                    return found
            return None
        for base in (join(folder, "src/index"), join(folder, "index")):
            found = self._probe(base, entry_fields=False)
            if found is not None:
                return found
        return None

    # --- Python -----------------------------------------------------------------------------
    def _resolve_python(self, from_path: str, specifier: str, name: str | None) -> Resolution:
        submodule = name if name and name.isidentifier() else None
        if specifier.startswith("."):
            level = len(specifier) - len(specifier.lstrip("."))
            folder = posixpath.dirname(from_path)
            for _ in range(level - 1):
                if not folder:
                    return Resolution(None, True)
                folder = posixpath.dirname(folder)
            rest = specifier[level:]
            base = join(folder, rest.replace(".", "/")) if rest else folder
            return Resolution(self._probe_python(base, submodule), True)
        top = specifier.split(".", 1)[0]
        roots = self._python_roots().get(top)
        if not roots:
            return EXTERNAL
        for root in sorted(roots, key=lambda r: _root_rank(r, from_path)):
            base = join(root, specifier.replace(".", "/"))
            found = self._probe_python(base, submodule)
            if found is not None:
                return Resolution(found, True)
        return Resolution(None, True)

    def _probe_python(self, base: str, submodule: str | None) -> str | None:
        files = self.files
        prefix = f"{base}/" if base else ""
        if submodule is not None:
            for candidate in (f"{prefix}{submodule}.py", f"{prefix}{submodule}/__init__.py"):
                if candidate in files:
                    return candidate
        candidates: tuple[str, ...] = (f"{prefix}__init__.py", f"{prefix}__init__.pyi")
        if base:
            candidates = (f"{base}.py", f"{base}.pyi", *candidates)
        for candidate in candidates:
            if candidate in files:
                return candidate
        return None

    def _python_roots(self) -> dict[str, list[str]]:
        """Top-level importable name → source roots that provide it."""
        if self._py_roots is not None:
            return self._py_roots
        files = self.files
        roots = {"", "src"}
        for rel in files:
            if rel.endswith("/__init__.py"):
                package = posixpath.dirname(rel)
                parent = posixpath.dirname(package)
                if (f"{parent}/__init__.py" if parent else "__init__.py") not in files:
                    roots.add(parent)
        names: dict[str, list[str]] = {}
        for rel in files:
            if not rel.endswith((".py", ".pyi")):
                continue
            folder = posixpath.dirname(rel)
            # The file itself as a top-level module of its folder's root.
            if folder in roots:
                module = posixpath.basename(rel).rsplit(".", 1)[0]
                if module != "__init__":
                    _add(names, module, folder)
            # The first folder below each enclosing root, as a (regular or namespace) package.
            parts = rel.split("/")
            for depth in range(len(parts) - 1):
                root = "/".join(parts[:depth])
                if root in roots:
                    package = parts[depth]
                    regular = f"{root}/{package}/__init__.py" if root else f"{package}/__init__.py"
                    if regular in files or root in ("", "src"):
                        _add(names, package, root)
        self._py_roots = names
        return names


def _add(names: dict[str, list[str]], name: str, root: str) -> None:
    bucket = names.setdefault(name, [])
    if root not in bucket:
        bucket.append(root)


def _root_rank(root: str, from_path: str) -> tuple[int, int, str]:
    """The importing file's own root first, then the project root, then ``src``, then others."""
    own = 0 if root and from_path.startswith(root + "/") else 1
    return (own, {"": 0, "src": 1}.get(root, 2), root)


def _entry_points(manifest: dict[str, Any], key: str) -> list[str]:
    """Files a package.json points at for ``key`` (``.`` or ``./sub``), most specific first."""
    found: list[str] = []
    exports = manifest.get("exports")
    target: Any = None
    if isinstance(exports, str) and key == ".":
        target = exports
    elif isinstance(exports, dict):
        if key in exports:
            target = exports[key]
        elif key == "." and not any(k.startswith(".") for k in exports):
            target = exports  # conditions at the top level
        else:
            for pattern, value in exports.items():
                if "*" in pattern:
                    prefix, _, suffix = pattern.partition("*")
                    if key.startswith(prefix) and key.endswith(suffix):
                        star = key[len(prefix) : len(key) - len(suffix)]
                        target = _replace_star(value, star)
                        break
    found.extend(_condition_targets(target))
    if key == ".":
        found.extend(v for f in _ENTRY_FIELDS if isinstance(v := manifest.get(f), str))
    return found


def _replace_star(value: Any, star: str) -> Any:
    if isinstance(value, str):
        return value.replace("*", star)
    if isinstance(value, dict):
        return {k: _replace_star(v, star) for k, v in value.items()}
    return value


def _condition_targets(target: Any) -> list[str]:
    if isinstance(target, str):
        return [target]
    if isinstance(target, list):
        return [t for item in target for t in _condition_targets(item)]
    if isinstance(target, dict):
        ordered = [target[c] for c in _EXPORT_CONDITIONS if c in target]
        ordered += [v for k, v in target.items() if k not in _EXPORT_CONDITIONS]
        return [t for item in ordered for t in _condition_targets(item)]
    return []
