"""What a tool call is, for a front end that shows calls by kind and location (an editor's
tool-call list): its kind and the project paths it names, with the model's argument aliases
(``file_path``, ``target_file``…) already mapped onto the tool's own fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ipuaro.domain import ToolCall
    from ipuaro.tools.registry import ToolRegistry

ToolKind = Literal["read", "search", "edit", "delete", "execute", "other"]

SEARCH_TOOLS = frozenset(
    {"grep_search", "find_files", "find_definition", "find_references", "get_todos"}
)
EXECUTE_TOOLS = frozenset({"run_command", "run_tests", "git_commit"})
DELETE_TOOLS = frozenset({"delete_file"})


@dataclass(frozen=True)
class CallFacts:
    kind: ToolKind
    paths: tuple[str, ...]
    """Project paths the call names (in the tool's path arguments), first named first."""


def describe_call(registry: ToolRegistry, call: ToolCall) -> CallFacts:
    """The kind of ``call`` and the paths it names; an unknown tool is ``other`` with none."""
    from ipuaro.tools.arguments import PATH_ALIASES, normalise_arguments

    name = registry.resolve_name(call.name)
    tool = registry.get(name) if name is not None else None
    if tool is None or name is None:
        return CallFacts("other", ())
    if name in DELETE_TOOLS:
        kind: ToolKind = "delete"
    elif name in EXECUTE_TOOLS or getattr(tool, "executes", False):
        kind = "execute"  # run_command or a script tool: a program runs
    elif not getattr(tool, "edits_files", True):
        kind = "execute"  # an MCP tool: code that runs, not an edit
    elif not tool.read_only:
        kind = "edit"
    elif name in SEARCH_TOOLS:
        kind = "search"
    else:
        kind = "read"
    path_fields = tuple(getattr(tool, "path_fields", ()))
    arguments = normalise_arguments(dict(call.parameters), tool.args_model, path_fields)
    names = path_fields or tuple(key for key in arguments if key in PATH_ALIASES)
    paths = [arguments[key] for key in names if isinstance(arguments.get(key), str)]
    return CallFacts(kind, tuple(p for p in paths if p))
