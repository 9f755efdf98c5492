"""find_references: where a symbol is used, from the syntax-tree reference index (or from
the language server of ``index.languageServers`` when one is configured and answers)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.index.refs.references import judge_references
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import folder_prefix, plural
from ipuaro.tools.limits import MAX_REFERENCES
from ipuaro.tools.server_answers import references_outcome
from ipuaro.tools.snippets import close_symbols, line_texts


class FindReferencesArgs(ArgsModel):
    symbol: str = Field(description="Identifier to look for, e.g. createUser")
    path: str | None = Field(None, description="Only in this file or folder")


class FindReferences(BaseTool):
    name = "find_references"
    description = (
        "Find every place an identifier is used (path:line:column and the line), from the "
        "syntax tree, not text search."
    )
    args_model = FindReferencesArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: FindReferencesArgs, ctx: ToolContext) -> ToolOutcome:
        symbol = args.symbol.strip()
        if not symbol:
            raise ToolError("symbol is empty; give an identifier such as createUser.")
        name = symbol.rsplit(".", 1)[-1].removesuffix("()")
        prefix = folder_prefix(ctx, args.path)
        answered = await references_outcome(ctx, symbol.removesuffix("()"), name, prefix)
        if answered is not None:
            return answered
        candidates = ctx.store.find_references(name, prefix)
        judged = judge_references(ctx.store, name, candidates)
        refs = [j.reference for j in judged]
        confidence = {
            (r.path, r.line, r.column): j.confidence for r, j in zip(refs, judged, strict=True)
        }
        kept = sum(1 for r in refs if r.name == name)  # the rest are uses of import aliases
        left_out = len(candidates) - kept
        if not refs:
            where = f" under {prefix}" if prefix else ""
            close = close_symbols(ctx.store, name)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            if left_out:
                hint = (
                    f" ({plural(left_out, 'identifier')} so named are locals or other objects' "
                    "properties.)" + hint
                )
            return ToolOutcome.ok(
                f"No references to {name!r}{where}.{hint}",
                data={"symbol": name, "total": 0, "references": []},
            )
        shown = refs[:MAX_REFERENCES]
        texts = line_texts(ctx.store, ((r.path, r.line) for r in shown))
        files = len({r.path for r in refs})
        uncertain = sum(1 for j in judged if j.confidence == "name-only")
        heading = f"{plural(len(refs), 'reference')} to {name!r} in {plural(files, 'file')}"
        notes = []
        if uncertain:
            notes.append(f"{uncertain} only by name, marked ~")
        if left_out:
            notes.append(f"{left_out} same-named locals or properties of other objects left out")
        lines = [heading + (f" ({'; '.join(notes)})" if notes else "") + ":"]
        lines += [
            f"{'~' if confidence[(r.path, r.line, r.column)] == 'name-only' else ''}"
            f"{r.path}:{r.line}:{r.column}: {texts.get((r.path, r.line), '')}"
            for r in shown
        ]
        if len(refs) > len(shown):
            lines.append(
                f"… [{len(refs) - len(shown)} more not shown (limit {MAX_REFERENCES}); pass path "
                "to look in one folder or file]"
            )
        data = {
            "symbol": name,
            "total": len(refs),
            "leftOut": left_out,
            "references": [
                {
                    "path": r.path,
                    "line": r.line,
                    "column": r.column,
                    "confidence": confidence[(r.path, r.line, r.column)],
                }
                for r in shown
            ],
        }
        if ctx.language_servers is not None:
            data["source"] = "index"
        return ToolOutcome.ok("\n".join(lines), data=data)
