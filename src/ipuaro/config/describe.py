"""Config errors in a user's words: keys as written in JSON (``llm.contextWindow``), the type a
key expects read from the schema itself, values shown short. The loader's messages use these."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from ipuaro.config.schema import Config, Section


def display_path(model: type[BaseModel], path: tuple[str | int, ...]) -> str:
    """``("llm", "context_window")`` → ``llm.contextWindow``, as written in JSON files."""
    text = ""
    current: type[BaseModel] | None = model
    keyed: type[BaseModel] | None = None
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
            current = None
            continue
        info = current.model_fields.get(part) if current is not None else None
        shown = (info.alias or part) if info is not None else part
        # What a project file wrote as extensions.tools is kept as project_tools.
        shown = {"project_tools": "tools", "project_hooks": "hooks"}.get(part, shown)
        text += f".{shown}" if text else shown
        if keyed is not None:  # ``part`` was a name in a dict of sections
            current, keyed = keyed, None
            continue
        current = section_type(info.annotation) if info is not None else None
        keyed = keyed_section_type(info.annotation) if info is not None else None
    return text


def section_type(annotation: Any) -> type[Section] | None:
    if isinstance(annotation, type) and issubclass(annotation, Section):
        return annotation
    return None


def keyed_section_type(annotation: Any) -> type[Section] | None:
    """``Section`` for a ``dict[str, Section]`` field (script tools by name), else None."""
    if get_origin(annotation) is dict:
        args = get_args(annotation)
        return section_type(args[1]) if len(args) == 2 else None
    return None


def describe_error(
    source: str, origins: Mapping[tuple[str, ...], str], error: ValidationError
) -> str:
    """One line for a layer's first validation problem: where it came from (the variable that
    set the key, by ``origins``, else ``source``), the key as written in JSON, what it expects."""
    problems = error.errors()
    first = problems[0]
    loc = tuple(first["loc"])
    key_path = display_path(Config, loc)
    field_loc = tuple(part for part in loc if isinstance(part, str))
    for size in range(len(field_loc), 0, -1):  # the variable that set this key or its section
        if field_loc[:size] in origins:
            source = origins[field_loc[:size]]
            break
    if first["type"] == "extra_forbidden":  # normally caught by _canonical already
        text = f"{source}: unknown key {key_path}"
    elif first["type"] == "value_error":  # a section's own check: its message says the fix
        message = str(first["msg"]).removeprefix("Value error, ")
        text = f"{source}: {key_path}: {message}"
    else:
        expected = describe_field(loc) or first["msg"].lower()
        text = f"{source}: {key_path}: expected {expected}, got {render_value(first['input'])}"
    more = len(problems) - 1
    return text + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def describe_field(loc: tuple[str | int, ...]) -> str | None:
    """The expected type of the key at ``loc``, in words, from the schema itself."""
    model: type[BaseModel] | None = Config
    keyed: type[Section] | None = None
    annotation: Any = None
    metadata: list[Any] = []
    for part in loc:
        if isinstance(part, int):  # an item of a list
            args = get_args(annotation)
            annotation, metadata = (args[0] if args else None), []
            model = section_type(annotation)
            continue
        if model is None and keyed is not None:  # a name in a dict of sections
            model, keyed = keyed, None
            annotation = model
            continue
        if model is None:
            break  # pydantic adds union-member tags after the field; the field decides
        info = model.model_fields.get(part)
        if info is None:
            return None
        annotation, metadata = info.annotation, list(info.metadata)
        model = section_type(annotation)
        keyed = keyed_section_type(annotation)
    return describe_type(annotation, metadata) if annotation is not None else None


def describe_type(annotation: Any, metadata: list[Any]) -> str:
    args = get_args(annotation)
    if type(None) in args:
        rest = [arg for arg in args if arg is not type(None)]
        inner = describe_type(rest[0], metadata) if len(rest) == 1 else "a value"
        return f"{inner} or null"
    if get_origin(annotation) is Literal:
        return "one of " + ", ".join(json.dumps(arg) for arg in args)
    if get_origin(annotation) is dict or section_type(annotation) is not None:
        return "an object"
    if get_origin(annotation) is list:
        item = describe_type(args[0], []) if args else "a value"
        return "a list of " + {"a string": "strings"}.get(item, f"items, each {item}")
    base = {
        bool: "true or false",
        int: "an integer",
        float: "a number",
        str: "a string",
        Path: "a path (string)",
    }.get(annotation, getattr(annotation, "__name__", str(annotation)))
    return base + describe_bounds(metadata)


def describe_bounds(metadata: list[Any]) -> str:
    bounds = {
        kind: getattr(item, kind)
        for item in metadata
        for kind in ("ge", "gt", "le", "lt")
        if getattr(item, kind, None) is not None
    }
    if "ge" in bounds and "le" in bounds:
        return f" from {bounds['ge']} to {bounds['le']}"
    symbols = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    return "".join(f" {symbols[kind]} {value}" for kind, value in bounds.items())


def render_value(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string under it in the class body), by field name.

    The schema's documentation, read from its source when asked: pydantic's
    ``use_attribute_docstrings`` would read it for every class at every start.
    """
    import ast
    import inspect
    import textwrap

    body = ast.parse(textwrap.dedent(inspect.getsource(model))).body[0]
    assert isinstance(body, ast.ClassDef)
    docs: dict[str, str] = {}
    for statement, following in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs
