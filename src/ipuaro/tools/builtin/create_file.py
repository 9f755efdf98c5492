"""create_file: write a new file (or, with overwrite=true, replace a whole file)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.edits.text import new_file_text
from ipuaro.tools.base import ArgsModel, BaseTool, FileChange, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.editing import apply_change, read_disk_allowed


class CreateFileArgs(ArgsModel):
    path: str = Field(description="New file path")
    content: str = Field(description="The whole content of the file")
    overwrite: bool = Field(False, description="Replace the file if it already exists")


class CreateFile(BaseTool):
    name = "create_file"
    description = (
        "Create a file with the given content (folders are created as needed). Refuses to "
        "replace an existing file unless overwrite=true; to change part of a file use replace "
        'or edit_lines. Example: {"path": "src/util/sum.ts", "content": "export const sum = '
        '(a: number, b: number) => a + b;\\n"}'
    )
    args_model = CreateFileArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: CreateFileArgs, ctx: ToolContext) -> ToolOutcome:
        from ipuaro.security.policy.content import conform_to

        disk = await read_disk_allowed(ctx, args.path)
        if disk.text is not None:
            if not args.overwrite:
                raise ToolError(
                    f"{disk.rel} already exists ({len(disk.text.splitlines())} lines). Pass "
                    "overwrite=true to replace all of it, or use replace/edit_lines to change "
                    "a part."
                )
            new_text = conform_to(new_file_text(args.content), disk.text)
            return await apply_change(
                ctx, FileChange(disk.rel, disk.text, new_text), f"overwrite {disk.rel}"
            )
        change = FileChange(disk.rel, None, new_file_text(args.content))
        return await apply_change(ctx, change, f"create {disk.rel}")
