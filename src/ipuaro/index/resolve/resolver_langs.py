"""Resolve imports of the languages read by their tags query (``parsers._tags``) to files.

Each language's module system, as far as the file list (and one manifest) can tell:

- Go: an import path under a ``go.mod``'s ``module`` is the package folder below that
  ``go.mod``; other paths (the standard library, other modules) are external.
- Rust: ``crate::a::b::C`` from the crate's ``src/``, ``super::``/``self::`` from the importing
  module's folder, ``mod name;`` beside it; the longest prefix that is a file (``a/b.rs`` or
  ``a/b/mod.rs``) wins, since the tail names items inside it.
- Java, Kotlin, Scala: ``a.b.C`` is a file ending in ``a/b/C.<ext>`` (source roots such as
  ``src/main/java`` are any prefix); a static import or nested class falls back to its
  outer name; a package (``a.b.*``) is its folder.
- C, C++, Arduino: ``#include "x.h"`` beside the including file, then any project file whose
  path ends with ``x.h`` (include folders); ``<a/b.h>`` only when the project has such a file.
- Ruby: ``require_relative`` beside the file; ``require "a/b"`` under a ``lib/`` or anywhere
  the path ends with ``a/b.rb``.
- PHP: ``require``/``include`` paths beside the file or from the root; ``use A\\B\\C`` through
  ``composer.json``'s PSR-4 map, else a file whose path ends with the namespace path.
- C#: ``using A.B;`` names a namespace: best effort, the folder whose path ends with ``A/B``
  (or ``B``, when only one folder has that name); ``using static A.B.C`` a file ``C.cs``.
- Lua ``require "a.b"`` (``a/b.lua``, ``a/b/init.lua``), Elixir ``alias A.B`` (``a/b.ex``),
  Haskell ``import A.B`` (``A/B.hs``), and relative paths in Zig, Julia, Solidity, Bash and
  Terraform (a module folder reaches its ``main.tf``).

A package or namespace is a folder of files while an import edge names one file: the edge
goes to the folder's file named like the folder (``units/units.go``), else its first file in
path order (tests excluded). Files of the other languages (OCaml, Fortran, Common Lisp,
MATLAB, Swift) name modules that the file list cannot place; their imports stay as the query
classified them.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Final

from ipuaro.domain.repofiles import TEXT_FILE_LIMIT, read_repo_bytes
from ipuaro.index.resolve.tsconfig import join

_FAMILIES: Final[dict[str, tuple[str, ...]]] = {
    "go": (".go",),
    "rust": (".rs",),
    "jvm": (".java", ".kt", ".kts", ".scala"),
    "c": (".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".c", ".cc", ".cpp", ".cxx", ".ino"),
    "ruby": (".rb",),
    "php": (".php",),
    "c_sharp": (".cs",),
    "lua": (".lua",),
    "elixir": (".ex", ".exs"),
    "haskell": (".hs",),
    "hcl": (".tf",),
}
LANGUAGE_FAMILY: Final[dict[str, str]] = {
    "go": "go",
    "rust": "rust",
    "java": "jvm",
    "kotlin": "jvm",
    "scala": "jvm",
    "c": "c",
    "cpp": "c",
    "arduino": "c",
    "ruby": "ruby",
    "php": "php",
    "c_sharp": "c_sharp",
    "lua": "lua",
    "elixir": "elixir",
    "haskell": "haskell",
    "hcl": "hcl",
    "zig": "path",
    "julia": "path",
    "solidity": "path",
    "bash": "path",
}
RESOLVED_TAGS_LANGUAGES: Final = frozenset(LANGUAGE_FAMILY)
"""Tags languages whose imports :class:`TagsResolver` resolves."""
MANIFESTS: Final = frozenset({"go.mod", "Cargo.toml", "composer.json"})
"""Files whose edits change how these languages resolve."""
_GO_MODULE: Final = re.compile(r"^\s*module\s+(\S+)", re.MULTILINE)
_JVM_PACKAGE: Final = re.compile(r"^\s*package\s+([\w.]+)", re.MULTILINE)
_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_TEST_FILE: Final = re.compile(r"(_test\.go|Test\.java|Tests?\.cs|_spec\.rb|_test\.rb)$")


class TagsResolver:
    """Resolution for the tags languages; shares the live file set of its ``ProjectLayout``."""

    def __init__(self, root: Path, files: set[str]) -> None:
        self.root = root
        self.files = files
        self._suffixes: dict[str, dict[str, list[str]]] = {}
        self._folders: dict[str, dict[str, list[str]]] = {}
        self._members: dict[str, list[str]] | None = None
        self._packages: dict[str, list[str]] = {}
        self._go_modules: list[tuple[str, str]] | None = None
        self._psr4: list[tuple[str, str]] | None = None

    def invalidate(self) -> None:
        self._suffixes.clear()
        self._folders.clear()
        self._members = None
        self._packages.clear()
        self._go_modules = None
        self._psr4 = None

    def resolve(self, from_path: str, specifier: str, language: str) -> str | None:
        """The project file ``specifier`` (written in ``from_path``) reaches, or None."""
        family = LANGUAGE_FAMILY.get(language)
        if family is None:
            return None
        resolver: Callable[[str, str], str | None] = getattr(self, f"_{family}")
        return resolver(from_path, specifier.strip())

    # --- per language ---------------------------------------------------------------------
    def _go(self, from_path: str, specifier: str) -> str | None:
        if specifier.startswith(("./", "../")):
            return self._package(join(posixpath.dirname(from_path), specifier), "go")
        for folder, module in self._go_mods():
            if specifier == module or specifier.startswith(module + "/"):
                return self._package(join(folder, specifier[len(module) + 1 :]), "go")
        return None

    def _rust(self, from_path: str, specifier: str) -> str | None:
        path = specifier.split("::{", 1)[0].removesuffix("::*").replace(" ", "")
        segments = [s for s in path.split("::") if s]
        if not segments:
            return None
        here = _rust_module_folder(from_path)
        head = segments[0]
        if head == "crate":
            base, segments = _rust_crate_src(from_path, self.files), segments[1:]
        elif head in ("super", "self"):
            base = here
            while segments and segments[0] in ("super", "self"):
                if segments.pop(0) == "super":
                    base = posixpath.dirname(base)
        elif len(segments) == 1:
            base = here  # `mod name;` beside the module that declares it
        else:
            return None  # another crate
        for end in range(len(segments), 0, -1):
            stem = join(base, "/".join(segments[:end]))
            for candidate in (f"{stem}.rs", f"{stem}/mod.rs"):
                if candidate in self.files:
                    return candidate
        # an item of the module itself (`crate::f`, `super::*`, `self::Kind::*`)
        prefix = f"{base}/" if base else ""
        for candidate in (f"{prefix}mod.rs", f"{prefix}lib.rs", f"{prefix}main.rs", f"{base}.rs"):
            if candidate in self.files and head in ("crate", "super", "self"):
                return candidate
        return None

    def _jvm(self, from_path: str, specifier: str) -> str | None:
        path = specifier.split("{", 1)[0].removesuffix(".*").removesuffix("._").rstrip(".")
        path = path.removeprefix("static ").strip()
        segments = [s for s in path.split(".") if s]
        if len(segments) < 2:
            return None
        found = self._by_suffix("/".join(segments), "jvm")
        if found is None:
            found = self._package_by_suffix("/".join(segments), "jvm")
        if found is None and len(segments) > 2:
            found = self._by_suffix("/".join(segments[:-1]), "jvm")
        if found is None:
            found = self._by_own_package(from_path, segments)
        return found

    def _by_own_package(self, from_path: str, segments: list[str]) -> str | None:
        """Through the importing file's own ``package`` line when its folders do not spell the
        package (a source tree rooted inside it): the folder of package ``a.b`` is the file's,
        so ``a.c.D`` is ``../c/D.<ext>`` from there."""
        package = self._package_of(from_path)
        if not package:
            return None
        common = 0
        for own, imported in zip(package, segments, strict=False):
            if own != imported:
                break
            common += 1
        if common == 0:
            return None
        folder = posixpath.dirname(from_path)
        for _ in range(len(package) - common):
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        rest = segments[common:]
        for end in (len(rest), len(rest) - 1):  # a class, else a member of one
            if end <= 0:
                continue
            stem = join(folder, "/".join(rest[:end]))
            for extension in _FAMILIES["jvm"]:
                if stem + extension in self.files:
                    return stem + extension
        return self._package(join(folder, "/".join(rest)), "jvm") if rest else None

    def _package_of(self, path: str) -> list[str]:
        cached = self._packages.get(path)
        if cached is None:
            head = self._read(path)[:4096]
            match = _JVM_PACKAGE.search(head)
            cached = self._packages[path] = match.group(1).split(".") if match else []
        return cached

    def _c(self, from_path: str, specifier: str) -> str | None:
        beside = join(posixpath.dirname(from_path), specifier)
        if beside in self.files:
            return beside
        if specifier in self.files:
            return specifier
        return self._by_suffix(specifier, "c", near=from_path, keep_extension=True)

    def _ruby(self, from_path: str, specifier: str) -> str | None:
        name = specifier.removesuffix(".rb")
        beside = join(posixpath.dirname(from_path), name) + ".rb"
        if beside in self.files:
            return beside
        return self._by_suffix(name, "ruby", near=from_path)

    def _php(self, from_path: str, specifier: str) -> str | None:
        if specifier.endswith(".php"):
            relative = specifier.lstrip("/")
            for candidate in (join(posixpath.dirname(from_path), relative), relative):
                if candidate in self.files:
                    return candidate
            return self._by_suffix(relative, "php", near=from_path, keep_extension=True)
        name = specifier.lstrip("\\")
        for prefix, folder in self._psr4_map():
            if name.startswith(prefix):
                candidate = join(folder, name[len(prefix) :].replace("\\", "/")) + ".php"
                if candidate in self.files:
                    return candidate
        segments = name.split("\\")
        if len(segments) < 2:
            return None
        for start in range(len(segments) - 1):
            found = self._by_suffix("/".join(segments[start:]), "php")
            if found is not None:
                return found
        return None

    def _c_sharp(self, from_path: str, specifier: str) -> str | None:
        name = specifier.removeprefix("global::").removeprefix("static ").strip()
        name = name.split("=", 1)[-1].strip()  # using Alias = A.B.C;
        segments = [s for s in name.split(".") if s]
        if not segments:
            return None
        for start in range(len(segments)):
            tail = "/".join(segments[start:])
            if start == len(segments) - 1:
                folders = self._folder_index("c_sharp").get(tail, [])
                if len(folders) == 1:
                    return self._package(folders[0], "c_sharp")
                return self._by_suffix(tail, "c_sharp", unique=True)
            found = self._package_by_suffix(tail, "c_sharp") or self._by_suffix(tail, "c_sharp")
            if found is not None:
                return found
        return None

    def _lua(self, from_path: str, specifier: str) -> str | None:
        name = specifier.replace(".", "/")
        for candidate in (f"{name}.lua", f"{name}/init.lua"):
            if candidate in self.files:
                return candidate
        return self._by_suffix(name, "lua", near=from_path)

    def _elixir(self, from_path: str, specifier: str) -> str | None:
        segments = specifier.split(".")
        if len(segments) < 2 and not specifier[:1].isupper():
            return None
        snake = "/".join(_CAMEL.sub("_", s).lower() for s in segments)
        return self._by_suffix(snake, "elixir", near=from_path)

    def _haskell(self, from_path: str, specifier: str) -> str | None:
        return self._by_suffix(specifier.replace(".", "/"), "haskell", near=from_path)

    def _hcl(self, from_path: str, specifier: str) -> str | None:
        if not specifier.startswith(("./", "../")):
            return None
        return self._package(join(posixpath.dirname(from_path), specifier), "hcl")

    def _path(self, from_path: str, specifier: str) -> str | None:
        if specifier.startswith("/"):
            return None
        for candidate in (join(posixpath.dirname(from_path), specifier), specifier):
            if candidate in self.files:
                return candidate
        return None

    # --- file-set indexes -----------------------------------------------------------------
    def _by_suffix(
        self,
        tail: str,
        family: str,
        *,
        near: str = "",
        keep_extension: bool = False,
        unique: bool = False,
    ) -> str | None:
        """The file whose path (without its extension, unless ``keep_extension``) ends with
        ``tail`` at a folder boundary; the one sharing most folders with ``near`` if several."""
        index = self._suffix_index(family, keep_extension)
        found = index.get(tail)
        if not found or (unique and len(found) > 1):
            return None
        if len(found) == 1 or not near:
            return found[0]
        return max(found, key=lambda path: (_shared_folders(path, near), -len(path)))

    def _suffix_index(self, family: str, keep_extension: bool) -> dict[str, list[str]]:
        key = f"{family}:{keep_extension}"
        index = self._suffixes.get(key)
        if index is None:
            index = {}
            for rel in sorted(self.files):
                stem, extension = posixpath.splitext(rel)
                if extension not in _FAMILIES[family]:
                    continue
                parts = (rel if keep_extension else stem).split("/")
                for start in range(len(parts)):
                    index.setdefault("/".join(parts[start:]), []).append(rel)
            self._suffixes[key] = index
        return index

    def _folder_index(self, family: str) -> dict[str, list[str]]:
        """Folder path suffix -> folders holding files of ``family``."""
        index = self._folders.get(family)
        if index is None:
            index = {}
            folders = {
                posixpath.dirname(rel)
                for rel in self.files
                if posixpath.splitext(rel)[1] in _FAMILIES[family]
            }
            for folder in sorted(folders):
                parts = folder.split("/") if folder else []
                for start in range(len(parts)):
                    index.setdefault("/".join(parts[start:]), []).append(folder)
            self._folders[family] = index
        return index

    def _package_by_suffix(self, tail: str, family: str) -> str | None:
        folders = self._folder_index(family).get(tail)
        return self._package(folders[0], family) if folders else None

    def _package(self, folder: str, family: str) -> str | None:
        """The file an import of the package in ``folder`` points at (see the module doc)."""
        if folder.startswith(".."):
            return None
        if self._members is None:
            by_folder: dict[str, list[str]] = {}
            for rel in sorted(self.files):
                by_folder.setdefault(posixpath.dirname(rel), []).append(rel)
            self._members = by_folder
        extensions = _FAMILIES[family]
        members = [
            rel for rel in self._members.get(folder, ()) if posixpath.splitext(rel)[1] in extensions
        ]
        if not members:
            return None
        own = posixpath.basename(folder)
        for rel in members:
            if posixpath.splitext(posixpath.basename(rel))[0] in (own, "main"):
                return rel
        plain = [rel for rel in members if not _TEST_FILE.search(rel)]
        return (plain or members)[0]

    def _go_mods(self) -> list[tuple[str, str]]:
        if self._go_modules is None:
            modules = []
            for rel in sorted(self.files):
                if rel == "go.mod" or rel.endswith("/go.mod"):
                    match = _GO_MODULE.search(self._read(rel))
                    if match is not None:
                        modules.append((posixpath.dirname(rel), match.group(1)))
            # the innermost module first: a nested go.mod owns its folder
            modules.sort(key=lambda item: -len(item[1]))
            self._go_modules = modules
        return self._go_modules

    def _psr4_map(self) -> list[tuple[str, str]]:
        if self._psr4 is None:
            mapping: list[tuple[str, str]] = []
            for rel in sorted(self.files):
                if rel == "composer.json" or rel.endswith("/composer.json"):
                    mapping += _psr4_entries(self._read(rel), posixpath.dirname(rel))
            mapping.sort(key=lambda item: -len(item[0]))
            self._psr4 = mapping
        return self._psr4

    def _read(self, rel: str) -> str:
        try:
            return read_repo_bytes(self.root / rel, TEXT_FILE_LIMIT).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return ""


def _psr4_entries(text: str, folder: str) -> list[tuple[str, str]]:
    try:
        manifest: Any = json.loads(text)
    except ValueError:
        return []
    entries: list[tuple[str, str]] = []
    if not isinstance(manifest, dict):
        return entries
    for section in ("autoload", "autoload-dev"):
        psr4 = manifest.get(section, {})
        psr4 = psr4.get("psr-4", {}) if isinstance(psr4, dict) else {}
        if not isinstance(psr4, dict):
            continue
        for prefix, targets in psr4.items():
            for target in targets if isinstance(targets, list) else [targets]:
                if isinstance(prefix, str) and isinstance(target, str):
                    entries.append((prefix, join(folder, target.rstrip("/")) if target else folder))
    return entries


def _rust_module_folder(path: str) -> str:
    """The folder a Rust file's child modules live in: its own for ``lib.rs``, ``main.rs``
    and ``mod.rs``, else the folder named like the file (``src/a.rs`` -> ``src/a``)."""
    folder, name = posixpath.split(path)
    if name in ("lib.rs", "main.rs", "mod.rs"):
        return folder
    return join(folder, name.removesuffix(".rs"))


def _rust_crate_src(path: str, files: Collection[str]) -> str:
    """The crate's source root: the nearest folder above ``path`` holding ``lib.rs`` or
    ``main.rs`` beside a ``Cargo.toml`` one level up, else the outermost ``src``."""
    folder = posixpath.dirname(path)
    outermost_src = None
    while True:
        if (f"{folder}/lib.rs" in files or f"{folder}/main.rs" in files) and (
            join(posixpath.dirname(folder), "Cargo.toml") in files
        ):
            return folder
        if posixpath.basename(folder) == "src":
            outermost_src = folder
        if not folder:
            break
        folder = posixpath.dirname(folder)
    return outermost_src if outermost_src is not None else posixpath.dirname(path)


def _shared_folders(path: str, near: str) -> int:
    shared = 0
    for left, right in zip(path.split("/")[:-1], near.split("/")[:-1], strict=False):
        if left != right:
            break
        shared += 1
    return shared
