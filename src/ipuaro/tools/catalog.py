"""The built-in tools at start-up: known by a stored card until one is first used.

A workspace offers the model 24 built-in tools, and the first request needs only what the model
sees of them — name, description, JSON schema — and the registry's flags (read-only, needs
confirmation, path fields). Importing the 24 modules for that (with the edit, git, shell and
test-runner helpers they pull in) and building their argument models took ~0.1 s of CPU on
every start. :func:`startup_tools` instead reads those cards from ``{data dir}/tool-cache/``,
written by the first start that built them from the real tools, and hands out
:class:`LazyTool` stand-ins that import their module at the first call (or at the first look at
``args_model``).

Correctness first: the schema the model sees is the very dict ``model_schema`` made from the
tool's arguments model when the card was written, stored as JSON (the prompt stays
byte-identical). The key is a hash of ipuaro's, pydantic's and Python's versions and the size
and time of every ``.py`` file of the ``ipuaro`` package, so an edited checkout, another release
or another pydantic builds the cards again. A card file that cannot be read, is damaged,
names another tool list or cannot be written is ignored: the real tools are used.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import platform
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ipuaro import __version__
from ipuaro._filecache import code_stamp, store_entry
from ipuaro.tools.base import Tool, ToolContext, ToolOutcome

__all__ = ["BUILTIN_TOOLS", "CACHE_DIR_NAME", "LazyTool", "builtin_tools", "startup_tools"]

CACHE_DIR_NAME = "tool-cache"
"""Folder inside the data dir holding one ``<key>.json`` of tool cards per code version."""
CACHE_FORMAT = 1
"""Bumped when the stored form changes; part of the key."""
KEEP_ENTRIES = 8
"""Most card files kept (the oldest go first)."""

BUILTIN_TOOLS: tuple[tuple[str, str], ...] = (
    ("get_lines", "GetLines"),
    ("get_function", "GetFunction"),
    ("get_class", "GetClass"),
    ("get_structure", "GetStructure"),
    ("find_definition", "FindDefinition"),
    ("find_references", "FindReferences"),
    ("grep_search", "GrepSearch"),
    ("find_files", "FindFiles"),
    ("get_dependencies", "GetDependencies"),
    ("get_dependents", "GetDependents"),
    ("get_complexity", "GetComplexity"),
    ("get_todos", "GetTodos"),
    ("git_status", "GitStatus"),
    ("git_diff", "GitDiff"),
    ("git_commit", "GitCommit"),
    ("run_command", "RunCommand"),
    ("run_tests", "RunTests"),
    ("edit_lines", "EditLines"),
    ("edit_symbol", "EditSymbol"),
    ("replace", "Replace"),
    ("edit_file", "EditFile"),
    ("create_file", "CreateFile"),
    ("delete_file", "DeleteFile"),
    ("remember", "Remember"),
)
"""Every built-in tool as (module in ``ipuaro.tools.builtin``, class), in the order the model
sees them: reads first, then search, analysis, git, run, edits, and the memory."""

_PACKAGE = "ipuaro.tools.builtin"


def builtin_tools() -> list[Tool]:
    """Every built-in tool, imported and built now."""
    tools: list[Tool] = []
    for module, name in BUILTIN_TOOLS:
        tools.append(getattr(importlib.import_module(f"{_PACKAGE}.{module}"), name)())
    return tools


class LazyTool:
    """A built-in tool known by its card; the module is imported at the first real use."""

    def __init__(self, module: str, class_name: str, card: dict[str, Any]) -> None:
        self.module = module
        self.class_name = class_name
        self.name: str = card["name"]
        self.description: str = card["description"]
        self.schema: dict[str, Any] = card["parameters"]
        """What ``model_schema(args_model)`` gave when the card was written."""
        self.read_only: bool = card["read_only"]
        self.needs_confirmation: bool = card["needs_confirmation"]
        self.path_fields: tuple[str, ...] = tuple(card["path_fields"])
        self._tool: Tool | None = None

    def load(self) -> Tool:
        """The real tool (imported once)."""
        if self._tool is None:
            module = importlib.import_module(f"{_PACKAGE}.{self.module}")
            self._tool = getattr(module, self.class_name)()
        return self._tool

    @property
    def args_model(self) -> type[BaseModel]:
        return self.load().args_model

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        return await self.load().execute(args, ctx)

    def __repr__(self) -> str:
        state = "loaded" if self._tool is not None else "not loaded"
        return f"<LazyTool {self.name} ({state})>"


def startup_tools(cache_dir: Path | None = None) -> list[Tool]:
    """The built-in tools for a workspace: stand-ins from the stored cards when they match this
    code, else the real tools (and their cards are stored for the next start).
    ``cache_dir``: where the cards live (default ``{data dir}/tool-cache``)."""
    folder = cache_dir if cache_dir is not None else _default_dir()
    key = _key()
    if key is not None and (cards := _read(folder / f"{key}.json")) is not None:
        return [
            LazyTool(module, name, card)
            for (module, name), card in zip(BUILTIN_TOOLS, cards, strict=True)
        ]
    tools = builtin_tools()
    if key is not None:
        _write(folder, key, [card_of(tool) for tool in tools])
    return tools


def card_of(tool: Tool) -> dict[str, Any]:
    """What a :class:`LazyTool` needs of ``tool`` before it is used."""
    from ipuaro.tools.arguments import model_schema

    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": model_schema(tool.args_model),
        "read_only": bool(tool.read_only),
        "needs_confirmation": bool(tool.needs_confirmation),
        "path_fields": list(getattr(tool, "path_fields", ())),
    }


def _default_dir() -> Path:
    from ipuaro.store.naming import data_dir

    return data_dir() / CACHE_DIR_NAME


@functools.cache
def _key() -> str | None:
    """A hash of the code the cards come from, ``None`` when it cannot be taken (taken once per
    process: the modules it imports are the ones it hashed)."""
    from pydantic.version import VERSION as PYDANTIC_VERSION

    digest = hashlib.sha256()
    header = f"{CACHE_FORMAT} {__version__} pydantic {PYDANTIC_VERSION} {platform.python_version()}"
    digest.update(header.encode())
    digest.update(repr(BUILTIN_TOOLS).encode())
    package = Path(__file__).resolve().parent.parent  # ipuaro/
    digest.update(str(package).encode())
    try:  # an edited checkout (editable install) changes an argument model in place
        digest.update(code_stamp(package, recursive=True).encode())
    except OSError:
        return None
    return digest.hexdigest()


def _read(path: Path) -> list[dict[str, Any]] | None:
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, list) or len(stored) != len(BUILTIN_TOOLS):
        return None
    for card in stored:
        if not (
            isinstance(card, dict)
            and isinstance(card.get("name"), str)
            and isinstance(card.get("description"), str)
            and isinstance(card.get("parameters"), dict)
            and isinstance(card.get("read_only"), bool)
            and isinstance(card.get("needs_confirmation"), bool)
            and isinstance(card.get("path_fields"), list)
            and all(isinstance(field, str) for field in card["path_fields"])
        ):
            return None
    return stored


def _write(folder: Path, key: str, cards: list[dict[str, Any]]) -> None:
    try:
        text = json.dumps(cards, allow_nan=False)
    except (TypeError, ValueError):  # a schema JSON cannot carry exactly: no cards
        return
    store_entry(folder, key, text, KEEP_ENTRIES)  # a read-only data dir: built again next time
