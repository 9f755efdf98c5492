"""The edit-file sub-agent: asks the model for exact line edits when a sketch's markers cannot
be merged deterministically.

The model sees the file with line numbers, the instruction and the sketch, and answers a JSON
array ``[{"start_line", "end_line", "replacement"}]``. The answer is validated here; ranges and
overlaps are checked where the edits are applied (``lineedits.apply_line_edits``).
"""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from ipuaro.domain.edits import LineEdit
from ipuaro.domain.errors import IpuaroError
from ipuaro.edits.diffs import numbered
from ipuaro.edits.text import Lines

if TYPE_CHECKING:
    from ipuaro.llm.protocol import ModelClient

PLANNER_SYSTEM = """You turn an edit request into exact line edits of one file.
The file is shown with line numbers ("12| code"). Answer ONLY this JSON, no prose:
{"edits": [{"start_line": 12, "end_line": 14, "replacement": "new code for lines 12-14"}]}
Rules:
- start_line and end_line are 1-based and inclusive, numbers from the listing.
- replacement is the complete new text of those lines, without line numbers, with the
  file's indentation. Use "" to delete the lines.
- To insert without removing, use end_line = start_line - 1 (inserts before start_line).
- Edits must not overlap. Change only what the request needs."""


class PlanError(IpuaroError):
    """The planner's answer was not a valid list of line edits."""


class _PlannedEdit(BaseModel):
    start_line: int
    end_line: int
    replacement: str


_PLAN = TypeAdapter(list[_PlannedEdit])
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)

PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "edits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "start_line": {"type": "integer"},
                    "end_line": {"type": "integer"},
                    "replacement": {"type": "string"},
                },
                "required": ["start_line", "end_line", "replacement"],
            },
        }
    },
    "required": ["edits"],
}


def parse_plan(text: str) -> list[LineEdit]:
    """Read the model's answer: a JSON array (or ``{"edits": [...]}``), fenced or bare."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    last_error = "no JSON array found"
    for candidate in candidates:
        start = min((i for i in (candidate.find("["), candidate.find("{")) if i >= 0), default=-1)
        if start < 0:
            continue
        try:
            value, _end = json.JSONDecoder().raw_decode(candidate[start:])
        except json.JSONDecodeError as error:
            last_error = f"invalid JSON: {error}"
            continue
        if isinstance(value, dict):
            value = value.get("edits", [value] if "start_line" in value else None)
        try:
            planned = _PLAN.validate_python(value)
        except ValidationError as error:
            last_error = f"wrong shape: {error.errors()[0]['msg']}"
            continue
        return [LineEdit(p.start_line, p.end_line, p.replacement) for p in planned]
    raise PlanError(f"the edit planner's answer is not a list of line edits ({last_error})")


def planner_prompt(file_text: str, instructions: str, code_edit: str) -> str:
    # The plan's line numbers are applied to ``Lines.of(...).lines``: number the same lines
    # (``str.splitlines`` also breaks at form feeds and U+2028 and would shift them).
    lines = Lines.of(file_text).lines
    return (
        f"File ({len(lines)} lines):\n{numbered(lines, 1)}\n\n"
        f"Request: {instructions}\n\n"
        f"Sketch of the change (`... existing code ...` marks unchanged code):\n{code_edit}\n\n"
        'Answer with {"edits": [...]}.'
    )


class LlmEditPlanner:
    """:class:`~ipuaro.domain.edits.EditPlanner` backed by a :class:`ModelClient`."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    async def plan(self, file_text: str, instructions: str, code_edit: str) -> list[LineEdit]:
        from ipuaro.domain import ChatMessage
        from ipuaro.llm.protocol import StreamDone, StreamError

        message = ChatMessage(
            role="user",
            content=planner_prompt(file_text, instructions, code_edit),
            timestamp=time.time(),
        )
        reply_text: str | None = None
        async for event in self.client.stream_chat(
            [message],
            system=PLANNER_SYSTEM,
            tools=None,
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "line_edits", "schema": PLAN_SCHEMA},
            },
        ):
            if isinstance(event, StreamDone):
                reply_text = event.message.text
            elif isinstance(event, StreamError):
                raise PlanError(f"the edit planner's model call failed: {event.error}")
        if reply_text is None:
            raise PlanError("the edit planner's model call ended without an answer")
        return parse_plan(reply_text)
