"""get_function: the exact code of one function or method, located by the syntax tree."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import read_stored, text_only
from ipuaro.tools.excerpt import code_excerpt


class GetFunctionArgs(ArgsModel):
    path: str = Field(description="File that defines the function")
    name: str = Field(description="Function name, or Class.method for a method")


@dataclass(frozen=True)
class _Found:
    qualified: str
    start: int
    end: int
    kind: str


class GetFunction(BaseTool):
    name = "get_function"
    description = (
        "Get the full code of a function or method by name, with line numbers. "
        "Use Class.method for methods."
    )
    args_model = GetFunctionArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetFunctionArgs, ctx: ToolContext) -> ToolOutcome:
        stored = await read_stored(ctx, args.path)
        lines = text_only(stored)
        ast = ctx.store.get_ast(stored.path)
        if ast is None:
            raise ToolError(
                f"{stored.path} has no syntax tree (not a parsed language); "
                "use grep_search or get_lines instead."
            )
        found: list[_Found] = [
            _Found(f.name, f.line_start, f.line_end, "function") for f in ast.functions
        ]
        for cls in ast.classes:
            found += [
                _Found(f"{cls.name}.{m.name}", m.line_start, m.line_end, m.kind)
                for m in cls.methods
            ]
        wanted = args.name.strip().removesuffix("()")
        matches = [f for f in found if f.qualified == wanted]
        if not matches and "." not in wanted:
            matches = [f for f in found if f.qualified.rsplit(".", 1)[-1] == wanted]
        if not matches:
            raise ToolError(_not_found(ctx, stored.path, wanted, [f.qualified for f in found]))
        ctx.reads.record(stored.path, stored.data.hash, lines)
        first = matches[0]
        text = code_excerpt(
            stored.path, lines, first.start, first.end, f"{first.kind} {first.qualified}"
        )
        others = matches[1:]
        if others:
            text += "\nAlso named so: " + ", ".join(
                f"{o.qualified} (lines {o.start}-{o.end})" for o in others
            )
        data = [
            {"name": m.qualified, "kind": m.kind, "lineStart": m.start, "lineEnd": m.end}
            for m in matches
        ]
        return ToolOutcome.ok(text, data={"path": stored.path, "matches": data})


def _not_found(ctx: ToolContext, path: str, wanted: str, names: list[str]) -> str:
    message = f"No function or method {wanted!r} in {path}."
    close = difflib.get_close_matches(wanted, names, n=5, cutoff=0.5)
    if close:
        message += f" Did you mean: {', '.join(close)}?"
    elif names:
        shown = ", ".join(names[:30]) + (" …" if len(names) > 30 else "")
        message += f" Functions there: {shown}."
    elsewhere = [d for d in ctx.store.find_definitions(wanted.rsplit(".", 1)[-1]) if d.path != path]
    if elsewhere:
        places = ", ".join(f"{d.path}:{d.line}" for d in elsewhere[:5])
        message += f" It is defined in: {places}."
    return message
