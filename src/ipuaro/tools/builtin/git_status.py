"""git_status: branch and changed files, from ``git status --porcelain``."""

from __future__ import annotations

from pydantic import BaseModel

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.git import require_repo, run_git
from ipuaro.tools.limits import MAX_FILES_LISTED


class GitStatusArgs(ArgsModel):
    pass


class GitStatusData(BaseModel):
    branch: str
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    staged: list[str] = []
    unstaged: list[str] = []
    untracked: list[str] = []
    conflicted: list[str] = []


def parse_status(text: str) -> GitStatusData:
    branch, upstream, ahead, behind = "(unknown)", None, 0, 0
    staged: list[str] = []
    unstaged: list[str] = []
    untracked: list[str] = []
    conflicted: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            head = line[3:]
            if head.startswith("No commits yet on "):
                branch = head.removeprefix("No commits yet on ")
                continue
            info = ""
            if " [" in head:
                head, info = head.split(" [", 1)
            if "..." in head:
                branch, upstream = head.split("...", 1)
            else:
                branch = head
            for part in info.rstrip("]").split(", "):
                if part.startswith("ahead "):
                    ahead = int(part[6:])
                elif part.startswith("behind "):
                    behind = int(part[7:])
            continue
        if len(line) < 4:
            continue
        x, y, path = line[0], line[1], line[3:]
        if x == "?" and y == "?":
            untracked.append(path)
        elif "U" in (x, y) or (x, y) in (("A", "A"), ("D", "D")):
            conflicted.append(path)
        else:
            if x != " ":
                staged.append(f"{_KIND.get(x, x)}: {path}")
            if y != " ":
                unstaged.append(f"{_KIND.get(y, y)}: {path}")
    return GitStatusData(
        branch=branch,
        upstream=upstream,
        ahead=ahead,
        behind=behind,
        staged=staged,
        unstaged=unstaged,
        untracked=untracked,
        conflicted=conflicted,
    )


_KIND = {"M": "modified", "A": "added", "D": "deleted", "R": "renamed", "C": "copied", "T": "type"}


class GitStatus(BaseTool):
    name = "git_status"
    description = "Show the git branch and which files are staged, modified or untracked."
    args_model = GitStatusArgs

    async def execute(self, args: GitStatusArgs, ctx: ToolContext) -> ToolOutcome:
        await require_repo(ctx.root)
        result = await run_git(
            ctx.root, "status", "--porcelain=v1", "--branch", "--untracked-files=all", "--", "."
        )  # `.`: only the project, when it is a subfolder of the repository
        if result.code != 0:
            raise ToolError(f"git status failed: {result.stderr.strip()}")
        status = parse_status(result.stdout)
        lines = [f"On branch {status.branch}"]
        if status.upstream:
            lines[0] += (
                f" (tracking {status.upstream}, ahead {status.ahead}, behind {status.behind})"
            )
        for title, items in (
            ("Conflicts", status.conflicted),
            ("Staged", status.staged),
            ("Not staged", status.unstaged),
            ("Untracked", status.untracked),
        ):
            if items:
                lines.append(f"{title} ({len(items)}):")
                lines += [f"  {item}" for item in items[:MAX_FILES_LISTED]]
                if len(items) > MAX_FILES_LISTED:
                    lines.append(f"  … {len(items) - MAX_FILES_LISTED} more")
        if len(lines) == 1:
            lines.append("Working tree clean.")
        return ToolOutcome.ok("\n".join(lines), data=status.model_dump())
