"""The registry: one explicit list of tools, their specs, and a ``call`` that never raises.

Unknown tools, bad arguments and exceptions inside a tool all come back as failed results the
model can read and act on; only cancellation (``asyncio.CancelledError``) propagates.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
import sqlite3
from typing import Any, Protocol

from pydantic import ValidationError

from ipuaro.domain import ToolResult
from ipuaro.store.protocol import StoreError
from ipuaro.tools.arguments import (
    TOOL_ALIASES,
    argument_problem,
    describe_errors,
    model_schema,
    normalise_arguments,
    schema_hint,
)
from ipuaro.tools.base import (
    Conflict,
    Tool,
    ToolAborted,
    ToolContext,
    ToolError,
    ToolOutcome,
    ToolRefused,
)
from ipuaro.tools.catalog import LazyTool, builtin_tools
from ipuaro.tools.limits import cap_output_lines
from ipuaro.tools.repair import repair_arguments
from ipuaro.tools.toolsets import (
    CORE_TOOLS,
    MORE_TOOLS,
    SMALL_WINDOW,
    MoreTools,
    compact_spec,
    more_tools_spec,
)

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
"""Where ``createFile`` becomes ``create_File``: models trained on other agents write camelCase."""


def snake_name(name: str) -> str:
    """``createFile`` / ``Create-File`` → ``create_file``."""
    return _CAMEL_BOUNDARY.sub("_", name.strip()).lower().replace("-", "_")


log = logging.getLogger(__name__)

__all__ = ["ToolRegistry", "ToolSource", "builtin_tools", "snake_name", "to_result", "tool_schema"]


class ToolSource(Protocol):
    """Tools that come and go while a session runs (an MCP server's, withdrawn when it dies).

    Such a tool may carry ``input_schema`` (a JSON Schema dict): then the model sees that schema
    and ``execute`` gets the arguments object as the model sent it (no pydantic model, no
    argument-name repair: the names are the tool's own)."""

    @property
    def revision(self) -> int:
        """Changes whenever :meth:`tools` would answer differently."""
        ...

    def tools(self) -> list[Tool]: ...

    async def prepare(self) -> None:
        """Before a model turn: start what starts lazily. Never raises."""
        ...


def tool_schema(tool: Tool) -> dict[str, Any]:
    """The JSON Schema the model sees: a source tool's own, else its args model's (a built-in
    not loaded yet: the one its card stored, made the same way)."""
    if isinstance(tool, LazyTool):
        return tool.schema
    schema = getattr(tool, "input_schema", None)
    return schema if isinstance(schema, dict) else model_schema(tool.args_model)


def _hint(tool: Tool) -> str:
    schema = getattr(tool, "input_schema", None)
    if isinstance(schema, dict):
        return f"{tool.name} with arguments matching {json.dumps(schema, separators=(',', ':'))}"
    return schema_hint(tool.name, tool.args_model)


def to_result(outcome: ToolOutcome, call_id: str) -> ToolResult:
    details: dict[str, Any] = dict(outcome.details or {})
    if outcome.data is not None:
        details["data"] = outcome.data
    if outcome.refused:
        details["refused"] = True
    if outcome.conflict is not None:
        conflict = outcome.conflict
        details["conflict"] = {
            "path": conflict.path,
            "message": conflict.message,
            "expectedHash": conflict.expected_hash,
            "currentHash": conflict.current_hash,
            "canApply": conflict.rebased is not None,
        }
    return ToolResult(
        call_id=call_id,
        success=outcome.success,
        data=outcome.content if outcome.success else None,
        error=None if outcome.success else (outcome.error or outcome.content),
        refused=outcome.refused,
        diff=outcome.diff,
        changed_paths=list(outcome.changed),
        check=outcome.check,
        details=details or None,
    )


class ToolRegistry:
    def __init__(self, tools: list[Tool]) -> None:
        self._fixed: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self._fixed:
                raise ValueError(f"two tools are named {tool.name!r}")
            self._fixed[tool.name] = tool
        self._sources: list[ToolSource] = []
        self._unlocked: set[str] = set()
        """Tools ``more_tools`` added to a small window's set."""
        self._unlocks = 0
        self._more = MoreTools(self._unlock)

    @classmethod
    def default(cls) -> ToolRegistry:
        return cls(builtin_tools())

    def add_source(self, source: ToolSource) -> None:
        """Offer a source's tools after the fixed ones (a name already taken is skipped)."""
        self._sources.append(source)

    @property
    def _tools(self) -> dict[str, Tool]:
        if not self._sources:
            return self._fixed
        tools = dict(self._fixed)
        for source in self._sources:
            for tool in source.tools():
                tools.setdefault(tool.name, tool)
        return tools

    @property
    def revision(self) -> int:
        """Changes whenever the tools offered change (a source started or lost a server)."""
        return self._unlocks + sum(source.revision for source in self._sources)

    async def prepare(self) -> None:
        """Before a model turn: let sources start what starts lazily."""
        for source in self._sources:
            await source.prepare()

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def get(self, name: str) -> Tool | None:
        resolved = self.resolve_name(name)
        if resolved == MORE_TOOLS:
            return self._tools.get(MORE_TOOLS, self._more)
        return None if resolved is None else self._tools.get(resolved)

    def read_only(self) -> list[Tool]:
        return [tool for tool in self._tools.values() if tool.read_only]

    def read_only_registry(self) -> ToolRegistry:
        """The plan-mode registry: write and shell tools are absent, not just discouraged."""
        return ToolRegistry(self.read_only())

    def specs(self, plan_mode: bool = False, window: int | None = None) -> list[dict[str, Any]]:
        """What the model is offered; a ``window`` below ``SMALL_WINDOW`` gets the core set in
        compact form and a ``more_tools`` entry naming the rest (see ``tools.toolsets``)."""
        tools = self.read_only() if plan_mode else self.tools()
        specs: list[dict[str, Any]] = [
            {"name": tool.name, "description": tool.description, "parameters": tool_schema(tool)}
            for tool in tools
        ]
        if window is None or window >= SMALL_WINDOW:
            return specs
        offered = [s for s in specs if s["name"] in CORE_TOOLS or s["name"] in self._unlocked]
        rest: list[str] = [str(s["name"]) for s in specs if s not in offered]
        compact = [compact_spec(s) for s in offered]
        return [*compact, more_tools_spec(rest)] if rest else compact

    def _unlock(self, names: list[str]) -> str:
        """``more_tools``: offer ``names`` (all when empty) from the next request on; the
        answer lists them with their arguments so the model can call them at once."""
        tools = self._tools
        if names:
            wanted = [self.resolve_name(name) or name for name in names]
            unknown = [name for name in wanted if name not in tools]
            if unknown:
                return self._unknown(unknown[0])
        else:
            wanted = [name for name in tools if name not in CORE_TOOLS]
        new = [name for name in wanted if name not in self._unlocked]
        self._unlocked.update(new)
        if new:
            self._unlocks += 1
        lines = [f"Added to your tools: {', '.join(wanted)}."]
        lines += [f"- {_hint(tools[name])}" for name in wanted]
        return "\n".join(lines)

    def resolve_name(self, name: str) -> str | None:
        if not isinstance(name, str):
            return None
        tools = self._tools
        if name in tools or name == MORE_TOOLS:
            return name
        cleaned = snake_name(name)
        if cleaned in tools or cleaned == MORE_TOOLS:
            return cleaned
        alias = TOOL_ALIASES.get(cleaned)
        return alias if alias in tools else None

    def accepted_names(self) -> set[str]:
        """Every name a call may use: the tools and the aliases that map to one of them."""
        names = set(self._tools) | {MORE_TOOLS}
        names.update(alias for alias, target in TOOL_ALIASES.items() if target in self._tools)
        return names

    async def call(
        self,
        name: str,
        arguments: Any,
        ctx: ToolContext,
        call_id: str,
        *,
        plan_mode: bool = False,
    ) -> ToolResult:
        outcome = await self.call_outcome(name, arguments, ctx, plan_mode=plan_mode)
        return to_result(outcome, call_id)

    async def call_outcome(
        self, name: str, arguments: Any, ctx: ToolContext, *, plan_mode: bool = False
    ) -> ToolOutcome:
        """Like :meth:`call` but keeps the :class:`Conflict` object for the caller."""
        resolved = self.resolve_name(name)
        tool = None if resolved is None else self._tools.get(resolved)
        if tool is None and resolved == MORE_TOOLS:
            tool = self._more  # offered only to a small window, callable always
        if tool is None:
            return ToolOutcome.fail(self._unknown(name))
        if plan_mode and not tool.read_only:
            return ToolOutcome.fail(
                f"{tool.name} changes files or runs commands and is not available in plan "
                "mode; describe the change in the plan instead."
            )
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return ToolOutcome.fail(
                f"Arguments for {tool.name} must be a JSON object, got "
                f"{type(arguments).__name__}. Expected: {_hint(tool)}"
            )
        path_fields: tuple[str, ...] = getattr(tool, "path_fields", ())
        problem = argument_problem(arguments, path_fields)
        if problem is not None:
            return ToolOutcome.fail(
                f"Invalid arguments for {tool.name}: {problem}. Expected: {_hint(tool)}"
            )
        if isinstance(getattr(tool, "input_schema", None), dict):
            return await self._run(tool, arguments, ctx, None)  # a source tool checks its own
        try:
            args = tool.args_model.model_validate(
                normalise_arguments(arguments, tool.args_model, path_fields)
            )
        except ValidationError as error:
            problems = "; ".join(describe_errors(error))
            return ToolOutcome.fail(
                f"Invalid arguments for {tool.name}: {problems}. "
                f"Expected: {schema_hint(tool.name, tool.args_model)}"
            )
        except Exception as error:  # the model's arguments must never end the request
            log.debug("arguments for %s could not be read", tool.name, exc_info=True)
            return ToolOutcome.fail(
                f"Invalid arguments for {tool.name}: {type(error).__name__}: {error}. "
                f"Expected: {schema_hint(tool.name, tool.args_model)}"
            )
        return await self._run(tool, args, ctx, path_fields)

    async def _run(
        self, tool: Tool, args: Any, ctx: ToolContext, path_fields: tuple[str, ...] | None
    ) -> ToolOutcome:
        """Run ``tool``; ``path_fields`` None: a source tool, whose arguments are not repaired."""
        try:
            notes: list[str] = []
            if path_fields is not None:
                args, notes = repair_arguments(ctx, tool.name, args, path_fields)
            outcome = await tool.execute(args, ctx)
            outcome.content = cap_output_lines(outcome.content)
            if outcome.error is not None:
                outcome.error = cap_output_lines(outcome.error)
            for note in notes:  # the model learns which file was used
                outcome.content = f"{note}\n{outcome.content}"
                if outcome.error is not None:
                    outcome.error = f"{note}\n{outcome.error}"
            return outcome
        except ToolAborted as aborted:
            outcome = ToolOutcome.fail(str(aborted), refused=True)
            outcome.aborted = True
            return outcome
        except ToolRefused as refused:
            return ToolOutcome.fail(str(refused), refused=True)
        except ToolError as error:
            return ToolOutcome.fail(str(error))
        except Exception as error:  # a bug or an I/O failure: the loop must go on
            outcome = ToolOutcome.fail(f"{tool.name} failed: {type(error).__name__}: {error}")
            if isinstance(error, StoreError | sqlite3.Error):
                outcome.error_kind = "store"
            elif isinstance(error, OSError):
                outcome.error_kind = "file"
            if outcome.error_kind is None:
                log.exception("tool %s failed", tool.name)
            else:  # the environment's failure, already in the outcome: no traceback unless -vv
                log.debug("tool %s failed", tool.name, exc_info=True)
            return outcome

    async def apply_conflict(self, conflict: Conflict, ctx: ToolContext) -> ToolOutcome:
        """The user chose "apply" on a conflict: write the edit moved onto the current file."""
        from ipuaro.edits.engine import EditEngine

        if conflict.rebased is None:
            return ToolOutcome.fail(
                f"{conflict.path}: the lines the edit targets were changed too; ask the model "
                "to read the file again and redo the edit (regenerate)."
            )
        result = await EditEngine(ctx).apply(conflict.rebased, conflict.description)
        if result.applied:
            outcome = ToolOutcome.ok(
                result.message,
                details={"diff": result.diff},
                diff=result.diff or None,
                changed=[c.path for c in result.files],
            )
            if result.check is not None and not result.check.clean:
                outcome.check = result.check.report()
            return outcome
        return ToolOutcome.fail(result.message, refused=result.refused, diff=result.diff or None)

    def _unknown(self, name: Any) -> str:
        shown = name if isinstance(name, str) else repr(name)
        close = difflib.get_close_matches(
            snake_name(str(shown)), sorted(self.accepted_names()), n=3
        )
        # Aliases stand for their tool: suggest the tool (write_file → create_file), once each.
        tools = list(dict.fromkeys(self.resolve_name(n) or n for n in close))
        hint = f" Did you mean: {', '.join(tools)}?" if tools else ""
        return f"Unknown tool {shown!r}.{hint} Available tools: {', '.join(self._tools)}."
