"""Extensions a user or a project adds: custom slash commands, script tools, hooks on the
agent's events, and the trust that project-level ones need before they run.

:func:`load_extensions` turns the configuration and the command folders into what the core
wires in: the script tools for the registry, the hook runner for the dispatch seam, the
commands for the slash table, and a warning for everything skipped (a bad schema, a name
taken by a built-in, a project that is not trusted). Nothing here raises for bad input: a
declaration that cannot be used is skipped with a warning saying what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.extensions.commands import CustomCommand, discover_commands
from ipuaro.extensions.hooks import Hook, HookRunner, hooks_of
from ipuaro.extensions.script_tools import ScriptTool, ScriptToolProblem, build_script_tool
from ipuaro.extensions.trust import (
    declared_code,
    declares_code,
    extension_digest,
    project_trusted,
    remember_trust,
)

__all__ = [
    "CustomCommand",
    "Extensions",
    "Hook",
    "HookRunner",
    "ScriptTool",
    "declared_code",
    "declares_code",
    "extension_digest",
    "load_extensions",
    "project_trusted",
    "remember_trust",
]


@dataclass
class Extensions:
    tools: list[ScriptTool] = field(default_factory=list)
    hooks: list[Hook] = field(default_factory=list)
    commands: dict[str, CustomCommand] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def runner(self, root: Path, config: Config) -> HookRunner | None:
        return HookRunner(root, config, self.hooks) if self.hooks else None


def load_extensions(
    root: Path,
    config: Config,
    *,
    trusted: bool,
    user_dir: Path,
    taken_names: set[str],
) -> Extensions:
    """What to wire for ``root``: the user's tools and hooks always, the project's only when
    ``trusted``; ``taken_names`` are the built-in tools' names and aliases (a script tool may
    not shadow one)."""
    loaded = Extensions()
    commands, warnings = discover_commands(root, user_dir)
    loaded.commands = commands
    loaded.warnings.extend(warnings)
    ext = config.extensions
    declared = [(n, s, "user") for n, s in ext.tools.items()]
    loaded.hooks = hooks_of(ext.hooks, "user")
    project_count = len(ext.project_tools) + len(hooks_of(ext.project_hooks, "project"))
    if trusted:
        declared += [(n, s, "project") for n, s in ext.project_tools.items()]
        loaded.hooks += hooks_of(ext.project_hooks, "project")
    elif project_count:
        loaded.warnings.append(
            f"this project's .ipuaro.json declares {project_count} script tool(s) or hook(s); "
            "they stay off until you trust the project (answer the trust question, or "
            "`ipuaro run --trust-project`)"
        )
    names = set(taken_names)
    for name, spec, source in declared:
        where = "your config" if source == "user" else "the project's .ipuaro.json"
        if name in names:
            loaded.warnings.append(
                f"script tool {name!r} in {where} skipped: the name is taken by another tool; "
                f"rename extensions.tools.{name}"
            )
            continue
        try:
            tool = build_script_tool(root, name, spec, source)  # type: ignore[arg-type]
        except ScriptToolProblem as problem:
            loaded.warnings.append(f"script tool {name!r} in {where} skipped: {problem}")
            continue
        names.add(name)
        loaded.tools.append(tool)
    return loaded
