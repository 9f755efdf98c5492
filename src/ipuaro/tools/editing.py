"""What the edit tools share: reading the file to change from disk (the bytes a write will
replace) and turning an :class:`EditResult` into a tool outcome."""

from __future__ import annotations

from dataclasses import dataclass

from ipuaro.edits.engine import EditEngine
from ipuaro.edits.text import TextRefused, decode_utf8
from ipuaro.edits.transaction import read_current
from ipuaro.index.reader import content_hash
from ipuaro.tools.base import FileChange, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import did_you_mean


@dataclass(frozen=True)
class DiskFile:
    rel: str
    text: str | None
    """None when there is no file."""
    hash: str | None


def writable(ctx: ToolContext, path: str, *, deleting: bool = False) -> str:
    from ipuaro.security.paths import PathRefused

    try:
        if deleting:
            return ctx.paths.check_deletable(path).rel
        return ctx.paths.check_writable(path).rel
    except PathRefused as error:
        raise ToolError(error.reason) from None


def read_disk(ctx: ToolContext, path: str, *, deleting: bool = False) -> DiskFile:
    rel = writable(ctx, path, deleting=deleting)
    target = ctx.root / rel
    if target.is_dir():
        raise ToolError(f"{rel} is a directory, not a file.")
    data = read_current(target)
    if data is None:
        return DiskFile(rel, None, None)
    try:
        text = decode_utf8(data, rel)
    except TextRefused as error:
        raise ToolError(str(error)) from None
    if "\x00" in text:
        raise ToolError(f"{rel} is a binary file; it cannot be edited as text.")
    return DiskFile(rel, text, content_hash(data))


def require_existing(ctx: ToolContext, disk: DiskFile) -> str:
    if disk.text is None:
        raise ToolError(
            f"File not found: {disk.rel}. {did_you_mean(ctx, disk.rel)} "
            "(create_file makes a new file.)"
        )
    return disk.text


async def apply_change(ctx: ToolContext, change: FileChange, description: str) -> ToolOutcome:
    result = await EditEngine(ctx).apply([change], description)
    details = {
        "diff": result.diff,
        "files": [
            {"path": c.path, "oldText": c.old_text, "newText": c.new_text} for c in result.files
        ],
    }
    data = {
        "applied": result.applied,
        "paths": [c.path for c in result.files],
        "group": result.group,
    }
    if result.applied:
        return ToolOutcome.ok(result.message, data=data, details=details)
    outcome = ToolOutcome.fail(result.message, refused=result.refused, details=details)
    outcome.data = data
    return outcome
