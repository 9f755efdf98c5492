"""Running the real ``git`` binary for the git tools (no git library, no shell), always
hardened by :mod:`ipuaro.security.git.git_guard`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from ipuaro.security.git.git_guard import (
    config_listing_argv,
    filter_overrides,
    git_argv,
    git_environment,
)
from ipuaro.security.git.git_place import GitPlace, GitPlaceRefused, git_place
from ipuaro.tools.base import ToolError

GIT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class GitOutput:
    code: int
    stdout: str
    stderr: str


async def run_git(root: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> GitOutput:
    """Run ipuaro's hardened git (:mod:`ipuaro.security.git.git_guard`): nothing the repository's
    configuration names (hooks, fsmonitor, filters, external diffs, pagers) ever starts, and
    only the repository :func:`locate` allows is seen."""
    place = await asyncio.to_thread(locate, root)  # reads the repository's config: a git run
    listing = await _run(
        root, config_listing_argv(), git_environment(place=place), timeout, "config"
    )
    if listing.code != 0:
        detail = listing.stderr.strip() or f"exit code {listing.code}"
        raise ToolError(f"git could not read this repository's configuration: {detail}")
    env = git_environment(overrides=filter_overrides(listing.stdout), place=place)
    return await _run(root, git_argv(*args), env, timeout, args[0] if args else "git")


def locate(root: Path) -> GitPlace:
    """The repository ipuaro's git uses for ``root`` (:mod:`ipuaro.security.git.git_place`); a
    clear :class:`ToolError` when there is none or the project's ``.git`` names one it must
    not use."""
    try:
        place = git_place(root)
    except GitPlaceRefused as refused:
        raise ToolError(str(refused)) from None
    if place is None:
        raise ToolError(f"{root} is not a git repository (run `git init` to start one).")
    return place


async def _run(
    root: Path, argv: list[str], env: dict[str, str], timeout: float, what: str
) -> GitOutput:
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
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
        raise ToolError(f"git {what} took longer than {timeout:.0f}s and was stopped.") from None
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
