"""Which repository ipuaro's own git may see for a project: never one the project's files name.

Git finds its repository by walking up from the working folder and then believes what it
finds there: a ``.git`` *file* (``gitdir: <anywhere>``) and ``core.worktree`` in ``.git/config``
are project content — a tarball ships them, a sandboxed command writes them — yet they move
git's repository or work tree anywhere on the machine (another private repository, the home
folder). So ipuaro locates the repository itself and pins both ends (:class:`GitPlace`, passed
as ``GIT_DIR``/``GIT_WORK_TREE``, which beat ``core.worktree``):

- ``PROJECT/.git`` a folder: that folder, with the project as work tree;
- ``PROJECT/.git`` a file: followed only when it is a real linked worktree whose own ``gitdir``
  file — outside the project, where no sandboxed command writes — points back at this project
  (:func:`linked_git_dirs`, the same check the sandbox makes before granting that folder), or
  a real submodule checkout (``<super>/.git/modules/…``, whose own ``core.worktree`` points
  back here; the sandbox grants no write to it); anything else (another repository, a
  symbolic link) and the project is *not* a repository for ipuaro's git, with a message
  naming the ``.git`` file;
- no ``.git`` in the project: the nearest folder above holding one (a monorepo opened at a
  subfolder), found the way git finds it — not across ``GIT_CEILING_DIRECTORIES``, nor across
  a file-system boundary unless ``GIT_DISCOVERY_ACROSS_FILESYSTEM`` says so. Callers limit
  what they print to the project (pathspec ``.``).

A ``core.worktree`` naming another folder than the work tree found here is refused too:
pinned to the project, git would still list every file of that other tree's index as deleted.

An explicit ``GIT_DIR`` skips git's ``safe.directory`` ownership check, so it is made here: a
repository owned by another user is refused unless ``safe.directory`` lists it (or ``*``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ipuaro.domain.errors import IpuaroError

__all__ = ["GitPlace", "GitPlaceRefused", "git_place", "linked_git_dirs"]

_MAX_DOT_GIT_FILE = 4096


class GitPlaceRefused(IpuaroError):
    """The project names a repository ipuaro's git will not use; the message says why."""


@dataclass(frozen=True)
class GitPlace:
    """The repository (``git_dir``) and work tree ipuaro's git uses for a project."""

    git_dir: Path
    work_tree: Path

    def environment(self) -> dict[str, str]:
        return {"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.work_tree)}


def linked_git_dirs(root: Path, home: Path) -> list[Path]:
    """``[worktree folder, common git folder]`` when ``root/.git`` is the file of a real linked
    worktree, else ``[]``.

    That file is project content, so what it names is never taken on its word: the named
    folder must be a real worktree folder (``<main>/.git/worktrees/<name>``, whose
    ``<main>/.git/HEAD`` exists) whose own ``gitdir`` file — outside the project, where no
    sandboxed command can write — points back at this project's ``.git``, and neither folder
    may be ``/``, the home folder, or one of their ancestors."""
    dot_git = root / ".git"
    try:
        if dot_git.is_symlink() or not dot_git.is_file():
            return []
        if dot_git.stat().st_size > _MAX_DOT_GIT_FILE:
            return []
        line = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return []
    if not line.startswith("gitdir:"):
        return []
    try:
        gitdir = (root / line.removeprefix("gitdir:").strip()).resolve()
        common = gitdir.parent.parent
        back = (gitdir / "gitdir").read_text(encoding="utf-8").strip()
        points_back = (gitdir / back).resolve() == dot_git.resolve()
    except (OSError, UnicodeDecodeError, RuntimeError, ValueError):
        return []
    if gitdir.parent.name != "worktrees" or not points_back or not (common / "HEAD").is_file():
        return []
    for folder in (gitdir, common):
        if folder == Path("/") or home.resolve().is_relative_to(folder):
            return []
    return [gitdir, common]


def git_place(root: Path, env: Mapping[str, str] | None = None) -> GitPlace | None:
    """The repository ipuaro's git uses for the project at ``root``; ``None`` when there is
    none. Raises :class:`GitPlaceRefused` when the project's ``.git`` names one it must not
    use."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    start = root.resolve()
    ceilings = _ceilings(env)
    across = env.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in {"1", "true", "yes", "on"}
    try:
        device = start.stat().st_dev
    except OSError:
        return None
    folder = start
    while True:
        place = _place_in(folder, home)
        if place is not None:
            _check_owner(place, env)
            _check_worktree_setting(place, env)
            return place
        parent = folder.parent
        if parent == folder or parent in ceilings:
            return None
        try:
            if not across and parent.stat().st_dev != device:
                return None
        except OSError:
            return None
        folder = parent


def _place_in(folder: Path, home: Path) -> GitPlace | None:
    dot_git = folder / ".git"
    if not (dot_git.is_symlink() or dot_git.exists()):
        return None
    if dot_git.is_symlink():
        raise GitPlaceRefused(
            f"{dot_git} is a symbolic link; ipuaro's git does not follow it, so {folder} is "
            "not a git repository for ipuaro (replace the link with the repository itself)."
        )
    if dot_git.is_dir():
        return GitPlace(dot_git, folder)
    linked = linked_git_dirs(folder, home)
    if linked:
        return GitPlace(linked[0], folder)
    module = _submodule_git_dir(folder, home)
    if module is not None:
        return GitPlace(module, folder)
    raise GitPlaceRefused(
        f"{dot_git} is a file naming another git folder that is not a linked worktree of "
        f"{folder} (its own gitdir file must point back here), so ipuaro's git treats "
        f"{folder} as not a git repository. Remove the file, or recreate the worktree with "
        "`git worktree add`."
    )


def _submodule_git_dir(folder: Path, home: Path) -> Path | None:
    """The git folder a submodule checkout's ``.git`` file names, when it is a real one: under
    ``<super>/.git/modules/`` (whose ``<super>/.git/HEAD`` exists) and its own
    ``core.worktree`` — in that folder, outside the project — points back at ``folder``."""
    dot_git = folder / ".git"
    try:
        if dot_git.stat().st_size > _MAX_DOT_GIT_FILE:
            return None
        line = dot_git.read_text(encoding="utf-8").strip()
        if not line.startswith("gitdir:"):
            return None
        gitdir = (folder / line.removeprefix("gitdir:").strip()).resolve()
    except (OSError, UnicodeDecodeError, RuntimeError, ValueError):
        return None
    supers = [p for p in gitdir.parents if p.name == "modules" and (p.parent / "HEAD").is_file()]
    if not supers or not (gitdir / "HEAD").is_file():
        return None
    if gitdir == Path("/") or home.resolve().is_relative_to(gitdir):
        return None
    if _worktree_setting(gitdir) != folder.resolve():
        return None
    return gitdir


def _ceilings(env: Mapping[str, str]) -> set[Path]:
    found: set[Path] = set()
    for entry in env.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep):
        if entry and os.path.isabs(entry):
            try:
                found.add(Path(entry).resolve())
            except (OSError, RuntimeError):
                continue
    return found


def _check_owner(place: GitPlace, env: Mapping[str, str]) -> None:
    """Git's ``safe.directory`` rule, which an explicit ``GIT_DIR`` would skip: the work tree
    and the git folder belong to this user, or the user listed the work tree as safe."""
    user = os.geteuid()
    allowed = {user}
    if user == 0 and env.get("SUDO_UID", "").isdigit():
        allowed.add(int(env["SUDO_UID"]))
    try:
        owners = {place.work_tree.stat().st_uid, place.git_dir.stat().st_uid}
    except OSError as error:
        raise GitPlaceRefused(f"cannot read {place.git_dir}: {error.strerror}") from None
    if owners <= allowed or _listed_safe(place.work_tree, env):
        return
    raise GitPlaceRefused(
        f"{place.work_tree} belongs to another user; git refuses such repositories. If you "
        f"trust it, run `git config --global --add safe.directory {place.work_tree}`."
    )


def _check_worktree_setting(place: GitPlace, env: Mapping[str, str]) -> None:
    """Refuse a repository whose ``core.worktree`` names another folder than its own: pinned
    to the project, git would list every file its index holds for that other tree (a planted
    commit of ``../../.aws/credentials``) as deleted."""
    value = _worktree_value(place.git_dir, env)
    if value is None:
        return  # not set (or no git: nothing runs, and GIT_WORK_TREE still pins the tree)
    if _worktree_setting(place.git_dir, env) != place.work_tree.resolve():
        raise GitPlaceRefused(
            f"{place.git_dir / 'config'} sets core.worktree = {value}, a work tree other than "
            f"{place.work_tree}; ipuaro's git does not look outside the project, so it treats "
            f"{place.work_tree} as not a git repository. Remove the setting with "
            "`git config --unset core.worktree` if you trust it."
        )


def _worktree_value(git_dir: Path, env: Mapping[str, str] | None = None) -> str | None:
    """The ``core.worktree`` the repository at ``git_dir`` sets (read by git, which starts
    nothing to read it), or ``None``."""
    base = os.environ if env is None else env
    clean = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(
            ["git", "config", "--get", "core.worktree"], cwd="/", stdin=subprocess.DEVNULL,
            env={**clean, "GIT_DIR": str(git_dir), "GIT_CONFIG_NOSYSTEM": "1"},
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None


def _worktree_setting(git_dir: Path, env: Mapping[str, str] | None = None) -> Path | None:
    """The folder ``core.worktree`` names (relative to ``git_dir``, as git reads it)."""
    value = _worktree_value(git_dir, env)
    if value is None:
        return None
    try:
        return (git_dir / value).resolve()
    except (OSError, RuntimeError):
        return None


def _listed_safe(work_tree: Path, env: Mapping[str, str]) -> bool:
    """Whether the user's (global or system) configuration lists ``work_tree`` as safe; read
    outside any repository, since git ignores ``safe.directory`` in a repository's own file."""
    try:
        done = subprocess.run(
            ["git", "config", "--get-all", "safe.directory"], cwd="/",
            env={k: v for k, v in env.items() if k not in {"GIT_DIR", "GIT_WORK_TREE"}},
            stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    values = [line.strip() for line in done.stdout.splitlines()]
    return "*" in values or str(work_tree) in values
