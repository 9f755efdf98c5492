"""delete_file: remove one file (confirmed, undoable)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, FileChange, ToolContext, ToolOutcome
from ipuaro.tools.editing import apply_change, read_disk_allowed, require_existing


class DeleteFileArgs(ArgsModel):
    path: str = Field(description="File to delete")


class DeleteFile(BaseTool):
    name = "delete_file"
    description = "Delete one file (asks the user first; can be undone). Folders are not deleted."
    args_model = DeleteFileArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: DeleteFileArgs, ctx: ToolContext) -> ToolOutcome:
        disk = await read_disk_allowed(ctx, args.path, deleting=True)
        text = require_existing(ctx, disk)
        return await apply_change(ctx, FileChange(disk.rel, text, None), f"delete {disk.rel}")
