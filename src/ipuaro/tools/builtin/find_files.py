"""find_files: indexed files whose path matches a glob (or contains a name)."""

from __future__ import annotations

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.globs import compile_globs, has_glob
from ipuaro.tools.limits import MAX_FILES_LISTED


class FindFilesArgs(ArgsModel):
    pattern: str = Field(
        description="Glob such as *.test.ts or src/**/user*.py, or part of a file name"
    )


class FindFiles(BaseTool):
    name = "find_files"
    description = (
        "Find files by name: a glob (*.ts, src/**/*.py, *.{ts,tsx}) or a plain part of the "
        "file name."
    )
    args_model = FindFilesArgs

    async def execute(self, args: FindFilesArgs, ctx: ToolContext) -> ToolOutcome:
        pattern = args.pattern.strip()
        if not pattern:
            raise ToolError("pattern is empty; give a glob such as *.ts or part of a name.")
        paths = sorted(ctx.store.file_hashes())
        if has_glob(pattern) or "/" in pattern:
            spec = compile_globs(pattern)
            found = [p for p in paths if spec.match_file(p)]
        else:
            needle = pattern.lower()
            found = [p for p in paths if needle in p.rsplit("/", 1)[-1].lower()]
        if not found:
            return ToolOutcome.ok(
                f"No indexed file matches {pattern!r}. Try a broader pattern such as "
                f"**/*{pattern.strip('*')}*.",
                data={"pattern": pattern, "total": 0, "files": []},
            )
        shown = found[:MAX_FILES_LISTED]
        text = f"{len(found)} file(s) match {pattern!r}:\n" + "\n".join(shown)
        if len(found) > len(shown):
            text += (
                f"\n… [{len(found) - len(shown)} more not shown (limit {MAX_FILES_LISTED}); "
                "use a more specific pattern]"
            )
        return ToolOutcome.ok(text, data={"pattern": pattern, "total": len(found), "files": shown})
