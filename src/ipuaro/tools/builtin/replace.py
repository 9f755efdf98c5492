"""replace: swap an exact (unique) piece of text; tolerant and fuzzy matching as fallbacks."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.edits.matching import MatchError, find_and_replace
from ipuaro.edits.text import Lines
from ipuaro.tools.base import ArgsModel, BaseTool, FileChange, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.editing import apply_change, read_disk_allowed, require_existing


class ReplaceArgs(ArgsModel):
    path: str = Field(description="File to change")
    old: str = Field(
        description="Exact existing text to replace (include enough lines to be unique)"
    )
    new: str = Field(description="Text to put in its place")
    replace_all: bool = Field(False, description="Replace every occurrence instead of one")


class Replace(BaseTool):
    name = "replace"
    description = (
        "Replace an exact piece of a file: `old` must appear once (copy it from get_lines "
        "without line numbers), `new` takes its place. Shows a diff for confirmation. "
        'Example: {"path": "src/a.ts", "old": "return a + b;", "new": "return a - b;"}'
    )
    args_model = ReplaceArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: ReplaceArgs, ctx: ToolContext) -> ToolOutcome:
        disk = await read_disk_allowed(ctx, args.path)
        text = require_existing(ctx, disk)
        lines = Lines.of(text)
        try:
            result = find_and_replace(
                lines.lines,
                args.old,
                args.new,
                replace_all=args.replace_all,
                threshold=ctx.config.edit.fuzzy_threshold,
            )
        except MatchError as error:
            raise ToolError(f"{disk.rel}: {error}") from None
        how = {
            "exact": "",
            "whitespace": " (matched ignoring indentation/trailing whitespace)",
            "fuzzy": f" (fuzzy match, {result.similarity:.0%} similar)",
        }[result.strategy]
        count = f"{result.count} occurrences" if result.count > 1 else "1 occurrence"
        description = f"replace {count} in {disk.rel}{how}"
        change = FileChange(disk.rel, text, lines.with_lines(result.lines))
        return await apply_change(ctx, change, description)
