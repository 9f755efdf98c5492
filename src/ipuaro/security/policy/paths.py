"""Where the agent may read and write: every path resolves to a real path inside the project root.

A path given by the model is refused (:class:`PathRefused`) when it is empty, holds NUL or other
control characters, starts with ``~``, uses ``..``, backslashes, a Windows drive or UNC form,
URL-encoded traversal (``%2e%2e``), look-alike characters for ``/`` or ``.``, or resolves (symlinks
followed) outside the root. Protected paths (gitignore-style patterns from
``project.protectedPaths``, plus the project's own ``.ipuaro.json``) can be read but never edited,
created or deleted. Secret files (``.env``, keys, ``secrets/``) are a fixed built-in list: reading
them needs the user's allowance, which the caller asks for.

The policy is built from configuration only; nothing read from the repository changes it.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import unquote

import pathspec

from ipuaro.domain.errors import IpuaroError
from ipuaro.security.policy.lookalike import ascii_reading

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.security.policy.secret_scan import SecretScan

__all__ = ["SECRET_PATTERNS", "PathPolicy", "PathRefused", "ProjectPath"]

ALWAYS_PROTECTED = (".ipuaro.json", ".ipuaro/project.json")
"""The project configuration decides policy, so the agent may never rewrite it; the project
memory changes only through a memory patch the user confirms (or ``--remember``), never as a
file a plan, an edit tool or a command writes."""

SECRET_PATTERNS = (
    ".env",
    ".env.*",
    "!.env.example",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "!*.pub",
    "**/secrets/**",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
)
"""Files whose content is a secret: never put into the prompt unless the user allows it."""

MAX_PATH_CHARS = 4096

_DRIVE = re.compile(r"^[A-Za-z]:")


class PathRefused(IpuaroError):
    """A path the agent may not use; ``reason`` says which path, why, and what to do instead."""

    def __init__(self, path: str, why: str, fix: str = "") -> None:
        self.path = path
        self.why = why
        shown = path if len(path) <= 120 else path[:117] + "..."
        self.reason = f"path {shown!r} refused: {why}" + (f"; {fix}" if fix else "")
        super().__init__(self.reason)


class ProtectedPath(PathRefused):
    """A path inside the project that policy keeps from being written (``protectedPaths``): a
    refusal the model can route around, unlike a path that is simply wrong."""


@dataclass(frozen=True)
class ProjectPath:
    """A path proven to lie inside the project: ``rel`` is POSIX, root-relative (``.`` for the
    root itself), symlinks resolved; ``abs`` is the real absolute path."""

    rel: str
    abs: Path


def _spec(patterns: list[str] | tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    # Lower-case both sides: on case-insensitive file systems `.ENV` *is* `.env`.
    return pathspec.GitIgnoreSpec.from_lines([p.strip().lower() for p in patterns if p.strip()])


def _matches(spec: pathspec.GitIgnoreSpec, rel: str) -> bool:
    low = rel.lower()
    # `dir/` lets directory patterns (`secrets/`, `**/secrets/**`) match the directory itself.
    return spec.match_file(low) or spec.match_file(low + "/")


class PathPolicy:
    """Resolves model-given paths inside ``root`` and knows which ones are protected or secret."""

    def __init__(self, root: Path, protected: list[str]) -> None:
        try:
            self.root = Path(root).resolve(strict=True)
        except (OSError, RuntimeError) as error:
            raise ValueError(f"project root {str(root)!r} does not exist: {error}") from error
        if not self.root.is_dir():
            raise ValueError(f"project root {str(root)!r} is not a directory")
        self.protected_patterns = [*protected, *ALWAYS_PROTECTED]
        self._protected = _spec(self.protected_patterns)
        self._secret = _spec(SECRET_PATTERNS)
        self._scan: SecretScan | None = None

    @classmethod
    def from_config(cls, root: Path, config: Config) -> PathPolicy:
        return cls(root, list(config.project.protected_paths))

    # --- classification -------------------------------------------------------------------

    def is_protected(self, rel: str) -> bool:
        """True if ``rel`` (root-relative POSIX) may not be edited, created or deleted."""
        rel = rel.strip("/")
        if rel in ("", "."):
            return True  # the root itself is never deleted or overwritten
        return _matches(self._protected, rel)

    def is_secret(self, rel: str) -> bool:
        """True if reading ``rel`` needs the user's allowance (``.env*``, keys, ``secrets/``)."""
        rel = rel.strip("/")
        return rel not in ("", ".") and _matches(self._secret, rel)

    def secret_files(self, rel: str = ".") -> list[str] | None:
        """Secret files at or below the project folder ``rel`` (a short-lived cached walk, see
        :mod:`~ipuaro.security.policy.secret_scan`); None when the project is too large to tell."""
        if self._scan is None:
            from ipuaro.security.policy.secret_scan import SecretScan

            self._scan = SecretScan(self.root, self.is_secret, self.inside)
        return self._scan.under(rel)

    def inside(self, candidate: Path) -> str | None:
        """Root-relative POSIX form of an absolute path after resolving symlinks; None if it
        lies outside the root (or cannot be resolved, e.g. a symlink loop)."""
        try:
            real = Path(os.path.normpath(candidate)).resolve(strict=False)
        except (OSError, RuntimeError):
            return None
        if real == self.root:
            return "."
        try:
            return real.relative_to(self.root).as_posix()
        except ValueError:
            return None

    # --- resolution -----------------------------------------------------------------------

    def resolve(self, path: str) -> ProjectPath:
        """Prove ``path`` (relative to the root, or absolute inside it) stays in the project."""
        return self._resolve(path)[0]

    def check_writable(self, path: str) -> ProjectPath:
        """``resolve`` plus: refuse protected paths, spelled directly or reached via symlink."""
        resolved, spelled = self._resolve(path)
        if "." in (resolved.rel, spelled):
            raise PathRefused(path, "it is the project root itself", "name a file or folder in it")
        for rel in (resolved.rel, spelled):
            if self.is_protected(rel):
                raise ProtectedPath(
                    path,
                    f"{rel!r} is a protected path (project.protectedPaths)",
                    "protected files can be read but not edited, created or deleted",
                )
        return resolved

    def _resolve(self, path: str) -> tuple[ProjectPath, str]:
        """The resolved path and the root-relative spelling before symlinks were followed."""
        if not isinstance(path, str):
            raise PathRefused(repr(path), f"expected a string, got {type(path).__name__}")
        self._check_spelling(path)
        given = PurePosixPath(path)
        lexical = Path(os.path.normpath(given if given.is_absolute() else self.root / given))
        if lexical != self.root and self.root not in lexical.parents:
            lexical = self._through_root_alias(lexical)
        if lexical != self.root and self.root not in lexical.parents:
            raise _outside(path, lexical, self.root)
        try:
            real = lexical.resolve(strict=False)
        except (OSError, RuntimeError) as error:
            raise PathRefused(path, f"it cannot be resolved ({error})") from error
        rel = self.inside(real)
        if rel is None:
            raise PathRefused(
                path,
                f"a symlink makes it point outside the project (to {real})",
                "use the file's real location inside the project",
            )
        spelled = "." if lexical == self.root else lexical.relative_to(self.root).as_posix()
        return ProjectPath(rel=rel, abs=real), spelled

    def _through_root_alias(self, lexical: Path) -> Path:
        """``/link/src/a.py`` where ``/link`` is a symlink to the root (a project opened via a
        symlinked folder, macOS ``/tmp``): the same path spelled from the real root."""
        for ancestor in lexical.parents:
            if ancestor.parent == ancestor:
                break
            try:
                if ancestor.resolve(strict=True) == self.root:
                    return self.root / lexical.relative_to(ancestor)
            except (OSError, RuntimeError):
                continue
        return lexical

    def check_deletable(self, path: str) -> ProjectPath:
        """``check_writable`` plus: a directory is refused if anything inside it is protected."""
        resolved = self.check_writable(path)
        if resolved.abs.is_dir() and not resolved.abs.is_symlink():
            for dirpath, dirnames, filenames in os.walk(resolved.abs):
                for name in [*dirnames, *filenames]:
                    rel = Path(dirpath, name).relative_to(self.root).as_posix()
                    if self.is_protected(rel):
                        raise ProtectedPath(
                            path,
                            f"it contains the protected path {rel!r}",
                            "delete the other files one by one",
                        )
        return resolved

    def _check_spelling(self, path: str) -> None:
        """Refuse spellings that are ambiguous, foreign or disguised before touching the disk."""
        if path == "" or not path.strip():
            raise PathRefused(path, "it is empty", "give a path relative to the project root")
        if "\x00" in path:
            raise PathRefused(path, "it contains a NUL byte")
        if len(path) > MAX_PATH_CHARS:
            raise PathRefused(path, f"it is longer than {MAX_PATH_CHARS} characters")
        if path != path.strip():
            raise PathRefused(path, "it has leading or trailing whitespace", "remove it")
        for char in path:
            category = unicodedata.category(char)
            if category == "Cc":
                raise PathRefused(path, f"it contains the control character {char!r}")
            if category == "Cf":
                raise PathRefused(path, f"it contains the invisible character U+{ord(char):04X}")
            reading = ascii_reading(char)
            if reading is not None and set(reading) & set("/\\.~:%"):
                raise PathRefused(
                    path,
                    f"look-alike characters: U+{ord(char):04X} reads as {reading!r}",
                    "type the plain ASCII character",
                )
        if path.startswith("~"):
            head, _, rest = path.partition("/")
            home = Path.home() if head == "~" else Path("/home", head[1:])
            if _secret_place(home / rest):
                raise _outside(path, home / rest, self.root)
            raise PathRefused(path, "'~' (a home directory) is outside the project")
        if _DRIVE.match(path):
            raise PathRefused(path, "it is a Windows drive path, outside the project")
        if path.startswith(("//", "\\\\")):
            raise PathRefused(path, "it is a UNC/network path, outside the project")
        if "\\" in path:
            raise PathRefused(path, "backslashes are not path separators here", "use '/'")
        if ".." in PurePosixPath(path).parts:
            raise PathRefused(
                path, "'..' is not allowed", "give the path from the project root without '..'"
            )
        decoded = path
        for _ in range(3):  # double encoding (%252e) unwraps one level per round
            decoded = unquote(decoded)
            hidden_root = decoded.startswith(("~", "\\", "/")) and not path.startswith("/")
            if ".." in PurePosixPath(decoded.replace("\\", "/")).parts or hidden_root:
                raise PathRefused(path, "it hides '..' or a root in URL encoding (%2e, %2f)")


def _secret_place(path: Path) -> bool:
    from ipuaro.security.sandboxing.sandbox import is_secret_location

    return is_secret_location(path)


def _outside(path: str, where: Path, root: Path) -> PathRefused:
    """The same answer commands get for the same place: a known secret location is never
    read; anything else outside the project is not a tool's to read (a command asks first)."""
    if _secret_place(where):
        return PathRefused(
            path,
            "it is a known secret location outside the project",
            "it is never read, by tools or by commands",
        )
    return PathRefused(
        path,
        "it is outside the project root",
        f"use a path inside {root}; to read a file elsewhere, run_command asks the user first",
    )
