"""edit_lines: replace a range of lines, as numbered in the version the model read."""

from __future__ import annotations

import contextlib
from typing import ClassVar

from pydantic import Field

from ipuaro.edits.lineedits import LineEditError, check_range, rebase_range
from ipuaro.edits.text import Lines, content_lines
from ipuaro.tools.base import (
    ArgsModel,
    BaseTool,
    Conflict,
    FileChange,
    ToolContext,
    ToolError,
    ToolOutcome,
)
from ipuaro.tools.common import short_hash
from ipuaro.tools.editing import DiskFile, apply_change, read_disk_allowed, require_existing

MIN_HASH_PREFIX = 6


class EditLinesArgs(ArgsModel):
    path: str = Field(description="File to change")
    start: int = Field(ge=1, description="First line to replace (1-based, as get_lines showed)")
    end: int = Field(ge=0, description="Last line to replace, inclusive; start-1 inserts")
    content: str = Field(description="New text for those lines (empty string deletes them)")
    expected_hash: str | None = Field(
        None, description="The hash get_lines showed; the edit is refused if the file changed"
    )


class EditLines(BaseTool):
    name = "edit_lines"
    description = (
        "Replace lines start..end of a file with content (line numbers from get_lines; "
        "end = start-1 inserts before start; empty content deletes). Shows a diff for "
        'confirmation. Example: {"path": "src/a.ts", "start": 10, "end": 12, '
        '"content": "const x = 1;\\nconst y = 2;"}'
    )
    args_model = EditLinesArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: EditLinesArgs, ctx: ToolContext) -> ToolOutcome:
        disk = await read_disk_allowed(ctx, args.path)
        text = require_existing(ctx, disk)
        description = f"edit_lines {disk.rel}:{args.start}-{args.end}"
        conflict = self._conflict(ctx, disk, args, description)
        if conflict is not None:
            _refresh_store(ctx, disk)
            outcome = ToolOutcome.fail(conflict.message)
            outcome.conflict = conflict
            return outcome
        lines = Lines.of(text)
        try:
            check_range(args.start, args.end, len(lines.lines))
        except LineEditError as error:
            raise ToolError(f"{disk.rel}: {error}") from None
        new_lines = splice(lines.lines, args.start, args.end, args.content)
        change = FileChange(disk.rel, text, lines.with_lines(new_lines))
        return await apply_change(ctx, change, description)

    @staticmethod
    def _conflict(
        ctx: ToolContext, disk: DiskFile, args: EditLinesArgs, description: str
    ) -> Conflict | None:
        assert disk.text is not None and disk.hash is not None
        seen = ctx.reads.get(disk.rel)
        expected = (args.expected_hash or "").strip().lower() or None
        if expected is not None:
            if len(expected) < MIN_HASH_PREFIX:
                raise ToolError(
                    f"expected_hash {args.expected_hash!r} is too short; pass the hash get_lines "
                    "showed (or leave it out)."
                )
            if disk.hash.startswith(expected):
                return None
            seen_lines: list[str] | None = None
            if seen is not None and seen.hash.startswith(expected):
                seen_lines = list(seen.lines)
            else:
                stored = ctx.store.get_file(disk.rel)
                if stored is not None and stored.hash.startswith(expected):
                    seen_lines = stored.lines
        elif seen is not None and seen.hash != disk.hash:
            expected, seen_lines = seen.hash, list(seen.lines)
        else:
            return None
        rebased = None
        if seen_lines is not None:
            current = Lines.of(disk.text)
            moved = rebase_range(seen_lines, current.lines, args.start, args.end)
            if moved is not None:
                new_lines = splice(current.lines, moved[0], moved[1], args.content)
                rebased = [FileChange(disk.rel, disk.text, current.with_lines(new_lines))]
        message = (
            f"Conflict: {disk.rel} changed since you read it (hash {short_hash(expected)} seen, "
            f"now {short_hash(disk.hash)}), so lines {args.start}-{args.end} may no longer be "
            "what you meant. Read the file again with get_lines and redo the edit."
        )
        return Conflict(disk.rel, message, expected, disk.hash, rebased, description)


def _refresh_store(ctx: ToolContext, disk: DiskFile) -> None:
    """After a conflict the model reads the file again: make sure the store has the disk's
    version by then (the watcher may not have caught up), or it would read the stale one."""
    stored = ctx.store.get_file(disk.rel)
    if stored is not None and stored.hash == disk.hash:
        return
    with contextlib.suppress(Exception):  # best effort; the watcher gets there too
        ctx.reindex([disk.rel], [])


def splice(lines: list[str], start: int, end: int, content: str) -> list[str]:
    return [*lines[: start - 1], *content_lines(content), *lines[end:]]
