"""edit_file: apply a sketch with ``// ... existing code ...`` markers; the planner sub-agent
takes over when the markers cannot be placed deterministically."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.edits.lineedits import LineEditError, apply_line_edits
from ipuaro.edits.markers import MergeFailed, is_marker, merge_markers
from ipuaro.edits.planner import PlanError
from ipuaro.edits.text import Lines, new_file_text
from ipuaro.tools.base import ArgsModel, BaseTool, FileChange, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.editing import apply_change, read_disk_allowed


class EditFileArgs(ArgsModel):
    target_file: str = Field(description="File to change")
    instructions: str = Field(description="One sentence saying what the edit does")
    code_edit: str = Field(
        description="The changed code with enough unchanged lines around it to locate it; "
        "mark skipped unchanged code with a comment line `// ... existing code ...` "
        "(`# ... existing code ...` in Python/YAML)"
    )


class EditFile(BaseTool):
    name = "edit_file"
    description = (
        "Edit a file by writing only the changed part: start and end each changed block with an "
        "unchanged line from the file, and put `// ... existing code ...` (or `# ...` in Python) "
        "on its own line wherever unchanged code is skipped. A file that does not exist is "
        'created from code_edit. Example: {"target_file": "src/a.ts", "instructions": "return '
        'the difference", "code_edit": "// ... existing code ...\\nfunction sub(a, b) {\\n  '
        'return a - b;\\n}\\n// ... existing code ..."}'
    )
    args_model = EditFileArgs
    read_only = False
    needs_confirmation = True
    path_fields: ClassVar[tuple[str, ...]] = ("target_file",)

    async def execute(self, args: EditFileArgs, ctx: ToolContext) -> ToolOutcome:
        disk = await read_disk_allowed(ctx, args.target_file)
        if disk.text is None:
            if any(is_marker(line) for line in args.code_edit.splitlines()):
                raise ToolError(
                    f"{disk.rel} does not exist, so there is no existing code for the markers; "
                    "send the whole file content (create_file) or check the path."
                )
            change = FileChange(disk.rel, None, new_file_text(args.code_edit))
            return await apply_change(ctx, change, f"edit_file (create) {disk.rel}")
        lines = Lines.of(disk.text)
        how = "markers merged"
        try:
            new_lines = merge_markers(lines.lines, args.code_edit)
        except MergeFailed as failure:
            if ctx.planner is None:
                raise ToolError(
                    f"edit_file could not place the edit in {disk.rel}: {failure}. Use replace "
                    "with the exact old text, or edit_lines with line numbers."
                ) from None
            try:
                plan = await ctx.planner.plan(disk.text, args.instructions, args.code_edit)
                new_lines = apply_line_edits(lines.lines, plan)
            except (PlanError, LineEditError) as error:
                raise ToolError(
                    f"edit_file could not place the edit in {disk.rel} ({failure}), and the "
                    f"edit planner failed: {error}. Use replace or edit_lines instead."
                ) from None
            how = f"planned as {len(plan)} line edit(s)"
        change = FileChange(disk.rel, disk.text, lines.with_lines(new_lines))
        return await apply_change(ctx, change, f"edit_file {disk.rel}: {args.instructions} ({how})")
