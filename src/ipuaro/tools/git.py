"""Running the real ``git`` binary for the git tools (no git library, no shell)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

from ipuaro.tools.base import ToolError

GIT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class GitOutput:
    code: int
    stdout: str
    stderr: str


async def run_git(root: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> GitOutput:
    env = dict(os.environ)
    # Plain, stable output whatever the user's git config says; never open an editor or pager.
    env.update(
        {"GIT_PAGER": "cat", "GIT_EDITOR": "true", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    )
    try:
        process = await asyncio.create_subprocess_exec(
            "git",
            "-c",
            "color.ui=false",
            "-c",
            "core.quotepath=false",
            *args,
            cwd=root,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError:
        raise ToolError("git is not installed (no `git` on PATH).") from None
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise ToolError(f"git {args[0]} took longer than {timeout:.0f}s and was stopped.") from None
    return GitOutput(
        process.returncode if process.returncode is not None else -1,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
    )


async def require_repo(root: Path) -> None:
    result = await run_git(root, "rev-parse", "--is-inside-work-tree")
    if result.code != 0 or result.stdout.strip() != "true":
        raise ToolError(f"{root} is not a git repository (run `git init` to start one).")


async def has_head(root: Path) -> bool:
    return (await run_git(root, "rev-parse", "--verify", "--quiet", "HEAD")).code == 0
