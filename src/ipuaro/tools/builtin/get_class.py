"""get_class: the code of a class (or TypeScript interface/type/enum) plus its member list."""

from __future__ import annotations

import difflib
from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import read_stored, text_only
from ipuaro.tools.excerpt import code_excerpt


def signature(params: list[str], defaults: dict[str, str]) -> str:
    """``self, name, retries=3``: each parameter with its default value as written."""
    return ", ".join(f"{p}={defaults[p]}" if p in defaults else p for p in params)


class GetClassArgs(ArgsModel):
    path: str = Field(description="File that defines the class")
    name: str = Field(description="Class (or interface, type, enum) name")


class GetClass(BaseTool):
    name = "get_class"
    description = (
        "Get the full code of a class (or TypeScript interface/type/enum) with line numbers and "
        "a list of its methods."
    )
    args_model = GetClassArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetClassArgs, ctx: ToolContext) -> ToolOutcome:
        stored = await read_stored(ctx, args.path)
        lines = text_only(stored)
        ast = ctx.store.get_ast(stored.path)
        if ast is None:
            raise ToolError(f"{stored.path} has no syntax tree; use grep_search or get_lines.")
        wanted = args.name.strip()
        ctx.reads.record(stored.path, stored.data.hash, lines)
        for cls in ast.classes:
            if cls.name == wanted:
                text = code_excerpt(
                    stored.path, lines, cls.line_start, cls.line_end, f"class {cls.name}"
                )
                members = [
                    f"{m.name}({signature(m.params, m.defaults)}) lines {m.line_start}-{m.line_end}"
                    for m in cls.methods
                ]
                heritage = ""
                if cls.extends:
                    heritage += f" extends {cls.extends}"
                if cls.implements:
                    heritage += f" implements {', '.join(cls.implements)}"
                summary = f"class {cls.name}{heritage}: {len(cls.methods)} methods"
                if members:
                    summary += "\n  " + "\n  ".join(members)
                data = {
                    "path": stored.path,
                    "name": cls.name,
                    "lineStart": cls.line_start,
                    "lineEnd": cls.line_end,
                    "methods": [m.name for m in cls.methods],
                }
                return ToolOutcome.ok(f"{summary}\n{text}", data=data)
        for typ in ast.types:
            if typ.name == wanted:
                text = code_excerpt(
                    stored.path, lines, typ.line_start, typ.line_end, f"{typ.kind} {typ.name}"
                )
                data = {
                    "path": stored.path,
                    "name": typ.name,
                    "kind": typ.kind,
                    "lineStart": typ.line_start,
                    "lineEnd": typ.line_end,
                }
                return ToolOutcome.ok(text, data=data)
        function = next((f for f in ast.functions if f.name == wanted), None)
        if function is not None:
            # `function Router(options) {…}` with `Router.prototype.x = …`: a JavaScript class
            # written the old way. Say where it is and which tool reads it.
            raise ToolError(
                f"{wanted!r} in {stored.path} is a function, not a class (a constructor "
                f"function, lines {function.line_start}-{function.line_end}). Did you mean: "
                f"get_function(path={stored.path!r}, name={wanted!r})? Its prototype methods "
                f"are found with grep_search for '{wanted}.prototype.'."
            )
        names = [c.name for c in ast.classes] + [t.name for t in ast.types]
        # A capitalised function is a constructor by convention: a candidate for the name.
        constructors = [f.name for f in ast.functions if f.name[:1].isupper()]
        message = f"No class {wanted!r} in {stored.path}."
        close = difflib.get_close_matches(wanted, names + constructors, n=5, cutoff=0.5)
        if close:
            message += f" Did you mean: {', '.join(close)}?"
        elif names:
            message += f" Classes and types there: {', '.join(names[:30])}."
        elsewhere = [d for d in ctx.store.find_definitions(wanted) if d.path != stored.path]
        if elsewhere:
            message += (
                " It is defined in: " + ", ".join(f"{d.path}:{d.line}" for d in elsewhere[:5]) + "."
            )
        raise ToolError(message)
