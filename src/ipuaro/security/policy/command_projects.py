"""Commands whose meaning a project defines: ``npm run X``/``npm test`` (scripts in
``package.json``, with their ``pre``/``post`` scripts, and the install lifecycle scripts of
``npm install``) and ``make TARGET`` (recipes in the Makefile, with the recipes of the targets
it depends on). What they would run is read from the project's files and checked like any
command, so a project cannot make ``npm test`` mean ``rm -rf ..`` by renaming.

``make`` is vouched for only when every recipe could be read and checked; a Makefile that
includes other files, or uses a variable it does not define, is asked about.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ipuaro.domain.repofiles import CONFIG_FILE_LIMIT, TEXT_FILE_LIMIT, read_repo_bytes
from ipuaro.security.policy.command_findings import Where
from ipuaro.security.shell.shell_syntax import Word

if TYPE_CHECKING:
    from ipuaro.security.policy.command_check import Analysis

__all__ = ["check_make", "check_package_script"]

_SCRIPT_COMMANDS = {
    "npm": {"run": 1, "run-script": 1, "rum": 1, "urn": 1, "test": 0, "t": 0, "tst": 0,
            "start": 0, "stop": 0, "restart": 0},
    "pnpm": {"run": 1, "run-script": 1, "test": 0, "t": 0, "start": 0},
    "yarn": {"run": 1, "test": 0, "start": 0},
    "bun": {"run": 1},
}  # fmt: skip
"""Subcommand → 1 when the script's name is the next word, 0 when it is the subcommand."""
_INSTALLS = {
    "npm": frozenset({"install", "i", "ci", "add", "isntall", "in"}),
    "pnpm": frozenset({"install", "i", "add"}),
    "yarn": frozenset({"install", "add"}),
    "bun": frozenset({"install", "i", "add"}),
}
"""Subcommands that install the project (and run its lifecycle scripts) when given no package."""
_LIFECYCLE = ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare",
              "postprepare")  # fmt: skip
_MAKE_FILES = ("GNUmakefile", "makefile", "Makefile")
_MAKE_VALUES = frozenset({"-f", "--file", "--makefile", "-C", "--directory", "-j", "--jobs",
                          "-o", "-W", "-I", "-l"})  # fmt: skip
_RULE = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)\s*([^=;#]*?)\s*(?:;\s*(.*))?$")
_ASSIGN = re.compile(r"^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*([:+?!]?:?=)\s*(.*)$")
_VARIABLE = re.compile(r"\$(?:\(([^()$]*)\)|\{([^{}$]*)\}|([A-Za-z@<^*?%]))")
_MAX_DEPTH = 6


def check_package_script(an: Analysis, name: str, args: list[Word], where: Where) -> None:
    """``npm run X`` & co.: check the scripts that run. Nothing happens for other commands."""
    words = [w for w in args if not w.text.startswith("-")]
    if not words and name == "yarn":
        words = [Word("install", "install")]  # a bare `yarn` installs the project
    if not words:
        return
    sub = words[0].text
    table = _SCRIPT_COMMANDS.get(name, {})
    for folder in an.places.cwds:
        scripts = _scripts(folder)
        if sub in _INSTALLS.get(name, ()) and len(words) == 1:
            wanted = [s for s in _LIFECYCLE if s in scripts]
        elif sub in table:
            target = words[1] if table[sub] and len(words) > 1 else None
            script = sub if not table[sub] else target.text if target else ""
            if target is not None and target.dynamic:
                an.add("ask", f"`{name} {sub}` runs a script named only at run time", where)
                return
            wanted = [s for s in (f"pre{script}", script, f"post{script}") if s in scripts]
        elif name in ("yarn", "pnpm") and sub in scripts:
            wanted = [sub]  # `yarn build` runs the `build` script
        else:
            continue
        for script_name in wanted:
            body = scripts[script_name]
            an.analyse_text(body, f"{name} script `{script_name}`: {body[:60]}", where)


def _scripts(folder: Path) -> dict[str, str]:
    try:
        raw = read_repo_bytes(folder / "package.json", CONFIG_FILE_LIMIT)
        package: Any = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    scripts = package.get("scripts") if isinstance(package, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {str(k): v for k, v in scripts.items() if isinstance(v, str) and v.strip()}


def check_make(an: Analysis, args: list[Word], where: Where) -> str | None:
    """``make [TARGET...]``: check every recipe line that would run; vouch when all were read."""
    targets: list[str] = []
    makefile: str | None = None
    index = 0
    while index < len(args):
        word = args[index]
        text = word.text
        if word.dynamic:
            an.add("ask", f"`make` is given `{word.raw}`, known only at run time", where)
            return None
        if text in _MAKE_VALUES or (text[:2] in _MAKE_VALUES and len(text) > 2):
            value = text[2:] if len(text) > 2 and not text.startswith("--") else None
            if value is None:
                index += 1
                value = args[index].text if index < len(args) else ""
            if text.startswith(("-C", "--directory")):
                an.add("ask", f"`make -C {value}` runs another folder's Makefile", where)
                return None
            if text.startswith(("-f", "--file", "--makefile")):
                makefile = value
        elif text.startswith("-"):
            pass
        elif "=" in text:
            an.add("ask", f"`make {text}` overrides a Makefile variable", where)
            return None
        else:
            targets.append(text)
        index += 1
    folder = an.places.cwds[0]
    path = (
        folder / makefile
        if makefile
        else next((folder / n for n in _MAKE_FILES if (folder / n).is_file()), None)
    )
    if path is None or not path.is_file():
        return "there is no Makefile, so `make` runs nothing"
    parsed = _Makefile.read(path)
    if parsed.problem:
        an.add("ask", f"`make` runs recipes from {path.name} that cannot be checked "
               f"({parsed.problem})", where)  # fmt: skip
        return None
    wanted = targets or parsed.order[:1]
    for target in wanted:
        for line in parsed.recipe(target):
            unknown = parsed.unresolved(line)
            if unknown:
                an.add("ask", f"a recipe of `make {target}` uses `$({unknown})`, known only "
                       "when make runs", where)  # fmt: skip
                return None
            an.analyse_text(parsed.expand(line), f"make {target}: {line[:60]}", where)
    return "the recipes `make` would run were checked"


class _Makefile:
    """Just enough of a Makefile: simple variables, explicit rules and their recipes."""

    def __init__(self) -> None:
        self.variables: dict[str, str] = {}
        self.rules: dict[str, tuple[list[str], list[str]]] = {}
        self.order: list[str] = []
        self.problem = ""

    @classmethod
    def read(cls, path: Path) -> _Makefile:
        made = cls()
        try:
            text = read_repo_bytes(path, TEXT_FILE_LIMIT).decode("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            made.problem = f"unreadable: {error}"
            return made
        current: list[str] | None = None
        for raw in text.replace("\\\n", " ").splitlines():
            if raw.startswith("\t"):
                if current is not None:
                    current.append(raw[1:].lstrip("@-+ \t"))
                continue
            line = raw.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            if re.match(r"^-?s?include\b", line) or line.startswith(
                ("define ", "ifeq", "ifdef", "ifneq", "ifndef")
            ):
                made.problem = f"`{line.split()[0]}` is not followed"
                return made
            assigned = _ASSIGN.match(line)
            if assigned:
                made.variables[assigned.group(1)] = assigned.group(3)
                current = None
                continue
            rule = _RULE.match(line)
            if rule is None:
                current = None
                continue
            current = [rule.group(3)] if rule.group(3) else []
            for target in rule.group(1).split():
                if "%" in target:
                    made.problem = f"pattern rule `{target}` is not followed"
                    return made
                made.rules[target] = (rule.group(2).split(), current)
                if not target.startswith("."):
                    made.order.append(target)
        return made

    def recipe(self, target: str, depth: int = 0, seen: set[str] | None = None) -> list[str]:
        seen = set() if seen is None else seen
        if target in seen or depth > _MAX_DEPTH or target not in self.rules:
            return []
        seen.add(target)
        prerequisites, lines = self.rules[target]
        out: list[str] = []
        for prerequisite in prerequisites:
            out += self.recipe(self.expand(prerequisite), depth + 1, seen)
        return out + [line for line in lines if line.strip()]

    def expand(self, text: str, depth: int = 0) -> str:
        def value(found: re.Match[str]) -> str:
            name = found.group(1) or found.group(2) or found.group(3)
            if name in self.variables and depth < _MAX_DEPTH:
                return self.expand(self.variables[name], depth + 1)
            return "target" if name in "@<^*?%" else found.group(0)

        return _VARIABLE.sub(value, text.replace("$$", "\0")).replace("\0", "$")

    def unresolved(self, line: str) -> str:
        """The first make variable in ``line`` this Makefile does not define; "" if none."""
        expanded = self.expand(line.replace("$$", ""))
        for found in _VARIABLE.finditer(expanded):
            name = found.group(1) or found.group(2) or found.group(3) or ""
            if name not in "@<^*?%":
                return name
        return ""
