"""git_diff: uncommitted changes (staged and not staged) against HEAD."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import project_path
from ipuaro.tools.git import has_head, require_repo, run_git
from ipuaro.tools.limits import MAX_DIFF_CHARS, clip_text


class GitDiffArgs(ArgsModel):
    path: str | None = Field(None, description="Only this file or folder")
    staged: bool = Field(False, description="Only changes already staged for commit")


class GitDiff(BaseTool):
    name = "git_diff"
    description = (
        "Show uncommitted changes as a unified diff (staged and unstaged, against the last "
        'commit). Example: {"path": "src/app.ts"}'
    )
    args_model = GitDiffArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GitDiffArgs, ctx: ToolContext) -> ToolOutcome:
        await require_repo(ctx.root)
        spec: list[str] = []
        if args.path:
            rel = project_path(ctx, args.path)
            spec = ["--", rel]
        if args.staged or not await has_head(ctx.root):
            command = ["diff", "--cached", "--no-ext-diff", *spec]
        else:
            command = ["diff", "HEAD", "--no-ext-diff", *spec]
        result = await run_git(ctx.root, *command)
        if result.code != 0:
            raise ToolError(f"git diff failed: {result.stderr.strip()}")
        diff = result.stdout
        untracked = await run_git(ctx.root, "ls-files", "--others", "--exclude-standard", *spec)
        new_files = [p for p in untracked.stdout.splitlines() if p]
        if not diff.strip() and not new_files:
            return ToolOutcome.ok("No uncommitted changes.", data={"diff": "", "untracked": []})
        more = "call git_diff with a path to see one file"
        text, cut = clip_text(diff, MAX_DIFF_CHARS, more) if diff else ("", False)
        if new_files:
            text += (
                ("\n" if text else "")
                + "Untracked files (not in the diff): "
                + ", ".join(new_files[:50])
            )
        return ToolOutcome.ok(
            text,
            data={"untracked": new_files, "truncated": cut},
            details={"diff": diff},
        )
