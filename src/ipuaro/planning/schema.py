"""The plan contract: one versioned JSON Schema for plan mode's one-JSON answer.

The same schema is sent to the server (``response_format`` ``json_schema``; Ollama's ``format``),
written into the prompt with its version and hash, checked locally on every reply, and recorded
in traces. Changing it means bumping :data:`SCHEMA_VERSION`: the hash changes by itself, and the
golden traces (``tests/golden/plan``) show the difference.

Only ``mode`` and ``summary`` are required: a model that leaves out ``risks`` has not broken the
contract. What JSON Schema cannot say (a ``read_file`` request needs a ``path``) is checked in
``planning.parse``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ipuaro.domain.plan import ACTION_KINDS

SCHEMA_VERSION = 1
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

PLAN_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "ipuaro plan",
    "x_schema_version": SCHEMA_VERSION,
    "type": "object",
    "properties": {
        "mode": {"type": "string", "enum": ["fix-plan", "apply"]},
        "summary": {"type": "string"},
        "questions": {**_STRINGS, "maxItems": 2},
        "context_requests": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": ["read_file", "search", "logs", "env"]},
                    "path": {"type": "string"},
                    "start_line": {"type": "integer", "minimum": 1},
                    "end_line": {"type": "integer", "minimum": 1},
                    "query": {"type": "string"},
                    "glob": {"type": "string"},
                    "source": {"type": "string"},
                    "last_n": {"type": "integer", "minimum": 1},
                },
                "required": ["type"],
            },
        },
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
