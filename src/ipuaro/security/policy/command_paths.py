"""The files a command touches: writes outside the project or into protected paths, and reads
of secret files, judged from every directory the command may be in after ``cd``."""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from ipuaro.security.policy.command_reads import (
    NAMES_ONLY,
    SECRET_ALLOWANCE,
    git_object_paths,
    recursive_targets,
)
from ipuaro.security.policy.lookalike import ascii_reading
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.security.sandboxing.sandbox import home_folder, is_secret_location
from ipuaro.security.shell.shell_syntax import Word

__all__ = ["DEVICES", "Note", "Places"]

Note = tuple[Literal["allow", "ask", "deny"], str]
"""A verdict and what it is about, before the segment is named."""

DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"})
_FD_DEVICE = re.compile(r"/dev/fd/\d+|/proc/self/fd/\d+")
_NOT_PATH_ARGS = frozenset({"echo", "printf", "test", "[", "[[", "expr", "seq", "let", "sleep"})
# Options that take a value (so the value is not mistaken for a file operand).
_VALUE_OPTIONS = {
    "touch": {"-d", "-r", "-t", "--date", "--reference"},
    "mkdir": {"-m", "--mode"},
    "truncate": {"-s", "-r", "--size", "--reference"},
    "cp": {"-S", "--suffix"},
    "mv": {"-S", "--suffix"},
    "install": {"-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix"},
    "ln": {"-S", "--suffix"},
    "sort": {"-k", "-t", "-S", "-T", "--key", "--field-separator", "--buffer-size"},
}
_WRITE_ALL = frozenset({"tee", "touch", "mkdir", "rmdir", "rm", "unlink", "shred", "truncate"})
_WRITE_ALL |= {"rimraf"}
_WRITE_LAST = frozenset({"cp", "mv", "install", "ln", "rsync", "scp"})
_DELETERS = frozenset({"rm", "rmdir", "unlink", "shred", "rimraf"})
_PROC_SECRET = re.compile(r"/proc/[^/]+(?:/task/[^/]+)?/(?:environ|cmdline)")


@dataclass
class Places:
    """Where a script may be (a union of directories, as branches cannot be told apart)."""

    paths: PathPolicy
    cwds: list[Path] = field(default_factory=list)
    cwd_unknown: bool = False

    def __post_init__(self) -> None:
        if not self.cwds:
            self.cwds = [self.paths.root]

    def candidates(self, text: str) -> list[Path]:
        if text.startswith("/"):
            return [Path(text)]
        return [Path(os.path.normpath(base / text)) for base in self.cwds]

    def outside(self, text: str) -> bool:
        return any(self.paths.inside(c) is None for c in self.candidates(text))

    def change_directory(self, target: Word) -> None:
        if target.dynamic or target.tilde or target.text in ("-", ""):
            self.cwd_unknown = True
            return
        for candidate in self.candidates(target.text):
            if candidate not in self.cwds:
                self.cwds.append(candidate)

    def _expanded(self, word: Word) -> list[Path]:
        out: list[Path] = []
        for candidate in self.candidates(word.text):
            out.append(candidate)
            if word.glob:  # judge what the pattern matches right now, too
                out.extend(Path(p) for p in glob.glob(str(candidate)))
        return out

    def write(self, word: Word, how: str) -> list[Note]:
        """Refuse writing outside the project or into a protected path; ask for run-time ones."""
        text = word.text
        if word.dynamic:
            return [("ask", f"{how} `{word.raw}`, a path known only at run time")]
        reading = ascii_reading(text)
        if reading is not None:
            return [("deny", f"look-alike characters in `{text}` (reads as `{reading}`)")]
        if text in DEVICES or _FD_DEVICE.fullmatch(text):
            return []
        if word.tilde or text.startswith("~"):
            return [("deny", f"{how} `{text}`, outside the project (a home directory)")]
        notes: list[Note] = []
        if self.cwd_unknown and not text.startswith("/"):
            notes.append(
                ("ask", f"{how} `{text}` after `cd` to a directory known only at run time")
            )
        for path in self._expanded(word):
            rel = self.paths.inside(path)
            if rel is None:
                return [("deny", f"{how} `{text}`, outside the project")]
            if self.paths.is_protected(rel):
                shown = "the project root itself" if rel == "." else f"`{rel}`"
                return [("deny", f"{how} the protected path {shown}")]
        return notes

    def overwrite(self, word: Word, how: str) -> list[Note]:
        """Ask before emptying a file that exists (uncommitted work would be lost); new files
        and appends are fine."""
        if word.dynamic or word.text in DEVICES or _FD_DEVICE.fullmatch(word.text):
            return []
        for path in self._expanded(word):
            if path.is_file():
                shown = self.paths.inside(path) or word.text
                return [("ask", f"{how} empties the existing file `{shown}` before writing")]
        return []

    def secret(self, word: Word, *, names_only: bool = False) -> list[Note]:
        """Ask before a command reads a secret file (in the project, or a known one outside),
        or a path known only at run time while the project holds secret files."""
        text = word.text
        if not text or text.startswith("-"):
            return []
        if word.dynamic:
            return [] if names_only else self.dynamic_read(word)
        found: list[str] = []
        outside = ""
        tilde = word.tilde or text.startswith("~")
        for path in [_home_path(text)] if tilde else self._expanded(word):
            rel = None if tilde else self.paths.inside(path)
            if rel is None and not names_only and is_secret_location(path):
                return [("deny", f"reads `{text}`, a known secret location outside the project")]
            if rel is None and _secret_elsewhere(self.paths, PurePosixPath(path)):
                found.append(text)
            elif rel is None and not names_only and not _harmless_outside(path):
                outside = outside or text
            elif rel is not None and self.paths.is_secret(rel):
                found.append(rel)
        if found:
            return [("ask", f"reads the secret file `{found[0]}`; {SECRET_ALLOWANCE}")]
        if outside:
            return [("ask", f"reads `{outside}`, outside the project")]
        return []

    def dynamic_read(self, word: Word) -> list[Note]:
        """A file named only at run time (``$f``, ``$(...)``, xargs input): ask when its spelled
        part names a secret, or when the project holds any secret file it could be."""
        spelled = PurePosixPath(word.text)
        if _secret_elsewhere(self.paths, spelled) or self.paths.is_secret(word.text.lstrip("/")):
            return [("ask", f"reads `{word.raw}`, which names a secret file; {SECRET_ALLOWANCE}")]
        found = self.paths.secret_files(".")
        if found is None:
            return [("ask", f"reads `{word.raw}`, a path known only at run time, and the "
                     "project is too large to check for secret files")]  # fmt: skip
        if found:
            return [("ask", f"reads `{word.raw}`, a path known only at run time, and the project "
                     f"has secret files (`{found[0]}`); {SECRET_ALLOWANCE}")]  # fmt: skip
        return []

    def tree_read(self, what: str, folders: list[Word]) -> list[Note]:
        """``grep -r``/``rg``/``cp -r``/``tar``: ask when a folder it walks holds a secret."""
        for folder in folders:
            if folder.dynamic:
                notes = self.dynamic_read(folder)
                if notes:
                    return notes
                continue
            tilde = folder.tilde or folder.text.startswith("~")
            for path in [_home_path(folder.text)] if tilde else self._expanded(folder):
                rel = None if tilde else self.paths.inside(path)
                if rel is None and any(is_secret_location(p) for p in (path, *_below(path))):
                    return [("deny", f"{what} reads `{folder.text}`, which holds a known "
                             "secret location outside the project")]  # fmt: skip
                if rel is None:
                    return [("ask", f"{what} reads every file under `{folder.text}`, outside "
                             "the project")]  # fmt: skip
                found = self.paths.secret_files(rel)
                if found is None:
                    return [("ask", f"{what} reads every file under `{folder.text}`, and the "
                             "project is too large to check it for secret files")]  # fmt: skip
                if found:
                    return [("ask", f"{what} reads every file under `{folder.text}`, including "
                             f"the secret file `{found[0]}`; {SECRET_ALLOWANCE}")]  # fmt: skip
        return []

    def operands(self, name: str, args: list[Word]) -> list[Note]:
        """Files the command writes (outside the project or protected: refused) and secret files
        it names (ask)."""
        if name in _NOT_PATH_ARGS:
            return []
        operands = _operands(name, args)
        targets = _write_targets(name, args, operands)
        verb = "deletes" if name in _DELETERS else "writes"
        notes: list[Note] = []
        for target in targets:
            notes += self.write(target, f"`{name}` {verb}")
        if name == "mv":  # moving a file away deletes it where it was
            for source in operands[:-1]:
                notes += self.write(source, "`mv` moves away")
        names_only = name in NAMES_ONLY
        for word in operands:
            if word not in targets:
                notes += self.secret(word, names_only=names_only)
        for word in args:
            if word.text.startswith("--") and "=" in word.text:  # --env-file=.env
                value = word.text.split("=", 1)[1]
                notes += self.secret(Word(value, value, dynamic=word.dynamic), names_only=True)
        if name == "git":
            for path in git_object_paths(args):
                notes += self.secret(path)
        walked = recursive_targets(name, args)
        if walked is not None:
            notes += self.tree_read(*walked)
        return notes


def _write_targets(name: str, args: list[Word], operands: list[Word]) -> list[Word]:
    if name in _WRITE_ALL:
        return operands
    if name in _WRITE_LAST:
        directory = _option_value(args, ("-t", "--target-directory"))
        return [directory] if directory else operands[-1:]
    if name == "dd":
        return [
            Word(w.text[3:], w.raw, dynamic=w.dynamic) for w in args if w.text.startswith("of=")
        ]
    if name == "sed" and any(w.text.startswith(("-i", "--in-place")) for w in args):
        has_script = any(w.text in ("-e", "-f") or w.text.startswith("--expr") for w in args)
        return operands if has_script else operands[1:]
    if name in ("sort", "tree", "curl", "wget", "uniq"):
        output = _option_value(args, ("-o", "--output", "-O", "--output-document"))
        if output is not None:
            return [output]
        return operands[1:2] if name == "uniq" else []  # `uniq IN OUT` writes OUT
    return []


def _home_path(text: str) -> Path:
    """``~/x`` in the user's home; ``~user/x`` in that user's."""
    head, _, rest = text.partition("/")
    home = home_folder() if head == "~" else Path("/home", head[1:])
    return home / rest if rest else home


def _harmless_outside(path: Path) -> bool:
    """Devices and the null-like files every build touches; not worth a question."""
    return path.parts[:2] == ("/", "dev") or path.as_posix() in ("/", ".")


def _below(folder: Path) -> list[Path]:
    """The secret places inside ``folder`` (``grep -r x ~`` walks ``~/.ssh``)."""
    home = home_folder()
    if home.is_relative_to(folder):
        return [home / ".ssh"]
    if folder in (Path("/"), Path("/etc")):
        return [Path("/etc/shadow")]
    if folder == Path("/home"):
        return [Path("/home/-someone-else")]
    return []


def _secret_elsewhere(paths: PathPolicy, path: PurePosixPath) -> bool:
    """A file outside the project that is a secret by its name or its ``.ssh`` folder, or a
    process's environment or command line (``/proc/self/environ`` holds API keys)."""
    if _PROC_SECRET.fullmatch(path.as_posix()):
        return True
    return paths.is_secret(path.name) or ".ssh" in path.parts or ".aws" in path.parts


def _operands(name: str, args: list[Word]) -> list[Word]:
    value_options = _VALUE_OPTIONS.get(name, set())
    out: list[Word] = []
    skip = False
    ended = False
    for word in args:
        if skip:
            skip = False
            continue
        if not ended and word.text == "--":
            ended = True
        elif not ended and word.text.startswith("-") and len(word.text) > 1:
            skip = word.text in value_options
        else:
            out.append(word)
    return out


def _option_value(args: list[Word], options: tuple[str, ...]) -> Word | None:
    for index, word in enumerate(args):
        if word.text in options and index + 1 < len(args):
            return args[index + 1]
        for option in options:
            if option.startswith("--") and word.text.startswith(option + "="):
                value = word.text.split("=", 1)[1]
                return Word(value, value, dynamic=word.dynamic)
    return None
