"""Checks every simple command of a parsed script and collects findings (allow / ask / deny).

One :class:`Analysis` walks the commands in order, following ``cd`` so relative paths are judged
from every directory the script may be in, unwrapping ``env``/``timeout``/``xargs``/..., and
recursing into code handed to ``bash -c``, ``eval``, ``trap``, ``find -exec`` or a shell's stdin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.security.policy.command_environment import (
    ENVIRONMENT_PRINTERS,
    NAMED_VARIABLES,
    WHOLE_ENVIRONMENT,
    environment_print,
)
from ipuaro.security.policy.command_findings import Finding, Verdict, Where
from ipuaro.security.policy.command_git import check_git
from ipuaro.security.policy.command_paths import Note, Places
from ipuaro.security.policy.command_places import STACK_INDEX, check_cd, check_trap
from ipuaro.security.policy.command_programs import (
    check_find,
    check_interpreter,
    check_shell,
    installs_globally,
)
from ipuaro.security.policy.command_projects import check_make, check_package_script
from ipuaro.security.policy.command_reads import SECRET_ALLOWANCE, secret_variable
from ipuaro.security.policy.command_rules import (
    COMMAND_ENV,
    DANGEROUS_ENV,
    INLINE_CODE_FLAGS,
    PACKAGE_RUNNERS,
    PRIVILEGE_NAMES,
    SAFE_COMMANDS,
    SHELLS,
    command_name,
    match,
    shape_of,
)
from ipuaro.security.policy.lookalike import ascii_reading
from ipuaro.security.policy.wrappers import PACKAGE_RUNNERS as RUNNER_SUBCOMMANDS
from ipuaro.security.policy.wrappers import WRAPPERS, package_runner, unwrap
from ipuaro.security.shell.shell_syntax import (
    Redirect,
    Script,
    ShellSyntaxError,
    SimpleCommand,
    Word,
    parse_script,
)

if TYPE_CHECKING:
    from ipuaro.security.policy.command_rules import Pattern
    from ipuaro.security.policy.paths import PathPolicy

MAX_NESTING = 8
"""Most levels of ``bash -c``/``eval`` inside each other before the command is refused."""

_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_OVERWRITE_REDIRECTS = frozenset({">", ">|", "&>", ">&"})
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^]]*\])?\+?=")
_KEYWORD_NAMES = frozenset({":", ".", "source", "eval", "exec", "cd", "test", "echo", "printf"})


@dataclass
class Analysis:
    root: Path
    paths: PathPolicy
    blacklist: list[tuple[Pattern, str]]
    allowed_names: frozenset[str]
    ask_for_unknown: bool
    findings: list[Finding] = field(default_factory=list)
    segments: list[list[str]] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    unknown: list[str] = field(default_factory=list)  # names asked about only for being unlisted
    depth: int = 0
    start: list[Path] = field(default_factory=list)
    """Where the script starts (the project root when empty)."""
    confine_cd: bool = False
    """A persistent shell: refuse a ``cd`` that leaves the project (:func:`check_cd`)."""
    places: Places = field(init=False)

    def __post_init__(self) -> None:
        self.places = Places(self.paths, list(self.start))

    def probe(self) -> Analysis:
        """A fresh analysis with the same rules, for code whose findings are weighed apart."""
        return Analysis(
            self.root,
            self.paths,
            self.blacklist,
            self.allowed_names,
            True,
            depth=self.depth,
            start=list(self.places.cwds),
            confine_cd=self.confine_cd,
        )

    def add(self, verdict: Verdict, what: str, where: Where) -> None:
        word = {"allow": "allowed", "ask": "ask", "deny": "denied"}[verdict]
        self.findings.append(Finding(verdict, f"{word}: {what}{where.tail()}"))

    def note(self, notes: list[Note], where: Where) -> None:
        for verdict, what in notes:
            self.add(verdict, what, where)

    # --- scripts --------------------------------------------------------------------------

    def run(self, script: Script) -> None:
        known = SAFE_COMMANDS | self.allowed_names | SHELLS | _KEYWORD_NAMES
        for name in script.functions:
            where = Where(f"{name}() {{ ... }}", "")
            if command_name(name) in known or ascii_reading(name) is not None:
                self.add("deny", f"defines a function `{name}` that hides a command", where)
            else:
                self.add("ask", f"defines a shell function `{name}`", where)
            self.functions.add(name)
        for command in script.commands:
            self.check_command(command)

    def analyse_text(self, text: str, context: str, where: Where) -> None:
        """Check code handed to another interpreter of shell syntax (``bash -c``, ``eval``)."""
        if self.depth >= MAX_NESTING:
            self.add("deny", f"code is nested more than {MAX_NESTING} levels deep", where)
            return
        try:
            script = parse_script(text, where.nested(context).context, 0)
        except ShellSyntaxError as error:
            self.add("deny", f"cannot parse the code given to {context} ({error})", where)
            return
        self.depth += 1
        try:
            self.run(script)
        finally:
            self.depth -= 1

    # --- one simple command ---------------------------------------------------------------

    def check_command(self, command: SimpleCommand) -> None:
        where = Where(command.source, command.context)
        self.segments.append([w.text for w in command.words])
        words = list(command.words)
        for word in [*words, *(r.target for r in command.redirects)]:
            variable = secret_variable(word)
            if variable is not None:
                what = f"expands `${variable}`, which may hold a secret; {SECRET_ALLOWANCE}"
                self.add("ask", what, where)
                break
        while words and _ASSIGNMENT.match(words[0].raw):
            self.check_assignment(words.pop(0), where)
        stdin_body: str | None = None
        for redirect in command.redirects:
            self.check_redirect(redirect, where)
            if redirect.body is not None:
                stdin_body = redirect.body
        if not words:
            self.add("allow", "only assignments or redirections", where)
            return
        self.check_argv(words, where, command.piped_stdin, stdin_body)

    def check_assignment(self, word: Word, where: Where) -> None:
        """``NAME=value`` before a command: variables that choose or inject programs are asked
        about, and a command stored in one (``PAGER='...'``) is checked like ``bash -c``."""
        name, _, value = word.text.partition("=")
        name = name.rstrip("+")
        if self.confine_cd and name == "CDPATH":
            self.add("deny", "sets `CDPATH`, which can send `cd` out of the project", where)
        if name in DANGEROUS_ENV:
            self.add("ask", f"sets `{name}`, which changes what programs run", where)
        if name in COMMAND_ENV and value and not word.dynamic:
            self.analyse_text(value, f"${name}", where)
        elif "$(" in value or "`" in value:
            # arithmetic (`$((x))`) and eval run code stored in a variable
            self.add("ask", f"stores shell code in `{name}`", where)

    def check_redirect(self, redirect: Redirect, where: Where) -> None:
        target = redirect.target
        op = redirect.op
        if op == "<&" or (op == ">&" and re.fullmatch(r"\d+-?|-", target.text)):
            return  # duplicating a file descriptor (`>&$x` may name a file: checked below)
        if op in _WRITE_REDIRECTS or op == ">&":
            notes = self.places.write(target, f"redirection `{op}` writes")
            self.note(notes, where)
            if not notes and op in _OVERWRITE_REDIRECTS:
                self.note(self.places.overwrite(target, f"redirection `{op}`"), where)
        if op in ("<", "<>"):
            self.note(self.places.secret(target), where)

    def check_argv(
        self, argv: list[Word], where: Where, piped: bool, stdin_body: str | None
    ) -> None:
        wrapper_allowed = ""  # a whitelisted package runner (`npx`) vouches for what it runs
        while True:
            head = argv[0]
            name = self.command_word(head, where)
            if name is None:
                return
            args = argv[1:]
            for word in args:
                disguised = ascii_reading(word.text)
                if disguised is not None and disguised.startswith("-"):
                    self.add(
                        "deny",
                        f"look-alike characters in `{word.text}` (reads as `{disguised}`)",
                        where,
                    )
                    return
            if self.check_blacklist(name, args, where):
                return
            if name in PRIVILEGE_NAMES:
                self.add("deny", f"`{name}` runs commands with other privileges", where)
                return
            if name in WRAPPERS:
                unwrapped = unwrap(name, args)
            else:
                runner = package_runner(name, args)  # `npm exec X`, `uv run X`, ...
                if runner is None:
                    break
                unwrapped = runner
            if (name in PACKAGE_RUNNERS or name in RUNNER_SUBCOMMANDS) and (
                name in self.allowed_names
            ):
                wrapper_allowed = name
            for target in unwrapped.writes:
                self.note(self.places.write(target, f"`{name}` writes"), where)
            for assignment in unwrapped.assignments:
                self.check_assignment(assignment, where)
            if unwrapped.chdir is not None:
                self.places.change_directory(unwrapped.chdir)
            if unwrapped.code is not None:
                self.code_word(unwrapped.code, name if name == "watch" else f"{name} -c", where)
                return
            if unwrapped.argv is None:
                if name == "env":
                    self.add("ask", WHOLE_ENVIRONMENT, where)
                else:
                    self.add("allow", unwrapped.note or f"`{name}` alone runs nothing", where)
                return
            argv = unwrapped.argv
        before = len(self.findings)
        vouched = self.special(name, args, where, piped, stdin_body)
        self.note(self.places.operands(name, args), where)
        if any(f.verdict != "allow" for f in self.findings[before:]):
            return  # the specific question or refusal says more than "not on the whitelist"
        if vouched is None and wrapper_allowed and name not in self.allowed_names:
            vouched = f"`{wrapper_allowed}` is on the whitelist and runs `{name}`"
        self.base_verdict(name, head, vouched, where)

    def command_word(self, head: Word, where: Where) -> str | None:
        """The normalised command name, or None (after a refusal) if it cannot be trusted."""
        if head.dynamic or head.glob:
            how = "is computed at run time" if head.dynamic else "is a file-name pattern"
            self.add(
                "deny",
                f"the command name `{head.raw}` {how}, so it cannot be checked; "
                "write the command name literally",
                where,
            )
            return None
        reading = ascii_reading(head.text)
        if reading is not None:
            self.add(
                "deny",
                f"look-alike characters in the command name `{head.text}` (reads as `{reading}`)",
                where,
            )
            return None
        name = command_name(head.text)
        if not name:
            self.add("deny", "the command name is empty", where)
            return None
        return name

    def code_word(self, code: Word, context: str, where: Where) -> None:
        """Shell code in one word (``bash -c CODE``): checked, or refused if only known later."""
        if code.dynamic:
            self.add("deny", f"`{context}` runs code known only at run time", where)
        else:
            self.analyse_text(code.text, context, where)

    def base_verdict(self, name: str, head: Word, vouched: str | None, where: Where) -> None:
        if vouched is not None:
            self.add("allow", vouched, where)
        elif name in self.allowed_names:
            self.add("allow", f"`{name}` is on the whitelist", where)
        elif name in SAFE_COMMANDS:
            self.add("allow", f"`{name}` is on the built-in safe list", where)
        elif head.text in self.functions:
            self.add("allow", f"`{name}` is a function defined in this command", where)
        elif self.ask_for_unknown:
            if name not in self.unknown:
                self.unknown.append(name)
            self.add(
                "ask",
                f"`{name}` is not on the whitelist; approve it once, always, "
                "or add it to whitelist.user",
                where,
            )
        else:
            self.add(
                "deny",
                f"`{name}` is not on the whitelist and whitelist.askForUnknown is off",
                where,
            )

    def check_blacklist(self, name: str, args: list[Word], where: Where) -> bool:
        shape = shape_of(name, args)
        maybe_reported = False
        for pattern, origin in self.blacklist:
            found = match(pattern, name, shape)
            if found == "match":
                self.add("deny", f"`{pattern.text}` ({origin})", where)
                return True
            if found == "maybe" and not maybe_reported:
                maybe_reported = True
                self.add(
                    "ask",
                    f"arguments known only at run time could make this `{pattern.text}` ({origin})",
                    where,
                )
        return False

    # --- per-command knowledge ------------------------------------------------------------

    def special(
        self, name: str, args: list[Word], where: Where, piped: bool, stdin_body: str | None
    ) -> str | None:
        """Command-specific checks; returns an allow reason when they vouch for the command."""
        if name in ("npm", "pnpm", "yarn", "bun"):
            check_package_script(self, name, args, where)  # before `bun -e` below
        if name in SHELLS:
            return check_shell(self, name, args, where, piped, stdin_body)
        if name in INLINE_CODE_FLAGS:
            return check_interpreter(self, name, args, where, piped, stdin_body)
        if name == "trap" and self.confine_cd and not check_trap(self, args, where):
            return None
        if name in ("eval", "trap"):
            code = [w for w in args if not w.text.startswith("-")]
            if name == "trap":
                code = code[:1]
            if any(w.dynamic for w in code):
                self.add("deny", f"`{name}` runs code known only at run time", where)
                return None
            if code and code[0].text not in ("", "-"):
                self.analyse_text(" ".join(w.text for w in code), name, where)
            return f"the code given to `{name}` was checked"
        if name in ("source", "."):
            if args and args[0].dynamic:
                self.add("deny", f"`{name}` runs a script known only at run time", where)
                return None
            script = args[0].text if args else "?"
            self.add("ask", f"runs `{script}` in the shell; its contents are not checked", where)
        elif name == "find":
            check_find(self, args, where)
        elif name == "git":
            check_git(self, args, where)
        elif name == "alias":
            for word in args:
                alias, _, value = word.text.partition("=")
                if value:
                    self.code_word(
                        Word(value, value, dynamic=word.dynamic), f"alias {alias}", where
                    )
        elif name in ("npm", "pnpm", "yarn", "bun") and installs_globally(name, args):
            self.add("ask", f"`{name}` installs outside the project (global)", where)
        elif name == "make":
            return check_make(self, args, where)
        elif name == "rg" and any(w.text.startswith("--pre") for w in args):
            self.add("ask", "`rg --pre` runs a program on every file", where)
        elif name in ENVIRONMENT_PRINTERS and (printed := environment_print(name, args)):
            self.add("ask", printed, where)
        elif name == "printenv":
            return NAMED_VARIABLES
        elif name in ("export", "declare", "typeset", "readonly", "local"):
            for word in args:
                assigned = _ASSIGNMENT.match(word.text)
                if assigned and assigned.group(1) in DANGEROUS_ENV:
                    self.add("ask", f"sets `{assigned.group(1)}`, which changes what runs", where)
                if assigned and self.confine_cd and assigned.group(1) == "CDPATH":
                    self.check_assignment(word, where)
            if name in ("declare", "typeset", "readonly"):
                return f"`{name}` only sets variables"
        elif name in ("cd", "pushd"):
            operands = [w for w in args if not w.text.startswith("-") or w.text == "-"]
            if self.confine_cd and not check_cd(self, name, operands, where):
                return None
            if operands and not (name == "pushd" and STACK_INDEX.fullmatch(operands[0].text)):
                self.places.change_directory(operands[0])
            else:
                self.places.cwd_unknown = True  # the home directory, or a place on the stack
        elif name == "popd":
            self.places.cwd_unknown = True
        return None
