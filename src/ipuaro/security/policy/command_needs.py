"""Two questions the sandbox asks of a command the policy let through: does it need the
network (``npm install``, ``git fetch``, ``curl``), and does it only read (``ls``, ``git diff``)
— what may run without asking where no sandbox engine exists.

Both work on the words of every simple command the policy checked
(:attr:`~ipuaro.security.policy.commands.CommandDecision.segments`), nested ones included; both lean
to the safe side (a command not known to be read-only is not; a network command hidden behind a
name they do not know simply runs offline and fails with a permission error).
"""

from __future__ import annotations

from collections.abc import Sequence

from ipuaro.security.policy.command_rules import command_name
from ipuaro.security.shell.shell_syntax import ShellSyntaxError, parse_script

__all__ = ["NETWORK_PROGRAMS", "READ_ONLY_PROGRAMS", "needs_network", "only_reads"]

_ALWAYS_ONLINE = frozenset(
    {"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "telnet", "ftp", "http"}
)
NETWORK_PROGRAMS: dict[str, frozenset[str]] = {
    "npm": frozenset({"install", "i", "ci", "add", "update", "upgrade", "publish", "outdated",
                      "audit", "view", "info", "login", "dlx", "create", "init"}),
    "pnpm": frozenset({"install", "i", "add", "update", "up", "publish", "dlx", "outdated",
                       "audit", "create"}),
    "yarn": frozenset({"install", "add", "upgrade", "up", "dlx", "publish", "outdated",
                       "create", "npm"}),
    "bun": frozenset({"install", "i", "add", "update", "x", "create", "publish"}),
    "pip": frozenset({"install", "download", "index", "search"}),
    "pip3": frozenset({"install", "download", "index", "search"}),
    "uv": frozenset({"add", "sync", "lock", "pip", "tool", "python", "publish"}),
    "poetry": frozenset({"install", "add", "update", "lock", "publish", "search"}),
    "pipx": frozenset({"install", "run", "upgrade", "inject"}),
    "git": frozenset({"clone", "fetch", "pull", "push", "ls-remote", "submodule"}),
    "cargo": frozenset({"fetch", "install", "update", "add", "publish", "search"}),
    "go": frozenset({"get", "install", "mod"}),
    "docker": frozenset({"pull", "push", "build", "login", "run"}),
    "gh": frozenset({"api", "pr", "issue", "repo", "release", "run", "auth"}),
}  # fmt: skip
"""Program → subcommands that reach the network."""
_ONLINE_RUNNERS = frozenset({"uvx", "bunx"})

READ_ONLY_PROGRAMS = frozenset(
    {
        "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "ag", "pwd", "echo",
        "printf", "stat", "file", "which", "type", "du", "df", "date", "uname", "whoami",
        "basename", "dirname", "realpath", "readlink", "diff", "cmp", "cut",
        "tr", "nl", "column", "jq", "md5sum", "sha1sum", "sha256sum", "true", "false", "test",
        "[", "cd",
    }
)  # fmt: skip
"""Programs that only read (with no write redirection), whatever their arguments."""
_GIT_READS = frozenset({"status", "diff", "log", "show", "blame", "rev-parse", "ls-files",
                        "grep", "shortlog", "describe", "cat-file", "ls-tree"})  # fmt: skip
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


def needs_network(segments: Sequence[Sequence[str]]) -> str:
    """The first program (``npm install``) in ``segments`` that reaches the network; "" if none."""
    for words in segments:
        names = [command_name(word) for word in words]
        for index, name in enumerate(names):
            if name in _ALWAYS_ONLINE or name in _ONLINE_RUNNERS:
                return name
            online = NETWORK_PROGRAMS.get(name)
            if online is None:
                continue
            rest = [w for w in words[index + 1 :] if not w.startswith("-")]
            if rest and rest[0] in online:
                return f"{name} {rest[0]}"
            if name in ("pip", "pip3") and "install" in rest:
                return f"{name} install"
    return ""


def only_reads(command: str, segments: Sequence[Sequence[str]]) -> bool:
    """True when every program in ``command`` only reads and nothing is redirected into a file."""
    try:
        script = parse_script(command)
    except (ShellSyntaxError, RecursionError):
        return False
    for simple in script.commands:
        for redirect in simple.redirects:
            if redirect.op in _WRITES and redirect.target.text not in ("/dev/null", "1", "2"):
                return False
    for words in segments:
        if not words:
            continue
        name = command_name(words[0])
        if name == "git":
            operands = [w for w in words[1:] if not w.startswith("-")]
            if not operands or operands[0] not in _GIT_READS:
                return False
        elif name == "find":
            if any(w in ("-delete", "-exec", "-execdir", "-ok", "-fprint") for w in words):
                return False
        elif name not in READ_ONLY_PROGRAMS:
            return False
    return True
