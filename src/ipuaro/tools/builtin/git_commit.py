"""git_commit: commit on explicit request only; refuses empty commits and outside paths."""

from __future__ import annotations

import shlex

from pydantic import Field

from ipuaro.tools.base import (
    ArgsModel,
    BaseTool,
    ConfirmDecision,
    ConfirmRequest,
    ToolAborted,
    ToolContext,
    ToolError,
    ToolOutcome,
    ToolRefused,
)
from ipuaro.tools.common import project_path
from ipuaro.tools.git import require_repo, run_git


class GitCommitArgs(ArgsModel):
    message: str = Field(description="Commit message (first line: a short summary)")
    files: list[str] | None = Field(
        None, description="Files to stage and commit; default: what is already staged"
    )


class GitCommit(BaseTool):
    name = "git_commit"
    description = (
        "Commit changes to git. Only when the user asked for a commit. With files: stages and "
        "commits exactly those files; without: commits what is already staged."
    )
    args_model = GitCommitArgs
    read_only = False
    needs_confirmation = True

    async def execute(self, args: GitCommitArgs, ctx: ToolContext) -> ToolOutcome:
        message = args.message.strip()
        if not message:
            raise ToolError("message is empty; write what the commit changes.")
        await require_repo(ctx.root)
        files = self._files(ctx, args.files)
        if files:
            status = await run_git(ctx.root, "status", "--porcelain=v1", "--", *files)
            pending = [line[3:] for line in status.stdout.splitlines() if line.strip()]
            if not pending:
                raise ToolError("nothing to commit: " + ", ".join(files) + " have no changes.")
        else:
            staged = await run_git(ctx.root, "diff", "--cached", "--name-status", "--relative")
            pending = [line for line in staged.stdout.splitlines() if line.strip()]
            await self._refuse_staged_outside(ctx)
            if not pending:
                raise ToolError(
                    "nothing is staged, so the commit would be empty; pass files to commit."
                )
        await self._confirm(ctx, message, files, pending)
        if files:
            added = await run_git(ctx.root, "add", "-A", "--", *files)
            if added.code != 0:
                raise ToolError(f"git add failed: {added.stderr.strip()}")
        commit_args = ["commit", "-m", message]
        if files:
            commit_args += ["--", *files]
        result = await run_git(ctx.root, *commit_args)
        if result.code != 0:
            detail = (result.stderr or result.stdout).strip()
            raise ToolError(f"git commit failed: {detail}")
        summary = await run_git(ctx.root, "log", "-1", "--stat", "--format=%H%n%s")
        lines = summary.stdout.strip().splitlines()
        sha = lines[0] if lines else ""
        text = f"Committed {sha[:10]}: {message.splitlines()[0]}\n" + "\n".join(lines[2:])
        return ToolOutcome.ok(text.rstrip(), data={"commit": sha, "files": pending})

    @staticmethod
    async def _refuse_staged_outside(ctx: ToolContext) -> None:
        """In a monorepo whose subfolder is the project, a bare ``git commit`` would also commit
        what is staged elsewhere in the repository: refused, naming those paths."""
        everywhere = await run_git(ctx.root, "diff", "--cached", "--name-only", "--no-relative")
        inside = await run_git(ctx.root, "diff", "--cached", "--name-only", "--relative")
        prefix = await run_git(ctx.root, "rev-parse", "--show-prefix")
        inside_paths = {prefix.stdout.strip() + path for path in inside.stdout.splitlines()}
        outside = [p for p in everywhere.stdout.splitlines() if p and p not in inside_paths]
        if outside:
            shown = ", ".join(outside[:5]) + (
                f" and {len(outside) - 5} more" if len(outside) > 5 else ""
            )
            raise ToolRefused(
                f"files outside this project are staged in the repository ({shown}); a commit "
                "would include them. Pass the files to commit, or ask the user to unstage those."
            )

    @staticmethod
    def _files(ctx: ToolContext, files: list[str] | None) -> list[str]:
        out: list[str] = []
        for raw in files or []:
            rel = project_path(ctx, raw)  # refuses paths outside the project
            if rel == ".":
                raise ToolError("list the files to commit; '.' (everything) is not accepted.")
            if ctx.paths.is_secret(rel):
                raise ToolRefused(f"{rel} is a secret file (keys, .env) and is never committed.")
            out.append(rel)
        return out

    @staticmethod
    async def _confirm(
        ctx: ToolContext, message: str, files: list[str], pending: list[str]
    ) -> None:
        if ctx.auto_apply:
            return
        command = "git commit -m " + shlex.quote(message)
        if files:
            command = (
                "git add -A -- " + shlex.join(files) + " && " + command + " -- " + shlex.join(files)
            )
        if ctx.confirm is None:
            raise ToolRefused(
                "committing needs the user's confirmation and nobody can be asked in this run."
            )
        request = ConfirmRequest(
            kind="command",
            title="Create a git commit?",
            description=f"{message}\n\nChanges:\n" + "\n".join(f"  {p}" for p in pending),
            command=command,
        )
        answer = await ctx.confirm(request)
        decision = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
        if decision.choice == "abort":
            raise ToolAborted("the user declined the commit and stopped the request.")
        if decision.choice == "reject":
            raise ToolRefused("the user declined the commit.")
