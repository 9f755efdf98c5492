"""The plan contract: one versioned JSON Schema for plan mode's one-JSON answer.

The same schema is sent to the server (``response_format`` ``json_schema``; Ollama's ``format``),
written into the prompt with its version and hash, checked locally on every reply, and recorded
in traces. Changing it means bumping :data:`SCHEMA_VERSION`: the hash changes by itself, and the
golden traces (``tests/golden/plan``) show the difference.

Only ``mode`` and ``summary`` are required: a model that leaves out ``risks`` has not broken the
contract. Whatever the schema can say that the reader requires, it says: llama.cpp's server turns
it into a grammar the model cannot leave, so a rule only ``planning.parse`` knew (a ``read_file``
request needs a ``path``) let a small model write, twice, a plan that was then refused. What it
cannot say (``end_line`` before ``start_line``, a path of blanks) is checked in
``planning.parse``.

Version 2: each context request has the shape of its ``type`` (``read_file`` needs ``path``,
``search`` needs ``query``), as the reader already required; every plan valid under version 1
is valid under version 2, so stored plans keep loading.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ipuaro.domain.plan import ACTION_KINDS

SCHEMA_VERSION = 2
SCHEMA_NAME = "ipuaro_plan"

_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}

_PATH: dict[str, Any] = {"type": "string", "minLength": 1}
_ACTION: dict[str, Any] = {
    # Two shapes, so that a grammar built from the schema (llama.cpp) makes the model write the
    # content of every CREATE_FILE / UPDATE_FILE.
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["CREATE_FILE", "UPDATE_FILE"]},
                "path": _PATH,
                "content": {"type": "string"},
            },
            "required": ["kind", "path", "content"],
        },
        {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["CREATE_DIR", "DELETE_FILE", "DELETE_DIR"]},
                "path": _PATH,
            },
            "required": ["kind", "path"],
        },
    ]
}
assert {k for v in _ACTION["anyOf"] for k in v["properties"]["kind"]["enum"]} == set(ACTION_KINDS)

_LINE: dict[str, Any] = {"type": "integer", "minimum": 1}
_REQUEST_FIELDS: dict[str, Any] = {
    "type": {"type": "string", "enum": ["read_file", "search", "logs", "env"]},
    "path": {"type": "string"},
    "start_line": _LINE,
    "end_line": _LINE,
    "query": {"type": "string"},
    "glob": {"type": "string"},
    "source": {"type": "string"},
    "last_n": _LINE,
}
_CONTEXT_REQUEST: dict[str, Any] = {
    # Every field typed for any request (validation), and one shape per type: llama.cpp's
    # grammar converter reads only the ``anyOf`` (it ignores the properties beside it), so the
    # model must write the ``path`` of a read_file and the ``query`` of a search.
    "type": "object",
    "properties": _REQUEST_FIELDS,
    "required": ["type"],
    "anyOf": [
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["read_file"]},
                "path": _PATH,
                "start_line": _LINE,
                "end_line": _LINE,
            },
            "required": ["type", "path"],
        },
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["search"]},
                "query": {"type": "string", "minLength": 1},
                "glob": {"type": "string"},
            },
            "required": ["type", "query"],
        },
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["logs", "env"]},
                "source": {"type": "string"},
                "last_n": _LINE,
            },
            "required": ["type"],
        },
    ],
}

PLAN_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "ipuaro plan",
    "x_schema_version": SCHEMA_VERSION,
    "type": "object",
    "properties": {
        "mode": {"type": "string", "enum": ["fix-plan", "apply"]},
        "summary": {"type": "string"},
        "questions": {**_STRINGS, "maxItems": 2},
        "context_requests": {"type": "array", "items": _CONTEXT_REQUEST},
        "plan": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"step": {"type": "string"}, "details": {"type": "string"}},
                "required": ["step"],
            },
        },
        "proposed_changes": {
            "type": "object",
            "properties": {
                "actions": {"type": "array", "items": _ACTION},
                "patch": {"type": "string"},
                "commands_to_run": _STRINGS,
            },
        },
        "risks": _STRINGS,
        "memory_patch": {"type": "object"},
    },
    "required": ["mode", "summary"],
}


def schema_hash(schema: dict[str, Any] | None = None) -> str:
    """sha256 of the schema's canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(PLAN_SCHEMA if schema is None else schema, sort_keys=True,
                           separators=(",", ":"))  # fmt: skip
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


SCHEMA_HASH = schema_hash()


def response_format() -> dict[str, Any]:
    """OpenAI's ``response_format`` (the Ollama client turns it into ``format``)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": SCHEMA_NAME, "schema": PLAN_SCHEMA},
    }


def short_hash() -> str:
    return SCHEMA_HASH[:12]
