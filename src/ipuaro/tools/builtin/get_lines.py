"""get_lines: read a file's lines (from the index) with line numbers."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.edits.diffs import numbered
from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import StoredFile, read_stored, short_hash, text_only
from ipuaro.tools.limits import MAX_OUTPUT_LINE_CHARS, MAX_READ_LINES, cap_line_for_read


class GetLinesArgs(ArgsModel):
    path: str = Field(description="File path, e.g. src/app.ts")
    start: int | None = Field(None, ge=1, description="First line (1-based). Default 1.")
    end: int | None = Field(None, ge=1, description="Last line, inclusive. Default: end of file.")
    column: int | None = Field(
        None,
        ge=1,
        description="First character of each line to show (1-based), to read on in a line "
        f"longer than {MAX_OUTPUT_LINE_CHARS} characters. Default 1.",
    )


class GetLines(BaseTool):
    name = "get_lines"
    description = (
        "Read lines of a file, numbered. Without start/end reads from the top "
        f"(at most {MAX_READ_LINES} lines per call; the answer says how to get the next part). "
        'Example: {"path": "src/app.ts", "start": 40, "end": 80}'
    )
    args_model = GetLinesArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GetLinesArgs, ctx: ToolContext) -> ToolOutcome:
        stored = await read_stored(ctx, args.path)
        lines = text_only(stored)
        total = len(lines)
        ctx.reads.record(stored.path, stored.data.hash, lines)
        if total == 0:
            return ToolOutcome.ok(f"{stored.path} is empty (0 lines).", data=_data(stored, 0, 0, 0))
        start = args.start or 1
        if start > total:
            raise ToolError(f"{stored.path} has {total} lines; start={start} is past the end.")
        end = min(args.end or total, total)
        if end < start:
            raise ToolError(f"end={args.end} is before start={start}.")
        shown_end = min(end, start + MAX_READ_LINES - 1)
        from_column = f", from column {args.column}" if args.column else ""
        header = (
            f"{stored.path} (lines {start}-{shown_end} of {total}{from_column}, "
            f"hash {short_hash(stored.data.hash)})"
        )
        column = args.column or 1
        shown = [
            cap_line_for_read(line[column - 1 :], stored.path, number, column)
            for number, line in enumerate(lines[start - 1 : shown_end], start)
        ]
        body = numbered(shown, start)
        text = f"{header}\n{body}"
        if shown_end < end:
            next_end = min(end, shown_end + MAX_READ_LINES)
            text += (
                f"\n… [lines {shown_end + 1}-{end} not shown ({MAX_READ_LINES} lines per call); "
                f'call get_lines with {{"path": "{stored.path}", "start": {shown_end + 1}, '
                f'"end": {next_end}}} for more]'
            )
        elif shown_end < total and args.end is None:
            text += f"\n… [{total - shown_end} more lines after line {shown_end}]"
        return ToolOutcome.ok(text, data=_data(stored, start, shown_end, total))


def _data(stored: StoredFile, start: int, end: int, total: int) -> dict[str, object]:
    return {
        "path": stored.path,
        "start": start,
        "end": end,
        "totalLines": total,
        "hash": stored.data.hash,
    }
