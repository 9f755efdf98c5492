"""find_definition: where a symbol is defined, from the symbol index (a name the index
declares nowhere is asked of the language server of ``index.languageServers``, at a place it
is used)."""

from __future__ import annotations

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.limits import MAX_DEFINITIONS
from ipuaro.tools.server_answers import definition_outcome
from ipuaro.tools.snippets import close_symbols, line_texts


class FindDefinitionArgs(ArgsModel):
    symbol: str = Field(description="Name to find, e.g. UserService or UserService.create")


class FindDefinition(BaseTool):
    name = "find_definition"
    description = (
        "Find where a function, class, method, type or constant is defined (path, lines, kind). "
        "Use Class.method to pick a method."
    )
    args_model = FindDefinitionArgs

    async def execute(self, args: FindDefinitionArgs, ctx: ToolContext) -> ToolOutcome:
        symbol = args.symbol.strip().removesuffix("()")
        if not symbol:
            raise ToolError("symbol is empty; give a name such as UserService.")
        container, _, name = symbol.rpartition(".")
        # A dotted name may be one name (a .properties key `db.host`, an S3 `print.report`).
        defs = ctx.store.find_definitions(symbol) if container else []
        if not defs:
            defs = ctx.store.find_definitions(name)
            if container:
                inside = [d for d in defs if d.container == container.rsplit(".", 1)[-1]]
                defs = inside or defs
        defs.sort(key=lambda d: (d.path, d.line))
        if not defs:
            answered = await definition_outcome(ctx, symbol)
            if answered is not None:
                return answered
            close = close_symbols(ctx.store, name)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            return ToolOutcome.ok(
                f"No definition of {symbol!r} in the index.{hint} (grep_search finds text.)",
                data={"symbol": symbol, "definitions": []},
            )
        shown = defs[:MAX_DEFINITIONS]
        texts = line_texts(ctx.store, ((d.path, d.line) for d in shown))
        lines = [f"{len(defs)} definition(s) of {symbol!r}:"]
        for d in shown:
            span = f"{d.line}-{d.line_end}" if d.line_end and d.line_end != d.line else f"{d.line}"
            owner = f" in {d.container}" if d.container else ""
            lines.append(f"{d.path}:{span} {d.kind}{owner}: {texts.get((d.path, d.line), '')}")
        if len(defs) > len(shown):
            lines.append(f"… [{len(defs) - len(shown)} more not shown; use Class.method to narrow]")
        data = {
            "symbol": symbol,
            "definitions": [
                {
                    "path": d.path,
                    "line": d.line,
                    "lineEnd": d.line_end,
                    "kind": d.kind,
                    "container": d.container,
                }
                for d in shown
            ],
        }
        return ToolOutcome.ok("\n".join(lines), data=data)
