"""The tables behind the command policy, and blacklist patterns with normalised flags.

A blacklist pattern is ``name [subcommand ...] [flags ...]``: ``rm -rf``, ``git push --force``,
``npm publish``, ``sudo``. A command matches when its name (basename, lower-cased) is the same,
the pattern's subcommands appear in order among its operands, and the pattern's flags are a subset
of its flags after normalisation: clusters split (``-rf`` = ``-r -f``), order ignored, aliases
mapped (``-R``/``--recursive`` = ``-r``), GNU-style abbreviations accepted (``--rec``), options
after operands counted (GNU getopt permutes them).

Built-in safe list (allowed without asking, like the whitelist, but still subject to every deny
and ask rule): read-only inspection tools, test runners and a few shell builtins — see
``SAFE_COMMANDS``. It exists because the shipped whitelist is JavaScript-centric and an agent
that must ask before every ``ls`` or ``pytest`` is unusable. Tools that can write or run other
programs through their arguments (``sed``, ``awk``, ``cp``, ``mv``, ``rm``) are not on it.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from importlib import resources

from ipuaro.security.shell.shell_syntax import Word

__all__ = [
    "BUILTIN_DENY",
    "SAFE_COMMANDS",
    "Pattern",
    "command_name",
    "load_shipped_lists",
    "parse_pattern",
]

_SAFE_WORDS = """
    ls cat echo printf pwd grep egrep fgrep rg head tail wc sort uniq cut tr diff cmp comm
    find tree stat file du df basename dirname realpath readlink which type true false test [
    [[ : date sleep cd pushd popd export unset set trap tee touch mkdir jq column nl paste fold
    seq expr whoami uname hostname md5sum sha1sum sha256sum od strings pytest ruff mypy
    local return exit break continue shift wait let read
"""
SAFE_COMMANDS = frozenset(_SAFE_WORDS.split())
"""Allowed without asking (see the module docstring for why and what is left out)."""

SAFE_PYTHON_MODULES = frozenset({"pytest", "unittest", "mypy", "ruff", "py_compile", "doctest"})
"""``python -m X`` allowed like the safe list."""

BUILTIN_DENY = (
    "su",
    "doas",
    "pkexec",
    "git clean -f",
    "git push --mirror",
    "yarn publish",
    "pnpm publish",
    "npm unpublish",
    "mkfs",
    "shutdown",
    "reboot",
    "poweroff",
    "halt",
)
"""Denied in addition to the shipped blacklist: privilege escalation, irreversible repository
and registry actions, whole-machine actions."""

PRIVILEGE_NAMES = frozenset({"sudo", "su", "doas", "pkexec", "runas"})

PACKAGE_RUNNERS = frozenset({"npx", "bunx"})
"""Wrappers that run a package's program: when whitelisted, what they run is allowed too (deny
rules still apply). Other wrappers (``env``, ``timeout``, ``xargs``) never vouch for anything."""

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})

INLINE_CODE_FLAGS: dict[str, tuple[str, ...]] = {
    "python": ("-c",),
    "node": ("-e", "--eval", "-p", "--print"),
    "nodejs": ("-e", "--eval", "-p", "--print"),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "php": ("-r",),
    "bun": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "lua": ("-e",),
    "osascript": ("-e",),
}
"""Interpreters and the flags (or subcommand) that take program text on the command line."""

DANGEROUS_ENV = frozenset(
    {"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "IFS", "SHELLOPTS"}
    | {"BASHOPTS", "PROMPT_COMMAND", "PS4", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "PAGER"}
    | {"GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "NODE_OPTIONS", "PYTHONSTARTUP"}
    | {"PYTHONPATH", "DYLD_INSERT_LIBRARIES", "PERL5OPT", "RUBYOPT"}
)
"""Variables that change which program runs or inject code into one."""

COMMAND_ENV = frozenset(
    {"PAGER", "GIT_PAGER", "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SSH_COMMAND", "PROMPT_COMMAND"}
    | {"GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS"}
)
"""Variables whose value is a command line some program will run."""

GIT_COMMAND_KEYS = re.compile(
    r"^(alias\..*|core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)"
    r"|.*\.(command|cmd|textconv|clean|smudge|process|helper)|diff\.external"
    r"|sequence\.editor|gpg\.program|.*\.program|uploadpack|receivepack|credential\..*)$",
    re.IGNORECASE,
)
"""git configuration keys whose values are commands git will run."""

# Short-flag aliases and long-option spellings, per command, mapped to one atom.
FLAG_ALIASES: dict[str, dict[str, str]] = {
    "rm": {"-R": "r", "--recursive": "r", "--force": "f", "--dir": "d"},
    "git": {"--force": "f", "--force-with-lease": "f", "--hard": "--hard", "--mirror": "--mirror"},
    "chmod": {"--recursive": "R"},
    "chown": {"--recursive": "R"},
}

# Commands whose subcommands may be abbreviated (`npm pub` is `npm publish`).
ABBREVIATING = frozenset({"npm"})


def command_name(text: str) -> str:
    """``/usr/bin/RM`` → ``rm``: basename, lower-cased (case-insensitive file systems exist)."""
    name = text.rstrip("/").rsplit("/", 1)[-1].lower()
    if re.fullmatch(r"python[0-9.]*", name):
        return "python"
    if name.startswith("mkfs."):
        return "mkfs"  # mkfs.ext4 and friends
    return name


@dataclass(frozen=True)
class Pattern:
    text: str
    name: str
    subcommands: tuple[str, ...]
    flags: frozenset[str]


@dataclass(frozen=True)
class ArgShape:
    """A command's arguments reduced to what patterns look at."""

    flags: frozenset[str]
    operands: tuple[str, ...]
    dynamic_flags: bool  # a run-time word could still turn into any flag
    dynamic_first_operand: bool  # the first operand (the subcommand) is only known at run time


def _atoms(name: str, arg: str, generous: bool = True) -> set[str]:
    """Normalised flag atoms of one option word.

    ``generous`` (a command's own flags) also yields every long option the word abbreviates;
    a pattern's flags stay canonical so that ``-f`` and ``--force`` both satisfy ``--force``.
    """
    aliases = FLAG_ALIASES.get(name, {})
    if arg.startswith("--"):
        option = arg.split("=", 1)[0]
        atoms = {aliases.get(option, option)}
        if generous:
            atoms.add(option)
            if len(option) > 3:  # GNU/git accept unambiguous prefixes: `--rec` is `--recursive`
                atoms |= {atom for long, atom in aliases.items() if long.startswith(option)}
                atoms |= {long for long in aliases if long.startswith(option)}
        return atoms
    return {aliases.get(f"-{char}", char) for char in arg[1:]}


def shape_of(name: str, args: list[Word], generous: bool = True) -> ArgShape:
    flags: set[str] = set()
    operands: list[str] = []
    dynamic_flags = False
    dynamic_first = False
    end_of_options = False
    for word in args:
        text = word.text
        if word.dynamic:
            if not end_of_options:
                dynamic_flags = True
            if not operands and not text.startswith("-"):
                dynamic_first = True
            # the static prefix of `-r$X` still counts
            static = text.split("$", 1)[0].split("`", 1)[0]
            if static.startswith("-") and len(static) > 1 and not end_of_options:
                flags |= _atoms(name, static, generous)
            continue
        if end_of_options or not text.startswith("-") or text == "-":
            if name == "git" and text.startswith("+") and len(text) > 1:
                flags.add("f")  # `git push origin +main` is a force push
            operands.append(text)
        elif text == "--":
            end_of_options = True
        elif not re.fullmatch(r"-\d+", text):
            flags |= _atoms(name, text, generous)
    return ArgShape(frozenset(flags), tuple(operands), dynamic_flags, dynamic_first)


def parse_pattern(text: str) -> Pattern:
    """``"git push --force"`` → name ``git``, subcommands ``(push,)``, flags ``{f}``."""
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ValueError(f"blacklist pattern {text!r} cannot be parsed: {error}") from None
    if not words:
        raise ValueError("blacklist pattern is empty; give a command name such as 'rm -rf'")
    name = command_name(words[0])
    shape = shape_of(name, [Word(w, w) for w in words[1:]], generous=False)
    return Pattern(" ".join(words), name, shape.operands, shape.flags)


def _flag_present(atom: str, flags: frozenset[str]) -> bool:
    if atom in flags:
        return True
    # `--har` given for pattern `--hard`: abbreviations of the pattern's own long options
    return atom.startswith("--") and any(
        f.startswith("--") and len(f) > 3 and atom.startswith(f) for f in flags
    )


def _subsequence(wanted: tuple[str, ...], operands: tuple[str, ...], abbreviate: bool) -> bool:
    position = 0
    for operand in operands:
        if position == len(wanted):
            break
        target = wanted[position]
        low = operand.lower()
        if low == target or (abbreviate and len(low) >= 3 and target.startswith(low)):
            position += 1
    return position == len(wanted)


def match(pattern: Pattern, name: str, shape: ArgShape) -> str | None:
    """``"match"``, ``"maybe"`` (run-time words could complete it) or None."""
    if pattern.name != name:
        return None
    abbreviate = name in ABBREVIATING
    subs_ok = _subsequence(pattern.subcommands, shape.operands, abbreviate)
    flags_ok = all(_flag_present(atom, shape.flags) for atom in pattern.flags)
    if subs_ok and flags_ok:
        return "match"
    subs_maybe = subs_ok or (shape.dynamic_first_operand and len(pattern.subcommands) <= 1)
    if subs_maybe and (flags_ok or shape.dynamic_flags):
        return "maybe"
    return None


def load_shipped_lists() -> tuple[list[str], list[str]]:
    """The blacklist and default whitelist shipped as package data."""
    data = resources.files("ipuaro.config").joinpath("data")
    blacklist = json.loads(data.joinpath("blacklist.json").read_text("utf-8"))["commands"]
    whitelist = json.loads(data.joinpath("whitelist.json").read_text("utf-8"))["default"]
    return [str(item) for item in blacklist], [str(item) for item in whitelist]
