"""What a git command does, beyond its name: settings that make git run programs, transports
that are programs, subcommands that throw work away, and subcommands that write elsewhere.

- ``git -c KEY=VALUE`` / ``--config-env=KEY=VAR`` with a key whose value git runs or that
  chooses a transport (``alias.*``, ``core.pager``, ``core.sshCommand``, ``protocol.*``,
  ``url.*``, hooks, editors, ...): **deny**;
- ``ext::`` and ``fd::`` remote addresses, ``--upload-pack``/``--receive-pack``/``--exec``:
  **deny** (each runs an arbitrary program);
- work that cannot be got back — ``checkout -- PATH``/``checkout .``, ``restore``, ``rm``,
  ``stash drop/clear``, ``branch -D``, ``push --delete``/``:branch``/``+ref``/``--force…``:
  **ask** (the shipped blacklist may deny some outright, ``reset --hard`` for one);
- ``clone DEST``, ``archive -o``, ``worktree add``, ``bundle create``, ``format-patch -o``,
  ``init DIR`` outside the project: **deny**, like any write outside it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ipuaro.security.policy.command_findings import Where
from ipuaro.security.policy.command_rules import GIT_COMMAND_KEYS
from ipuaro.security.shell.shell_syntax import Word

if TYPE_CHECKING:
    from ipuaro.security.policy.command_check import Analysis

__all__ = ["GIT_REFUSED_KEYS", "check_git"]

GIT_REFUSED_KEYS = re.compile(
    r"^(protocol\..*|url\..*|http\..*proxy.*|remote\..*\.(url|pushurl|vcs|proxy)|hook\..*"
    r"|pager\..*|ssh\..*|core\.(editor|pager|hookspath|sshcommand|gitproxy|askpass)"
    r"|include\..*|includeif\..*)$",
    re.IGNORECASE,
)
"""Keys for transports, hooks, pagers, editors, ssh and included files, refused with
:data:`~ipuaro.security.policy.command_rules.GIT_COMMAND_KEYS` (values that are programs)."""

_PROGRAM_OPTIONS = ("--upload-pack", "--receive-pack", "--exec", "-u")
_PROGRAM_SUBCOMMANDS = frozenset({"clone", "fetch", "pull", "push", "ls-remote", "archive"})
_GLOBAL_VALUES = frozenset({"-C", "-c", "--config-env", "--namespace", "--git-dir", "--work-tree"})


def check_git(an: Analysis, args: list[Word], where: Where) -> None:
    """Global options first (``-C``, ``-c``, ``--config-env``), then the subcommand."""
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        value = args[index + 1] if index + 1 < len(args) else None
        if text == "-C" and value is not None:
            if value.dynamic or value.tilde or an.places.outside(value.text):
                an.add("ask", f"git works in `{value.raw}`, outside the project", where)
        elif text == "-c" and value is not None:
            _setting(an, value, "-c", where)
        elif text.startswith("--config-env="):
            _setting(
                an, Word(text.partition("=")[2], word.raw, dynamic=True), "--config-env", where
            )
        elif text == "--config-env" and value is not None:
            _setting(an, Word(value.text, value.raw, dynamic=True), "--config-env", where)
        elif text.startswith(("--git-dir", "--work-tree", "--exec-path")):
            an.add("ask", f"git option `{text}` points git elsewhere", where)
        elif not text.startswith("-"):
            _subcommand(an, text, args[index + 1 :], where)
            return
        index += 2 if text in _GLOBAL_VALUES and "=" not in text else 1


def _setting(an: Analysis, setting: Word, how: str, where: Where) -> None:
    """A setting for this one command: refused when git would run its value or use it to
    reach a remote; a plain value (``user.name``) is fine."""
    key, _, value = setting.text.partition("=")
    if GIT_REFUSED_KEYS.match(key) or GIT_COMMAND_KEYS.match(key):
        if value and not setting.dynamic:  # name what the value would run, too
            if key.lower().startswith("alias.") and not value.startswith("!"):
                an.analyse_text(f"git {value}", f"git {key}", where)
            else:
                an.analyse_text(value.removeprefix("!"), f"git {key}", where)
        an.add("deny", f"`git {how} {key}=...` makes git run a program or a transport", where)
        return
    if "ext::" in value or "fd::" in value:
        an.add("deny", f"`git {how} {key}` names an `ext::`/`fd::` transport", where)


def _subcommand(an: Analysis, name: str, args: list[Word], where: Where) -> None:
    texts = [w.text for w in args]
    for word in args:
        if word.text.startswith(("ext::", "fd::")) or "::ext::" in word.text:
            an.add("deny", f"`{word.text[:20]}` is a transport that runs a program", where)
            return
    if name in _PROGRAM_SUBCOMMANDS and any(
        t.startswith(_PROGRAM_OPTIONS) and not (t == "-u" and name == "push") for t in texts
    ):
        an.add("deny", f"`git {name}` is given a program to run on the remote side", where)
        return
    if name == "config" and any(t in ("--global", "--system") for t in texts):
        an.add(
            "ask", f"`git config {' '.join(texts[:1])}` changes settings outside the project", where
        )
    elif name == "config":
        keys = [t for t in texts if not t.startswith("-")]
        if keys and (GIT_COMMAND_KEYS.match(keys[0]) or GIT_REFUSED_KEYS.match(keys[0])):
            an.add("ask", f"sets git's `{keys[0]}`, which runs a command", where)
    discards = _discards(name, texts)
    if discards:
        an.add("ask", f"`git {name}` {discards}", where)
    for target, how in _writes(name, args):
        an.note(an.places.write(target, how), where)


def _discards(name: str, texts: list[str]) -> str:
    """How ``git NAME ARGS`` throws away work that git cannot give back; "" when it does not."""
    operands = [t for t in texts if not t.startswith("-")]
    if name == "checkout" and ("--" in texts or "." in operands or "-f" in texts or "-p" in texts):
        return "overwrites uncommitted changes in the files it names"
    if name == "restore" and not (set(texts) & {"--staged", "-S"} and "--worktree" not in texts):
        return "discards uncommitted changes"
    if name == "rm" and "--cached" not in texts:
        return "deletes files from the work tree"
    if name == "stash" and operands[:1] in (["drop"], ["clear"]):
        return "deletes stashed work for good"
    if name == "branch" and any(t in ("-D", "--delete", "-d") for t in texts):
        return "deletes a branch"
    if name == "reset" and "--hard" in texts:
        return "discards uncommitted changes"
    if name == "clean" and any(t.startswith("-") and "f" in t.lstrip("-") for t in texts):
        return "deletes untracked files"
    if name == "push":
        forced = any(t in ("-f", "--force", "--mirror", "--prune") or t.startswith("--force-with")
                     for t in texts)  # fmt: skip
        deletes = any(t in ("-d", "--delete") for t in texts)
        refs = operands[1:]
        if deletes or any(r.startswith(":") for r in refs):
            return "deletes a branch or tag on the remote"
        if forced or any(r.startswith("+") for r in refs):
            return "overwrites history on the remote"
    return ""


def _writes(name: str, args: list[Word]) -> list[tuple[Word, str]]:
    """Files or folders a git subcommand creates, by where its words say."""
    texts = [w.text for w in args]
    operands = [w for w in args if not w.text.startswith("-")]
    if name == "clone" and len(operands) >= 2:
        return [(operands[1], "`git clone` writes into")]
    if name == "init" and operands:
        return [(operands[0], "`git init` creates")]
    if name == "worktree" and texts[:1] == ["add"] and len(operands) >= 2:
        return [(operands[1], "`git worktree add` creates")]
    if name == "bundle" and texts[:1] == ["create"] and len(operands) >= 2:
        return [(operands[1], "`git bundle create` writes")]
    found: list[tuple[Word, str]] = []
    options = {"archive": ("-o", "--output"), "format-patch": ("-o", "--output-directory")}
    for option in options.get(name, ()):
        for index, word in enumerate(args):
            if word.text == option and index + 1 < len(args):
                found.append((args[index + 1], f"`git {name} {option}` writes"))
            elif word.text.startswith(option + "=") or (
                option == "-o" and word.text.startswith("-o") and len(word.text) > 2
            ):
                rest = word.text.split("=", 1)[1] if "=" in word.text else word.text[2:]
                found.append((Word(rest, rest, dynamic=word.dynamic), f"`git {name}` writes"))
    return found
