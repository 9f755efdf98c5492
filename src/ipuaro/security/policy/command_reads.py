"""Reads a command makes that its words do not spell out: folders walked recursively
(``grep -r``, ``rg``, ``cp -r``, ``tar c``, ``zip -r``), and environment variables that look like
credentials (``$OPENAI_API_KEY``).

:class:`~ipuaro.security.policy.command_paths.Places` asks before such a read when the folder holds
a secret file; this module only knows which words of which programs are such folders.
"""

from __future__ import annotations

import re

from ipuaro.security.shell.shell_syntax import Word

__all__ = [
    "NAMES_ONLY",
    "SECRET_ALLOWANCE",
    "git_object_paths",
    "recursive_targets",
    "secret_name",
    "secret_variable",
]

SECRET_ALLOWANCE = "secrets need the user's allowance"
"""Ends the reason of every ask about a secret read (:attr:`CommandDecision.secret`): a secret
file, a credential-like variable, the environment printed."""

NAMES_ONLY = frozenset(
    {
        "ls", "cd", "pushd", "popd", "mkdir", "touch", "rm", "rmdir", "unlink", "stat", "du",
        "wc", "file", "basename", "dirname", "realpath", "readlink", "which", "type", "kill",
        "git", "npm", "pnpm", "yarn", "chmod", "chown", "export", "unset", "local", "read",
        "exit", "return", "shift", "wait", "sleep", "date", "true", "false", "tree",
    }
)  # fmt: skip
"""Programs whose operands, even when only known at run time, are not files whose content they
print (git's run-time words are revisions and messages; ``wc`` prints counts)."""

_GREPS = frozenset({"grep", "egrep", "fgrep", "zgrep"})
_SEARCHERS = frozenset({"rg", "ag", "ack"})  # recursive by default
_COPIERS = frozenset({"cp", "scp", "rsync"})
_GREP_WORDS = """
    -e -f -m -A -B -C -d -D --regexp --file --max-count --after-context --before-context
    --context --directories --devices --label --include --exclude --exclude-dir
"""
_SEARCH_WORDS = """
    -e -f -g -t -T -A -B -C -m -j -M -d -E -G --regexp --file --glob --iglob --type
    --type-not --after-context --before-context --context --max-count --threads --max-columns
    --max-depth --encoding --ignore-file --pre --pre-glob --sort --sortr --file-search-regex
"""
_GREP_VALUES = frozenset(_GREP_WORDS.split())  # options whose value is the next word
_SEARCH_VALUES = frozenset(_SEARCH_WORDS.split())
_NAMES_ONLY_SEARCH = frozenset({"--files", "--type-list", "--version", "-h", "--help"})
_SECRET_VAR = re.compile(r"\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*)")
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.IGNORECASE
)


def secret_name(name: str) -> bool:
    """Whether a variable's name looks like a credential (``DB_PASSWORD``, ``GITHUB_TOKEN``)."""
    return _SECRET_NAME.search(name) is not None


def secret_variable(word: Word) -> str | None:
    """The first ``$NAME`` in ``word`` whose name looks like a credential, if any."""
    if not word.dynamic:
        return None
    for found in _SECRET_VAR.finditer(word.raw):
        if secret_name(found.group(1)):
            return found.group(1)
    return None


def recursive_targets(name: str, args: list[Word]) -> tuple[str, list[Word]] | None:
    """``(what, folders)`` when ``name args`` reads every file under ``folders``; None if it
    does not walk folders. An empty operand list means the current directory."""
    if name in _GREPS:
        if not any(_is_recursive_grep(w.text) for w in args):
            return None
        operands, explicit = _split(args, _GREP_VALUES, ("-e", "-f", "--regexp", "--file"))
        folders = operands if explicit else operands[1:]
        return f"`{name} -r`", folders or [Word(".", ".")]
    if name in _SEARCHERS:
        if any(w.text in _NAMES_ONLY_SEARCH for w in args):
            return None
        operands, explicit = _split(args, _SEARCH_VALUES, ("-e", "-f", "--regexp", "--file"))
        folders = operands if explicit else operands[1:]
        return f"`{name}` (searches folders recursively)", folders or [Word(".", ".")]
    if name in _COPIERS and any(
        _has_flag(w.text, "rRa", ("--recursive", "--archive")) for w in args
    ):
        operands, _ = _split(args, frozenset({"-t", "--target-directory", "-S", "-e"}), ())
        return f"`{name} -r`", operands[:-1] if len(operands) > 1 else operands
    if name == "zip" and any(_has_flag(w.text, "r", ("--recurse-paths",)) for w in args):
        operands, _ = _split(args, frozenset({"-x", "-i", "-b", "-t", "-tt"}), ())
        return "`zip -r`", operands[1:]
    if name == "tar":
        return _tar(args)
    if name == "git" and _git_subcommand(args) == "grep":
        after = [w for i, w in enumerate(args) if any(a.text == "--" for a in args[:i])]
        return "`git grep`", after or [Word(".", ".")]
    return None


def git_object_paths(args: list[Word]) -> list[Word]:
    """Files git prints by name inside a revision: ``HEAD:.env``, ``:.env`` (the staged copy),
    ``v1.0:./config/key.pem``; ``git show``/``cat-file``/``archive`` read them from history."""
    paths: list[Word] = []
    for word in args:
        text = word.text
        if word.dynamic or text.startswith("-") or ":" not in text or "://" in text:
            continue
        revision, path = text.split(":", 1)
        if "@" in revision or not path:  # git@host:org/repo.git is a remote, not a file
            continue
        path = path.removeprefix("./").lstrip("/")
        paths.append(Word(path, word.raw))
    return paths


_GIT_VALUES = frozenset({"-c", "-C", "--git-dir", "--work-tree", "--namespace"})


def _git_subcommand(args: list[Word]) -> str | None:
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word.text in _GIT_VALUES:
            skip = True
        elif not word.text.startswith("-"):
            return word.text
    return None


def _is_recursive_grep(text: str) -> bool:
    if text in ("--recursive", "--dereference-recursive", "--directories=recurse"):
        return True
    return _has_flag(text, "rR", ())


def _has_flag(text: str, letters: str, long: tuple[str, ...]) -> bool:
    if text.startswith("--"):
        return text in long
    return text.startswith("-") and len(text) > 1 and any(c in text[1:] for c in letters)


def _split(
    args: list[Word], value_options: frozenset[str], pattern_options: tuple[str, ...]
) -> tuple[list[Word], bool]:
    """Operands (not options or their values) and whether a pattern came from an option."""
    operands: list[Word] = []
    explicit = skip = ended = False
    for word in args:
        text = word.text
        if skip:
            skip = False
            continue
        if ended or not text.startswith("-") or text == "-":
            operands.append(word)
        elif text == "--":
            ended = True
        else:
            option = text.split("=", 1)[0]
            short = not option.startswith("--") and option[:2] in pattern_options
            explicit |= option in pattern_options or short
            skip = text in value_options
    return operands, explicit


def _tar(args: list[Word]) -> tuple[str, list[Word]] | None:
    """``tar c`` (create/append) reads its operands; ``-f NAME`` is the archive it writes."""
    if not args:
        return None
    first = args[0].text
    old_style = not first.startswith("-")
    creating = any(
        w.text in ("--create", "--append", "-A", "--concatenate")
        or (w.text.startswith("-") and not w.text.startswith("--") and "c" in w.text)
        for w in args
    ) or (old_style and any(c in first for c in "crua"))
    if not creating:
        return None
    operands: list[Word] = []
    skip = False
    for index, word in enumerate(args):
        text = word.text
        if skip:
            skip = False
            continue
        if index == 0 and old_style:
            skip = "f" in text
            continue
        if text.startswith("--"):
            skip = text in ("--file", "--directory", "--exclude", "--files-from")
            continue
        if text.startswith("-") and len(text) > 1:
            skip = any(c in text[1:] for c in "fCTX")
            continue
        operands.append(word)
    return "`tar` (archives folders recursively)", operands
