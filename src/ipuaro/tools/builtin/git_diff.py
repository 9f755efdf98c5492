"""git_diff: uncommitted changes (staged and not staged) against HEAD.

Secret files (``.env``, keys; :meth:`PathPolicy.is_secret`) are cut out of the diff and named
only ("secret file changed, contents hidden") unless the user allowed reading them this session;
asking for the diff of one secret file by path asks the user, like ``get_lines`` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from pydantic import Field

from ipuaro.tools.base import ArgsModel, BaseTool, ToolContext, ToolError, ToolOutcome
from ipuaro.tools.common import ensure_secret_allowed, project_path
from ipuaro.tools.git import has_head, require_repo, run_git
from ipuaro.tools.limits import MAX_DIFF_CHARS, clip_text


class GitDiffArgs(ArgsModel):
    path: str | None = Field(None, description="Only this file or folder")
    staged: bool = Field(False, description="Only changes already staged for commit")


class GitDiff(BaseTool):
    name = "git_diff"
    description = (
        "Show uncommitted changes as a unified diff (staged and unstaged, against the last commit)."
    )
    args_model = GitDiffArgs
    path_fields: ClassVar[tuple[str, ...]] = ("path",)

    async def execute(self, args: GitDiffArgs, ctx: ToolContext) -> ToolOutcome:
        await require_repo(ctx.root)
        spec = ["--", "."]  # only the project, when it is a subfolder of the repository
        allowed_now: set[str] = set()
        if args.path:
            rel = project_path(ctx, args.path)
            if ctx.paths.is_secret(rel):
                await ensure_secret_allowed(ctx, rel)  # raises unless the user allows it
                allowed_now.add(rel)
            spec = ["--", rel]
        if args.staged or not await has_head(ctx.root):
            command = ["diff", "--cached", "--no-ext-diff", *spec]
        else:
            command = ["diff", "HEAD", "--no-ext-diff", *spec]
        result = await run_git(ctx.root, *command)
        if result.code != 0:
            raise ToolError(f"git diff failed: {result.stderr.strip()}")
        prefix = ""  # the project's folder inside the repository, when it is not the top
        if ctx.grants.secrets or allowed_now:
            prefix = (await run_git(ctx.root, "rev-parse", "--show-prefix")).stdout.strip()
        allowed = {prefix + rel for rel in ctx.grants.secrets | allowed_now}
        diff, hidden = hide_secrets(result.stdout, ctx.paths.is_secret, allowed)
        untracked = await run_git(ctx.root, "ls-files", "--others", "--exclude-standard", *spec)
        new_files = [p for p in untracked.stdout.splitlines() if p]
        if not diff.strip() and not new_files and not hidden:
            return ToolOutcome.ok("No uncommitted changes.", data={"diff": "", "untracked": []})
        more = "call git_diff with a path to see one file"
        text, cut = clip_text(diff, MAX_DIFF_CHARS, more) if diff else ("", False)
        if hidden:
            text += ("\n" if text else "") + (
                "Secret files changed, contents hidden (the user must allow reading them): "
                + ", ".join(hidden)
            )
        if new_files:
            text += (
                ("\n" if text else "")
                + "Untracked files (not in the diff): "
                + ", ".join(new_files[:50])
            )
        return ToolOutcome.ok(
            text,
            data={"untracked": new_files, "truncated": cut, "hiddenSecrets": hidden},
            details={"diff": diff},
        )


def hide_secrets(
    diff: str, is_secret: Callable[[str], bool], allowed: set[str]
) -> tuple[str, list[str]]:
    """``diff`` without the sections of secret files not in ``allowed``, and their names.

    Paths in the diff are relative to the repository's top, which may be above the project;
    the secret patterns match at any depth (``.env``, ``*.pem``, ``**/secrets/**``) so they
    classify either form."""
    kept: list[str] = []
    hidden: list[str] = []
    for section in _SECTION.split(diff):
        if not section:
            continue
        names = _section_paths(section)
        secret = [n for n in names if is_secret(n) and n not in allowed]
        if secret:
            hidden.extend(n for n in secret if n not in hidden)
        else:
            kept.append(section)
    return "".join(kept), hidden


_SECTION = re.compile(r"(?m)^(?=diff --git )")
_HEADER_PATH = re.compile(
    r"(?m)^(?:--- a/|\+\+\+ b/|rename from |rename to |copy from |copy to )(.+)$"
)


def _section_paths(section: str) -> list[str]:
    first = section.split("\n", 1)[0].removeprefix("diff --git ")
    names = [m.group(1).strip('"') for m in _HEADER_PATH.finditer(section)]
    if first.startswith(("a/", '"a/')):
        half = first.strip('"').removeprefix("a/")
        # `a/P b/P` when nothing was renamed; both halves are checked either way
        names.extend(part.strip('"').removeprefix("b/") for part in half.split(" b/", 1))
    return [n for n in dict.fromkeys(names) if n]
