"""Commands that run another command: ``env``, ``nohup``, ``timeout``, ``xargs``, ``exec``, ...

:func:`unwrap` peels one wrapper off an argument list, so the policy checks the command that
really runs (``timeout 5 nohup env X=1 rm -rf /`` is checked as ``rm -rf /``).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from ipuaro.security.shell.shell_syntax import Word

__all__ = ["WRAPPERS", "Unwrapped", "unwrap"]


@dataclass(frozen=True)
class _Spec:
    value_options: frozenset[str] = frozenset()  # options followed by a value word
    positionals: int = 0  # operands before the command (timeout's DURATION)
    assignments: bool = False  # NAME=VALUE words may precede the command (env)


def _spec(values: str = "", positionals: int = 0, assignments: bool = False) -> _Spec:
    return _Spec(frozenset(values.split()), positionals, assignments)


WRAPPERS: dict[str, _Spec] = {
    "env": _spec("-u --unset -C --chdir -S --split-string", assignments=True),
    "nohup": _spec(),
    "timeout": _spec("-s --signal -k --kill-after", positionals=1),
    "nice": _spec("-n --adjustment"),
    "ionice": _spec("-c --class -n --classdata"),
    "stdbuf": _spec("-i -o -e --input --output --error"),
    "setsid": _spec(),
    "time": _spec("-f --format -o --output"),
    "command": _spec(),
    "builtin": _spec(),
    "exec": _spec("-a"),
    "xargs": _spec("-I -L -l -n -P -s -d -E -e -a --arg-file --delimiter --max-args --max-procs"),
    "busybox": _spec(),
    "unbuffer": _spec(),
    "chronic": _spec(),
    "caffeinate": _spec(),
    "watch": _spec("-n --interval"),
    "npx": _spec("-p --package -c --call"),
    "bunx": _spec("-p --package"),
}
"""Wrapper name → how its own options and operands are laid out."""


@dataclass
class Unwrapped:
    argv: list[Word] | None  # the wrapped command; None when the wrapper runs nothing
    writes: list[Word] = field(default_factory=list)  # files the wrapper itself writes
    chdir: Word | None = None  # env -C DIR
    code: Word | None = None  # shell code the wrapper runs itself (npx -c CODE)
    assignments: list[Word] = field(default_factory=list)  # NAME=value words (env)
    note: str = ""  # why nothing runs (`command -v`), for the decision reason


def _value_of(option: str, spec: _Spec) -> bool:
    """True if ``option`` (``-n`` or ``--max-args``, without ``=value``) takes the next word."""
    return option in spec.value_options


def unwrap(name: str, args: list[Word]) -> Unwrapped:
    spec = WRAPPERS[name]
    out = Unwrapped(argv=None)
    replace: str | None = None
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        if text == "--":
            index += 1
            break
        if text.startswith("-") and len(text) > 1 and not word.dynamic:
            option, _, inline = text.partition("=")
            if not option.startswith("--") and len(option) > 2 and option[:2] in spec.value_options:
                option, inline = option[:2], option[2:]  # `-n5`, `-oL`, `-I{}`
            value: Word | None = Word(inline, inline) if inline else None
            if value is None and _value_of(option, spec):
                index += 1
                value = args[index] if index < len(args) else None
            if name == "command" and option in ("-v", "-V"):
                return Unwrapped(argv=None, note="`command -v` only looks a name up")
            if name == "xargs" and option in ("-I", "-i", "--replace"):
                replace = value.text if value is not None else "{}"
            if value is not None and option in ("-S", "--split-string"):
                # `env -S 'rm -rf' /`: the string is split into more words
                rest = _split(value) + args[index + 1 :]
                return _finish(name, rest, out, replace)
            if value is not None and name == "npx" and option in ("-c", "--call"):
                out.code = value
                return out
            if value is not None and option in ("-C", "--chdir"):
                out.chdir = value
            if value is not None and name == "time" and option in ("-o", "--output"):
                out.writes.append(value)
            index += 1
            continue
        if spec.assignments and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", text):
            out.assignments.append(word)
            index += 1
            continue
        break
    index += spec.positionals
    if name == "watch" and args[index:]:
        # watch joins its operands and runs them with `sh -c`
        rest = args[index:]
        joined = " ".join(w.text for w in rest)
        out.code = Word(joined, joined, dynamic=any(w.dynamic for w in rest))
        return out
    return _finish(name, args[index:], out, replace)


def _split(value: Word) -> list[Word]:
    if value.dynamic:
        return [value]  # unknown text stays one run-time word; the policy refuses it
    try:
        return [Word(part, part) for part in shlex.split(value.text)]
    except ValueError:
        return [Word(value.text, value.raw, dynamic=True)]


def _finish(name: str, argv: list[Word], out: Unwrapped, replace: str | None) -> Unwrapped:
    if not argv:
        return out
    if name == "xargs":
        # xargs appends words read from stdin: unknown, and possibly flags
        if replace:
            argv = [Word(w.text, w.raw, dynamic=True) if replace in w.text else w for w in argv]
        else:
            argv = [*argv, Word("<stdin words>", "<stdin words>", dynamic=True)]
    out.argv = argv
    return out


@dataclass(frozen=True)
class _Runner:
    subcommands: tuple[tuple[str, ...], ...]  # word sequences that start a wrapped program
    value_options: frozenset[str] = frozenset()
    code_options: frozenset[str] = frozenset()  # options whose value is shell code


_NPM_VALUES = "-p --package -w --workspace --prefix --userconfig --cache --registry"
_UV_VALUES = """--with --with-editable --with-requirements -p --python --directory --project
    --package --extra --group --env-file --index --index-url --extra-index-url --from"""
PACKAGE_RUNNERS: dict[str, _Runner] = {
    "npm": _Runner(
        (("exec",), ("x",)), frozenset(_NPM_VALUES.split()), frozenset({"-c", "--call"})
    ),
    "pnpm": _Runner(
        (("exec",), ("dlx",)), frozenset(f"{_NPM_VALUES} -C --dir".split()), frozenset({"-c"})
    ),
    "yarn": _Runner((("dlx",), ("exec",)), frozenset(["-p", "--package", "--cwd"])),
    "bun": _Runner((("x",),), frozenset(["-p", "--package"])),
    "uv": _Runner((("run",), ("tool", "run")), frozenset(_UV_VALUES.split())),
    "uvx": _Runner(((),), frozenset(_UV_VALUES.split())),
    "pipx": _Runner((("run",),), frozenset(["--spec", "--python", "--index-url", "--pip-args"])),
    "poetry": _Runner((("run",),), frozenset(["-C", "--directory", "-P", "--project"])),
    "hatch": _Runner((("run",),), frozenset(["-e", "--env"])),
    "pdm": _Runner((("run",),), frozenset(["-p", "--project"])),
}
"""Programs that run another program through a subcommand (``npm exec X``, ``uv run X``)."""


def package_runner(name: str, args: list[Word]) -> Unwrapped | None:
    """What ``name args`` runs when it is a package runner's subcommand, else None.

    ``npm exec -- rm -rf ..`` runs ``rm -rf ..``; ``npm exec --call 'CODE'`` runs shell code.
    Options before the subcommand (``npm --prefix . exec``) are skipped like its own.
    """
    runner = PACKAGE_RUNNERS.get(name)
    if runner is None:
        return None
    index = _skip_options(args, 0, runner, allow_code=False)[0]
    for words in runner.subcommands:
        if [w.text for w in args[index : index + len(words)]] == list(words):
            index, code = _skip_options(args, index + len(words), runner, allow_code=True)
            if code is not None:
                return Unwrapped(argv=None, code=code)
            rest = args[index:]
            return Unwrapped(argv=rest or None, note=f"`{name}` with nothing to run")
    return None


def _skip_options(
    args: list[Word], index: int, runner: _Runner, *, allow_code: bool
) -> tuple[int, Word | None]:
    while index < len(args):
        text = args[index].text
        if text == "--":
            return index + 1, None
        if not text.startswith("-") or len(text) == 1 or args[index].dynamic:
            break
        option, has_inline, inline = text.partition("=")
        value: Word | None = Word(inline, inline) if has_inline else None
        if value is None and (option in runner.value_options or option in runner.code_options):
            index += 1
            value = args[index] if index < len(args) else None
        if allow_code and option in runner.code_options and value is not None:
            return index + 1, value
        index += 1
    return index, None
