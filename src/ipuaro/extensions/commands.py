"""Custom slash commands: Markdown prompt templates the user or the project keeps.

``.ipuaro/commands/NAME.md`` in the project and ``commands/NAME.md`` in the user config folder
become ``/NAME``. The file is the prompt; ``$ARGUMENTS`` is replaced by everything typed after
the name and ``$1`` … ``$9`` by single arguments (a template with neither gets the arguments
appended). Optional YAML front matter between ``---`` lines:

.. code-block:: markdown

    ---
    description: Review a file for bugs
    argument-hint: FILE
    allowed-tools: [get_lines, grep_search]
    mode: plan
    ---
    Review $1 for bugs and say what you would change.

A template only becomes a prompt the user sends, so commands need no trust. A project command
and a user command of the same name: the project's wins (it says so once).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.repofiles import RepoFileRefused, read_repo_bytes

__all__ = ["COMMAND_FOLDER", "CustomCommand", "discover_commands", "parse_command_file"]

COMMAND_FOLDER = Path(".ipuaro") / "commands"
"""Project commands, relative to the project root (the user's: ``commands`` in the config dir)."""
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_PLACEHOLDER = re.compile(r"\$ARGUMENTS|\$([1-9])")
_KNOWN_KEYS = ("description", "argument-hint", "allowed-tools", "mode")
MAX_BYTES = 256_000


class CommandFileError(IpuaroError, ValueError):
    """A command file that cannot be used; the message names the file, the key and the fix."""


@dataclass(frozen=True)
class CustomCommand:
    name: str
    template: str
    source: Literal["project", "user"]
    path: Path
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] | None = None
    """Only these tools are offered for the request (None: every tool)."""
    plan: bool = False
    """The request runs in plan mode."""

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.argument_hint}".rstrip()

    @property
    def help(self) -> str:
        what = self.description or f"custom command ({self.path.name})"
        return f"{what} [{self.source}]"

    def expand(self, args: Sequence[str]) -> str:
        """The prompt for ``/NAME args…``."""
        joined = " ".join(args)

        def fill(match: re.Match[str]) -> str:
            if match[1] is None:
                return joined
            index = int(match[1]) - 1
            return args[index] if index < len(args) else ""

        # One pass: an argument that itself holds "$1" is text, not a placeholder.
        text, count = _PLACEHOLDER.subn(fill, self.template)
        if joined and not count:
            text = f"{text.rstrip()}\n\nARGUMENTS: {joined}"
        return text.strip()


def parse_command_file(path: Path, source: Literal["project", "user"]) -> CustomCommand:
    """One command from its file; :class:`CommandFileError` when it cannot be used."""
    name = path.stem.lower()
    if not NAME.match(name):
        raise CommandFileError(
            f"{path}: {path.stem!r} is not a command name (lowercase letters, digits, '-' and "
            "'_'); rename the file"
        )
    try:
        text = read_repo_bytes(path, MAX_BYTES).decode("utf-8")
    except RepoFileRefused as error:
        raise CommandFileError(str(error)) from None
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise CommandFileError(f"{path}: cannot read it ({reason}); fix or remove it") from None
    meta: dict[str, Any] = {}
    match = _FRONT_MATTER.match(text)
    if match is not None:
        meta = _front_matter(path, match[1])
        text = text[match.end() :]
    if not text.strip():
        raise CommandFileError(f"{path}: the template is empty; write the prompt below the ---")
    mode = meta.get("mode", "normal")
    if mode not in ("plan", "normal"):
        raise CommandFileError(
            f"{path}: mode: {mode!r} is not a mode; write `mode: plan` or drop it"
        )
    return CustomCommand(
        name=name,
        template=text,
        source=source,
        path=path,
        description=_text(path, meta, "description"),
        argument_hint=_text(path, meta, "argument-hint"),
        allowed_tools=_tools(path, meta.get("allowed-tools")),
        plan=mode == "plan",
    )


def discover_commands(root: Path, user_dir: Path) -> tuple[dict[str, CustomCommand], list[str]]:
    """Every usable command by name (the project's over the user's) and a warning for each
    file that could not be used."""
    found: dict[str, CustomCommand] = {}
    warnings: list[str] = []
    for folder, source in ((user_dir / "commands", "user"), (root / COMMAND_FOLDER, "project")):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            try:
                command = parse_command_file(path, source)  # type: ignore[arg-type]
            except CommandFileError as error:
                warnings.append(f"custom command skipped: {error}")
                continue
            if command.name in found:
                warnings.append(
                    f"/{command.name}: the project's {path} is used instead of your "
                    f"{found[command.name].path}"
                )
            found[command.name] = command
    return found, warnings


def _front_matter(path: Path, text: str) -> dict[str, Any]:
    try:
        meta = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise CommandFileError(
            f"{path}: the front matter is not valid YAML{where}; write `key: value` lines "
            "between the --- lines"
        ) from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise CommandFileError(f"{path}: the front matter must be `key: value` lines")
    unknown = [str(key) for key in meta if key not in _KNOWN_KEYS]
    if unknown:
        raise CommandFileError(
            f"{path}: unknown front-matter key {unknown[0]!r}; the keys are "
            + ", ".join(_KNOWN_KEYS)
        )
    return meta


def _text(path: Path, meta: dict[str, Any], key: str) -> str:
    value = meta.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str | int | float):
        raise CommandFileError(f"{path}: {key} must be one line of text")
    return str(value).strip()


def _tools(path: Path, value: Any) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [part for part in re.split(r"[,\s]+", value) if part]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise CommandFileError(
            f"{path}: allowed-tools must be tool names, e.g. `allowed-tools: [get_lines, "
            "grep_search]`"
        )
    return tuple(value)
