"""How ipuaro itself runs ``git``: never anything a repository's own configuration names.

A sandboxed command may write ``.git/config``, ``.git/hooks`` and ``.gitattributes`` (they are
project files), and a downloaded tarball ships them. ipuaro's own git runs *outside* the
sandbox (session start, the ``git_*`` tools), so every git invocation ipuaro makes goes through
:func:`git_argv` and :func:`git_environment`, which switch off each place where git would start
a program named by configuration:

- hooks (``core.hooksPath=/dev/null``) — ``git_commit`` included (see ``docs/security.md``);
- ``core.fsmonitor``, pagers, editors, askpass/credential helpers, signing programs, transports
  (``protocol.allow=never``: ipuaro never fetches), automatic ``gc``/maintenance;
- external diff and textconv programs (``--no-ext-diff --no-textconv`` on every command that
  prints diffs);
- clean/smudge/process filters: their driver names are free text, so the keys git would read
  are listed first (:func:`config_listing_argv`, which follows ``include.path`` the same way)
  and every ``filter.<name>.*`` program found is overridden with nothing
  (:func:`filter_overrides`).

Overrides go in ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``: command-line
scope, above every file (repository, included, global), passed on to child gits (submodules),
and safe for any name. The system file is skipped (``GIT_CONFIG_NOSYSTEM``); the user's own
global file stays (name, e-mail, excludes) — sandboxed commands cannot write it.

Which repository and work tree git uses is pinned too (``GIT_DIR``/``GIT_WORK_TREE`` from
:func:`ipuaro.security.git.git_place.git_place`): a ``.git`` file or ``core.worktree`` in the
project cannot point ipuaro's git at another repository or at folders outside the project.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ipuaro.security.git.git_place import GitPlace, GitPlaceRefused, git_place

__all__ = [
    "DIFF_COMMANDS",
    "HARDENED_CONFIG",
    "config_listing_argv",
    "filter_overrides",
    "git_argv",
    "git_environment",
    "run_git_sync",
]

HARDENED_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", "true"),
    ("sequence.editor", "true"),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("log.showSignature", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    ("status.submoduleSummary", "false"),
    ("diff.ignoreSubmodules", "all"),
    ("color.ui", "false"),
    ("core.quotepath", "false"),
)
"""Settings that win over every configuration file for ipuaro's own git."""

DIFF_COMMANDS = frozenset({"diff", "log", "show"})
"""Commands that may print a patch: they get ``--no-ext-diff --no-textconv``."""

_DROPPED_ENV = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR",
    "GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
    "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH",
    "GIT_TRACE", "GIT_TRACE2", "GIT_TRACE2_EVENT", "GIT_TRACE2_PERF",
)  # fmt: skip
_FIXED_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}
_FILTER_KEY = re.compile(r"filter\.(?P<name>.+)\.(?:clean|smudge|process|required)", re.S)


def config_listing_argv() -> list[str]:
    """The git that lists every configuration key it would read here (names only, following
    includes): the input of :func:`filter_overrides`. Reading runs nothing."""
    return ["git", "--no-pager", "config", "-z", "--name-only", "--list"]


def filter_overrides(listing: str) -> list[tuple[str, str]]:
    """Overrides that empty every clean/smudge/process filter named in ``listing`` (the output
    of :func:`config_listing_argv`) and make none of them required."""
    names: list[str] = []
    for key in listing.split("\0"):
        match = _FILTER_KEY.fullmatch(key.strip("\n"))
        if match and match["name"] not in names:
            names.append(match["name"])
    overrides: list[tuple[str, str]] = []
    for name in names:
        for var in ("clean", "smudge", "process"):
            overrides.append((f"filter.{name}.{var}", ""))
        overrides.append((f"filter.{name}.required", "false"))
    return overrides


def git_argv(*args: str) -> list[str]:
    """``git`` with ``args``: no pager, no optional locks, and ``--no-ext-diff --no-textconv``
    right after a command that may print a patch."""
    if not args:
        raise ValueError("git_argv needs a git command")
    command, *rest = args
    extra = ["--no-ext-diff", "--no-textconv"] if command in DIFF_COMMANDS else []
    return ["git", "--no-pager", "--no-optional-locks", command, *extra, *rest]


def git_environment(
    base: Mapping[str, str] | None = None,
    overrides: Iterable[tuple[str, str]] = (),
    place: GitPlace | None = None,
) -> dict[str, str]:
    """The environment for ipuaro's own git: ``base`` (default: this process's) without git
    variables that point elsewhere, with :data:`HARDENED_CONFIG` and ``overrides`` (from
    :func:`filter_overrides`) in command-line scope, and the repository pinned to ``place``."""
    env = {
        key: value
        for key, value in (os.environ if base is None else base).items()
        if key not in _DROPPED_ENV and not key.startswith("GIT_CONFIG_")
    }
    env.update(_FIXED_ENV)
    settings = [*HARDENED_CONFIG, *overrides]
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    for index, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    if place is not None:
        env.update(place.environment())
    return env


def run_git_sync(root: os.PathLike[str] | str, *args: str, timeout: float) -> tuple[int, str]:
    """Run ipuaro's hardened git in ``root`` and wait: (exit code, stdout). Code -1 when
    ``root`` is in no repository ipuaro's git may use (:func:`git_place`), git is missing, its
    configuration could not be listed, or it ran past ``timeout`` seconds."""
    import subprocess

    try:
        place = git_place(Path(root))
    except GitPlaceRefused:
        return -1, ""
    if place is None:
        return -1, ""

    def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, encoding="utf-8", errors="replace", timeout=timeout, check=False,
        )  # fmt: skip

    try:
        listing = run(config_listing_argv(), git_environment(place=place))
        if listing.returncode != 0:
            return -1, ""
        overrides = filter_overrides(listing.stdout)
        done = run(git_argv(*args), git_environment(overrides=overrides, place=place))
    except (OSError, subprocess.SubprocessError):
        return -1, ""
    return done.returncode, done.stdout
