"""What particular programs do with their arguments: shells and interpreters that run code given
inline or on stdin, ``find -exec``, and git options that make git run commands.

Each function adds findings to the :class:`~ipuaro.security.policy.command_check.Analysis` it is
given and may return an allow reason when it has checked everything the program will run.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ipuaro.security.policy.command_findings import Where
from ipuaro.security.policy.command_reads import NAMES_ONLY
from ipuaro.security.policy.command_rules import INLINE_CODE_FLAGS, SAFE_PYTHON_MODULES
from ipuaro.security.shell.shell_syntax import Word

if TYPE_CHECKING:
    from ipuaro.security.policy.command_check import Analysis

__all__ = ["check_find", "check_interpreter", "check_shell", "installs_globally"]

# String literals in program text ('...', "...", `...`): shell commands hide in them.
_LITERAL = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"|`([^`]*)`")


def check_shell(
    an: Analysis, name: str, args: list[Word], where: Where, piped: bool, stdin: str | None
) -> str | None:
    """``bash -c CODE`` is checked; a script file is asked about; code from a pipe refused."""
    has_c = reads_stdin = skip = False
    for word in args:
        text = word.text
        if skip:
            skip = False
            continue
        if text in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            skip = True
            continue
        if text.startswith(("-", "+")) and len(text) > 1 and text != "--":
            if not text.startswith("--"):
                has_c |= "c" in text
                reads_stdin |= "s" in text
            continue
        if has_c:
            an.code_word(word, f"{name} -c", where)
            return f"the code given to `{name} -c` was checked"
        if word.dynamic:
            an.add("deny", f"`{name}` runs a script known only at run time", where)
            return None
        if text != "--" and not reads_stdin:
            an.add("ask", f"runs the script `{text}`; its contents are not checked", where)
            return None
    if piped:
        an.add("deny", f"`{name}` reads commands from a pipe, which cannot be checked", where)
        return None
    if stdin is not None:
        an.analyse_text(stdin, f"{name} stdin", where)
        return f"the commands fed to `{name}` were checked"
    return None


def check_interpreter(
    an: Analysis, name: str, args: list[Word], where: Where, piped: bool, stdin: str | None
) -> str | None:
    """``python -c``/``node -e``/...: inline code is asked about (refused if a string in it is a
    denied shell command); ``python -m pytest`` and friends are vouched for."""
    flags = INLINE_CODE_FLAGS[name]
    short = {f[1] for f in flags if len(f) == 2 and f.startswith("-")}
    texts = [w.text for w in args]
    if name == "python":
        if texts[:1] in (["-V"], ["--version"], ["-VV"]):
            return "`python --version` only prints a version"
        if "-m" in texts and texts.index("-m") + 1 < len(texts):
            module = texts[texts.index("-m") + 1]
            if module in SAFE_PYTHON_MODULES and texts.index("-m") == _first_operand(texts):
                return f"`python -m {module}` is on the built-in safe list"
            if module not in ("", "-"):
                return None
    code: Word | None = None
    for index, word in enumerate(args):
        text = word.text
        if text in flags or (short and re.fullmatch(r"-[A-Za-z]+", text) and text[-1] in short):
            code = args[index + 1] if index + 1 < len(args) else None
            break
        if any(text.startswith(f + "=") for f in flags if f.startswith("--")):
            value = text.split("=", 1)[1]
            code = Word(value, value, dynamic=word.dynamic)
            break
        if not text.startswith("-"):
            break
    if code is not None:
        if code.dynamic:
            an.add("deny", f"runs {name} code known only at run time", where)
        else:
            inline_code(an, name, code.text, where)
        return None
    if any(not t.startswith("-") for t in texts) and "-" not in texts:
        return None  # a script file: the whitelist decides
    if piped:
        an.add("deny", f"`{name}` reads a program from a pipe, which cannot be checked", where)
    elif stdin is not None:
        inline_code(an, name, stdin, where)
    return None


def inline_code(an: Analysis, name: str, code: str, where: Where) -> None:
    """Program text: refused if a string in it is a denied shell command, else asked about."""
    for found in _LITERAL.finditer(code):
        literal = next(g for g in found.groups() if g is not None)
        probe = an.probe()
        probe.analyse_text(literal, f"{name} code", where)
        for finding in probe.findings:
            if finding.verdict == "deny" and "cannot parse" not in finding.reason:
                inner = finding.reason.removeprefix("denied: ")
                an.add(
                    "deny",
                    f"inline {name} code contains a denied command ({inner})",
                    Where(where.source, ""),
                )
                return
    an.add("ask", f"runs inline {name} code, which is not checked", where)


def check_find(an: Analysis, args: list[Word], where: Where) -> None:
    """``-exec``/``-ok`` commands are checked like any other (and asked about when the folders
    find walks hold a secret file they would read); ``-delete`` is asked about."""
    starts = []
    for word in args:
        if word.text.startswith(("-", "(", "!")) and word.text != "-":
            break
        starts.append(word)
    index = 0
    while index < len(args):
        text = args[index].text
        if text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            inner = args[index + 1 : end]
            if inner:
                an.check_argv(inner, where.nested(f"find {text}"), False, None)
                if inner[0].text.rsplit("/", 1)[-1] not in NAMES_ONLY:
                    what = f"`find {text} {inner[0].text}`"
                    an.note(an.places.tree_read(what, starts or [Word(".", ".")]), where)
            index = end
        elif text == "-delete":
            an.add("ask", "`find -delete` deletes every file it matches", where)
        elif text in ("-fprint", "-fprint0", "-fls", "-fprintf") and index + 1 < len(args):
            an.note(an.places.write(args[index + 1], f"`find {text}` writes"), where)
        index += 1


def installs_globally(name: str, args: list[Word]) -> bool:
    """``npm -g``, ``pnpm --global``, ``yarn global``: installs outside the project."""
    texts = [w.text for w in args]
    if name == "yarn" and texts[:1] == ["global"]:
        return True
    return any(t in ("-g", "--global", "--location=global") for t in texts)


def _first_operand(texts: list[str]) -> int:
    for index, text in enumerate(texts):
        if not text.startswith("-") or text == "-m":
            return index
    return len(texts)
