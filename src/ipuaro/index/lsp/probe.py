"""What ``ipuaro doctor`` says about ``index.languageServers``: per configured language, the
program found (its path and version when one command asks it cheaply) or what to install,
nothing started."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ipuaro.index.lsp.manager import DEFAULT_COMMANDS, search_path

INSTALL = {
    "basedpyright-langserver": "pip install basedpyright",
    "pyright-langserver": "npm i -g pyright",
    "typescript-language-server": "npm i -g typescript typescript-language-server",
    "gopls": "go install golang.org/x/tools/gopls@latest",
    "rust-analyzer": "rustup component add rust-analyzer",
}
"""A known server's program → the command that installs it."""

VERSION = {
    "basedpyright-langserver": ("basedpyright", "--version"),
    "pyright-langserver": ("pyright", "--version"),
    "typescript-language-server": ("typescript-language-server", "--version"),
    "gopls": ("gopls", "version"),
    "rust-analyzer": ("rust-analyzer", "--version"),
}
"""A known server's program → the command that prints its version (a sibling program for
pyright, whose language server has no ``--version``)."""

VERSION_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class ServerCheck:
    """One doctor line: ``language server LANGUAGE``."""

    language: str
    ok: bool
    detail: str
    fix: str | None = None


def check_language_servers(
    configured: Mapping[str, str | bool], environ: Mapping[str, str] | None = None
) -> list[ServerCheck]:
    """One check per configured language (``false`` ones are off: skipped)."""
    return [
        _check(language, value, environ)
        for language, value in configured.items()
        if value is not False
    ]


def _check(language: str, value: str | bool, environ: Mapping[str, str] | None) -> ServerCheck:
    where = search_path(environ)
    if value is True:
        known = DEFAULT_COMMANDS.get(language, ())
        for candidate in known:
            found = shutil.which(candidate[0], path=where)
            if found is not None:
                return _found(language, candidate[0], found, where)
        if not known:
            return ServerCheck(
                language,
                False,
                "true, but ipuaro knows no server for this language",
                f'give its command in index.languageServers, e.g. "{language}": "NAME --stdio"',
            )
        names = ", ".join(c[0] for c in known)
        return ServerCheck(
            language,
            False,
            f"true, but none of {names} is on PATH or beside ipuaro's Python",
            f"`{INSTALL[known[0][0]]}`",
        )
    try:
        argv = shlex.split(value) if isinstance(value, str) else []
    except ValueError as err:
        return ServerCheck(
            language, False, f"{value!r} is not a command: {err}", "correct the quoting"
        )
    if not argv:
        return ServerCheck(language, False, "the command is empty", "give the server's command")
    program = argv[0]
    found = shutil.which(program, path=where)
    if found is None:
        install = INSTALL.get(Path(program).name)
        fix = (
            f"`{install}`, or correct index.languageServers.{language} in the user config"
            if install is not None
            else f"install {program}, or correct index.languageServers.{language} in the "
            "user config"
        )
        return ServerCheck(
            language, False, f"{program} not found (on PATH or beside ipuaro's Python)", fix
        )
    return _found(language, program, found, where)


def _found(language: str, program: str, path: str, where: str) -> ServerCheck:
    name = Path(program).name
    version = _version(name, path, where)
    if version is _PROXY_ONLY:
        return ServerCheck(
            language,
            False,
            f"{path} is rustup's proxy, but the {name} component is not installed",
            f"`{INSTALL.get(name, f'rustup component add {name}')}`",
        )
    return ServerCheck(language, True, f"{path}{f' ({version})' if version else ''}")


_PROXY_ONLY = "\0proxy"
"""``_version``'s answer for a rustup proxy whose component is missing ("Unknown binary")."""


def _version(name: str, path: str, where: str) -> str | None:
    """The first line a known server's version command prints; None when it has none, fails
    or takes long; :data:`_PROXY_ONLY` for a rustup proxy with nothing behind it."""
    asked = VERSION.get(name)
    if asked is None:
        return None
    program = path if asked[0] == name else _sibling(path, asked[0], where)
    if program is None:
        return None
    try:
        done = subprocess.run(
            [program, *asked[1:]],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 and "Unknown binary" in done.stderr:
        return _PROXY_ONLY
    if done.returncode != 0 or not lines:
        return None
    return lines[0].strip()[:80]


def _sibling(path: str, name: str, where: str) -> str | None:
    beside = Path(path).parent / name
    return str(beside) if beside.is_file() else shutil.which(name, path=where)
