"""The whitelist: every key the engineering memory holds, its type, and how a value is checked.

A key is ``scope.name`` (``user.ask_budget``, ``project.src_roots``). ``user`` keys are the
user's own and live in their config folder; ``project`` keys live in the repository's
``.ipuaro/project.json``. Nothing else can be remembered: a key not in :data:`KEYS` is dropped.

Checking is strict about meaning and lenient about spelling, because the values come from small
models and from a command line: ``"1"`` is the number 1, ``"Plan-First"`` is ``plan_first``,
``"src, lib"`` is the list ``["src", "lib"]``. Every refusal is a :class:`InvalidValue` whose
message says what the key expects.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ipuaro.domain.errors import IpuaroError

Scope = Literal["user", "project"]
Kind = Literal["choice", "count", "command", "name", "folders", "notes"]
MemoryValue = str | int | tuple[str, ...]

MAX_COMMAND_CHARS = 500
MAX_NAME_CHARS = 40
MAX_NOTES_CHARS = 2000
MAX_FOLDERS = 20
MAX_FOLDER_CHARS = 200

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9+#._-]*")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters other than tab and newline (notes may hold newlines)."""


class InvalidValue(IpuaroError, ValueError):
    """A value a key cannot take; the message says what it expects."""


@dataclass(frozen=True)
class KeySpec:
    key: str
    kind: Kind
    help: str
    """What the key means, in a user's words (``/memory`` and the docs show it)."""
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0

    @property
    def scope(self) -> Scope:
        return "user" if self.key.startswith("user.") else "project"

    @property
    def name(self) -> str:
        """The key inside its file (no scope prefix)."""
        return self.key.split(".", 1)[1]

    @property
    def expects(self) -> str:
        """The accepted values, for error messages and the docs."""
        if self.kind == "choice":
            return "one of " + " | ".join(self.choices)
        if self.kind == "count":
            return f"a whole number {self.low}..{self.high}"
        if self.kind == "command":
            return f"a one-line shell command (at most {MAX_COMMAND_CHARS} characters)"
        if self.kind == "name":
            return (
                "a short name like python or npm (letters, digits and + # . _ -, "
                f"at most {MAX_NAME_CHARS})"
            )
        if self.kind == "folders":
            return (
                f'a list of project-relative folders, e.g. ["src"] or "src, lib" '
                f"(at most {MAX_FOLDERS}, no '..' and no absolute paths)"
            )
        return f"text (at most {MAX_NOTES_CHARS} characters)"


KEYS: tuple[KeySpec, ...] = (
    KeySpec(
        "user.preferred_style",
        "choice",
        "how long answers should be",
        choices=("brief", "normal", "verbose"),
    ),
    KeySpec(
        "user.ask_budget",
        "count",
        "how many clarifying questions the model may ask before acting",
        low=0,
        high=2,
    ),
    KeySpec(
        "user.risk_tolerance",
        "choice",
        "how bold changes may be",
        choices=("low", "medium", "high"),
    ),
    KeySpec("user.default_language", "name", "the programming language you work in by default"),
    KeySpec(
        "user.output_format",
        "choice",
        "show the patch first, or the plan first",
        choices=("patch_first", "plan_first"),
    ),
    KeySpec("project.default_test_command", "command", "the command that runs the tests"),
    KeySpec("project.default_lint_command", "command", "the command that lints the code"),
    KeySpec("project.default_format_command", "command", "the command that formats the code"),
    KeySpec("project.package_manager", "name", "the package manager (pip, uv, npm, pnpm, …)"),
    KeySpec("project.build_command", "command", "the command that builds the project"),
    KeySpec("project.src_roots", "folders", "where the source code lives"),
    KeySpec("project.test_roots", "folders", "where the tests live"),
    KeySpec("project.ci_notes", "notes", "what CI runs and anything to know about it"),
)

BY_KEY: Mapping[str, KeySpec] = {spec.key: spec for spec in KEYS}
_BY_NAME: Mapping[str, KeySpec] = {spec.name: spec for spec in KEYS}


def key_list(scope: Scope | None = None) -> str:
    """The whitelist as one line, for messages."""
    return ", ".join(spec.key for spec in KEYS if scope is None or spec.scope == scope)


def spec_for(key: str) -> KeySpec | None:
    """The key's spec, accepting any case and surrounding spaces, and the bare name without
    its scope (``default_test_command``: every name is unique); None when not whitelisted."""
    if not isinstance(key, str):
        return None
    wanted = key.strip().lower()
    return BY_KEY.get(wanted) or _BY_NAME.get(wanted)


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "…"


def check_value(spec: KeySpec, value: object) -> MemoryValue:
    """``value`` as ``spec`` stores it; raises :class:`InvalidValue` naming what it expects."""
    try:
        return _CHECKS[spec.kind](spec, value)
    except InvalidValue as problem:
        detail = f" ({problem})" if str(problem) else ""
        raise InvalidValue(
            f"{spec.key} must be {spec.expects}; got {_shown(value)}{detail}"
        ) from None


def parse_text(spec: KeySpec, text: str) -> MemoryValue:
    """A value typed on a command line (``/memory set KEY VALUE``): a JSON list for folders
    is accepted as well as ``src, lib``."""
    stripped = text.strip()
    if spec.kind == "folders" and stripped.startswith("["):
        try:
            return check_value(spec, json.loads(stripped))
        except ValueError:
            pass  # not JSON after all: read it as a comma-separated list
    return check_value(spec, stripped)


def _choice(spec: KeySpec, value: object) -> MemoryValue:
    if not isinstance(value, str):
        raise InvalidValue("")
    wanted = value.strip().lower().replace("-", "_").replace(" ", "_")
    if wanted not in spec.choices:
        raise InvalidValue("")
    return wanted


def _count(spec: KeySpec, value: object) -> MemoryValue:
    if isinstance(value, bool):
        raise InvalidValue("")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if not isinstance(value, int) or not spec.low <= value <= spec.high:
        raise InvalidValue("")
    return value


def _one_line(value: object, limit: int) -> str:
    if not isinstance(value, str):
        raise InvalidValue("")
    text = value.strip()
    if not text:
        raise InvalidValue("empty; to forget it, remove the key instead")
    if "\n" in text or "\r" in text or _CONTROL.search(text) or "\t" in text:
        raise InvalidValue("it holds a line break or a control character")
    if len(text) > limit:
        raise InvalidValue(f"{len(text)} characters")
    return text


def _command(spec: KeySpec, value: object) -> MemoryValue:
    return _one_line(value, MAX_COMMAND_CHARS)


def _name(spec: KeySpec, value: object) -> MemoryValue:
    text = _one_line(value, MAX_NAME_CHARS)
    if not _NAME.fullmatch(text):
        raise InvalidValue("")
    return text


def _folder(item: object) -> str:
    text = _one_line(item, MAX_FOLDER_CHARS)
    if "\\" in text or text.startswith(("/", "~")) or re.match(r"[A-Za-z]:", text):
        raise InvalidValue(f"{text!r} is not a project-relative folder")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise InvalidValue(f"{text!r} leaves the project")
    return "/".join(parts) or "."


def _folders(spec: KeySpec, value: object) -> MemoryValue:
    if isinstance(value, str):
        value = [part for part in value.split(",") if part.strip()]
    if not isinstance(value, list | tuple):
        raise InvalidValue("")
    folders: list[str] = []
    for item in value:
        folder = _folder(item)
        if folder not in folders:
            folders.append(folder)
    if len(folders) > MAX_FOLDERS:
        raise InvalidValue(f"{len(folders)} folders")
    return tuple(folders)


def _notes(spec: KeySpec, value: object) -> MemoryValue:
    if not isinstance(value, str):
        raise InvalidValue("")
    text = value.strip()
    if not text:
        raise InvalidValue("empty; to forget it, remove the key instead")
    if _CONTROL.search(text):
        raise InvalidValue("it holds a control character")
    if len(text) > MAX_NOTES_CHARS:
        raise InvalidValue(f"{len(text)} characters")
    return text


_CHECKS = {
    "choice": _choice,
    "count": _count,
    "command": _command,
    "name": _name,
    "folders": _folders,
    "notes": _notes,
}


def to_json(value: MemoryValue) -> str | int | list[str]:
    """How a value is written to a file (tuples as lists)."""
    return list(value) if isinstance(value, tuple) else value
