"""Reading a tool call's arguments the way small models write them.

Tool names and argument names that models commonly use for the same thing are mapped onto ours
(``read_file`` → ``get_lines``, ``file_path`` → ``path``, ``start_line`` → ``start``); numbers
sent as strings are coerced by pydantic's lax mode. Anything still wrong becomes an error that
quotes the tool's schema, so the model can repair its call.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

TOOL_ALIASES: dict[str, str] = {
    "read_file": "get_lines",
    "read": "get_lines",
    "cat": "get_lines",
    "view": "get_lines",
    "open_file": "get_lines",
    "write_file": "create_file",
    "write": "create_file",
    "bash": "run_command",
    "shell": "run_command",
    "execute": "run_command",
    "run": "run_command",
    "terminal": "run_command",
    "run_terminal_cmd": "run_command",
    "ls": "get_structure",
    "list_dir": "get_structure",
    "list_files": "get_structure",
    "tree": "get_structure",
    "grep": "grep_search",
    "search": "grep_search",
    "find": "find_files",
    "glob": "find_files",
    "file_search": "find_files",
    "edit": "replace",
    "str_replace": "replace",
    "str_replace_editor": "replace",
    "search_replace": "replace",
    "remove_file": "delete_file",
    "edit_function": "edit_symbol",
    "replace_function": "edit_symbol",
    "update_function": "edit_symbol",
    "rewrite_function": "edit_symbol",
    "edit_method": "edit_symbol",
    "replace_method": "edit_symbol",
    "replace_symbol": "edit_symbol",
    "edit_class": "edit_symbol",
    "rm": "delete_file",
}

PATH_ALIASES = (
    "path",
    "file_path",
    "filepath",
    "target_file",
    "relative_workspace_path",
    "file",
    "filename",
    "file_name",
    "directory",
    "dir",
    "folder",
)

ARG_ALIASES: dict[str, tuple[str, ...]] = {
    "start": ("start_line", "line_start", "from_line", "startLine", "begin"),
    "end": ("end_line", "line_end", "to_line", "endLine"),
    "command": ("cmd", "commands", "script"),
    "query": ("pattern", "regex_pattern", "search", "text", "q"),
    "pattern": ("glob", "name", "query", "file_pattern"),
    "old": ("old_str", "old_string", "old_text", "search", "find"),
    "new": ("new_str", "new_string", "new_text", "replacement", "replace"),
    "content": (
        "contents",
        "text",
        "file_text",
        "code",
        "new_content",
        "data",
        "new_code",
        "body",
        "new",
        "replacement",
        "implementation",
    ),
    "action": ("mode", "operation", "op"),
    "symbol": ("name", "symbol_name", "identifier", "query"),
    "name": ("function", "function_name", "class", "class_name", "symbol"),
    "message": ("msg", "commit_message"),
    "replace_all": ("all", "global"),
    "case_sensitive": ("case", "match_case"),
    "include_pattern": ("include", "glob", "files"),
    "exclude_pattern": ("exclude",),
    "filter": ("test", "test_name", "grep", "k"),
    "instructions": ("instruction", "description"),
    "code_edit": ("edit", "code", "changes"),
}

IGNORED_ARGS = frozenset({"explanation", "reason", "thought", "thoughts", "why"})
"""Commentary fields some tool formats (Cursor's) add to every call: harmless, dropped."""


MAX_NESTING = 32
"""Deepest nesting of lists/objects an argument may have (no tool takes more than two)."""
MAX_NAME_BYTES = 255
"""Longest file or folder name common file systems allow (ext4, APFS, NTFS)."""
MAX_PATH_BYTES = 4096


def argument_problem(arguments: dict[Any, Any], path_fields: tuple[str, ...]) -> str | None:
    """What makes these arguments unusable before any tool sees them, naming the argument:
    nesting deeper than :data:`MAX_NESTING`, text that is not valid Unicode (an unpaired
    surrogate: it cannot be written to a file, the store or the session), a path or a path
    segment longer than file systems allow. None when there is nothing of the kind."""
    paths = set(path_fields) | set(PATH_ALIASES)
    pending: list[tuple[str, Any, int]] = [("", arguments, 0)]
    while pending:
        where, value, depth = pending.pop()
        if depth > MAX_NESTING:
            return f"argument {where!r} is nested more than {MAX_NESTING} levels deep"
        if isinstance(value, dict):
            for key, item in value.items():
                label = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and (problem := _text_problem(key)):
                    return f"an argument name {problem}"
                pending.append((label, item, depth + 1))
        elif isinstance(value, list):
            pending.extend((f"{where}[{i}]", item, depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str):
            if problem := _text_problem(value):
                return f"argument {_printable(where)!r} {problem}"
            if where in paths and (problem := _path_problem(value)):
                return f"argument {where!r}: {problem}"
    return None


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _text_problem(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        code = ord(text[error.start])
        return (
            f"is not valid Unicode text (an unpaired surrogate \\u{code:04x} at character "
            f"{error.start}); send UTF-8 text"
        )
    return None


def _path_problem(path: str) -> str | None:
    size = len(path.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        return f"the path is {size} bytes long; paths are at most {MAX_PATH_BYTES} bytes"
    for segment in path.replace("\\", "/").split("/"):
        size = len(segment.encode("utf-8"))
        if size > MAX_NAME_BYTES:
            return (
                f"the name {segment[:24] + '…'!r} is {size} bytes long; file and folder "
                f"names are at most {MAX_NAME_BYTES} bytes"
            )
    return None


def normalise_arguments(
    arguments: dict[str, Any], model: type[BaseModel], path_fields: tuple[str, ...]
) -> dict[str, Any]:
    fields = set(model.model_fields)
    out: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in arguments.items():
        if key in fields:
            out[key] = value
        elif key not in IGNORED_ARGS:
            rest[key] = value
    for key, value in rest.items():
        target = _target(key, fields, path_fields, out)
        if target is None:
            out[key] = value  # left for pydantic to name as an unknown argument
        else:
            out[target] = value
    if "start" in fields and "offset" in out and "start" not in out:
        # Claude-style read: offset (first line) + limit (how many lines).
        offset = out.pop("offset")
        out["start"] = offset
        limit = out.pop("limit", None)
        if limit is not None and "end" not in out:
            try:
                out["end"] = int(offset) + int(limit) - 1
            except (TypeError, ValueError, OverflowError):
                # Infinity / 1e999 (Python's json accepts both) or text: pydantic names it.
                out["end"] = limit
    return out


def _target(
    key: str, fields: set[str], path_fields: tuple[str, ...], taken: dict[str, Any]
) -> str | None:
    if key in PATH_ALIASES:
        for name in path_fields:
            if name not in taken:
                return name
    for field, aliases in ARG_ALIASES.items():
        if field in fields and field not in taken and key in aliases:
            return field
    return None


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema the model sees: optional fields as their plain type, no titles, no
    ``"default": null`` (a field missing from ``required`` already says it may be left out)."""
    cleaned: dict[str, Any] = _clean(model.model_json_schema())
    return cleaned


def _clean(node: Any) -> Any:
    if isinstance(node, dict):
        any_of = node.get("anyOf")
        if isinstance(any_of, list):
            kept = [item for item in any_of if item != {"type": "null"}]
            if len(kept) == 1:
                merged = {k: v for k, v in node.items() if k != "anyOf"}
                merged.update(kept[0])
                node = merged
        return {
            k: _clean(v)
            for k, v in node.items()
            if k != "title" and not (k == "default" and v is None)
        }
    if isinstance(node, list):
        return [_clean(item) for item in node]
    return node


def describe_errors(error: ValidationError) -> list[str]:
    problems: list[str] = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        kind = item["type"]
        if kind == "extra_forbidden":
            problems.append(f"unknown argument {where!r}")
        elif kind == "missing":
            problems.append(f"missing required argument {where!r}")
        else:
            got = item.get("input")
            shown = json.dumps(got, default=str)
            if len(shown) > 60:
                shown = shown[:57] + "..."
            problems.append(f"{where}: {item['msg']} (got {shown})")
    return problems


def schema_hint(name: str, model: type[BaseModel]) -> str:
    schema = model_schema(model)
    props = schema.get("properties", {})
    required = schema.get("required", [])
    parts = []
    for field, spec in props.items():
        kind = spec.get("type", "any")
        parts.append(f"{field}{'' if field in required else '?'}: {kind}")
    return f"{name}({', '.join(parts)}); schema: {json.dumps(schema, separators=(',', ':'))}"
