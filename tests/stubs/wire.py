"""The bytes each wire protocol puts on the socket, as the servers document them.

Ollama (docs/api.md): ``application/x-ndjson``, one JSON object per line, the last one with
``"done": true`` and the counters; errors as ``{"error": "…"}``.
OpenAI (chat streaming reference): ``text/event-stream``, ``data: {chunk}`` + blank line, tool
call deltas keyed by ``index`` with the arguments string cut into pieces, an empty-``choices``
usage chunk when ``stream_options.include_usage`` is set, then ``data: [DONE]``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.stubs.script import ScriptedReply, StubModel, split_text

CREATED_AT = "2024-07-22T20:33:28.123648Z"


@dataclass
class Frames:
    """A streamed reply: ``content`` frames are the ones ``error_after``/``disconnect_after``
    count; ``opening`` and ``closing`` surround them."""

    content_type: str
    opening: list[bytes] = field(default_factory=list)
    content: list[bytes] = field(default_factory=list)
    closing: list[bytes] = field(default_factory=list)
    error: bytes = b""


def _line(obj: Any) -> bytes:
    return (json.dumps(obj, separators=(",", ":")) + "\n").encode()


def _event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


# --- Ollama --------------------------------------------------------------------------------


def ollama_chat_frames(reply: ScriptedReply, model: str) -> Frames:
    frames = Frames("application/x-ndjson")
    for piece in split_text(reply.text, reply.chunks):
        message: dict[str, Any] = {"role": "assistant", "content": piece}
        frames.content.append(
            _line({"model": model, "created_at": CREATED_AT, "message": message, "done": False})
        )
    if reply.tool_calls:
        calls = [
            {
                "function": {"name": c.name, "arguments": c.arguments},
                **({"id": c.id} if c.id else {}),
            }
            for c in reply.tool_calls
        ]
        message = {"role": "assistant", "content": "", "tool_calls": calls}
        frames.content.append(
            _line({"model": model, "created_at": CREATED_AT, "message": message, "done": False})
        )
    frames.closing.append(
        _line(
            {
                "model": model,
                "created_at": CREATED_AT,
                "message": {"role": "assistant", "content": ""},
                "done_reason": reply.done_reason,
                "done": True,
                "total_duration": 4_883_583_458,
                "load_duration": 1_334_875,
                "prompt_eval_count": reply.prompt_tokens,
                "prompt_eval_duration": 342_546_000,
                "eval_count": reply.completion_tokens,
                "eval_duration": 500_000_000,
            }
        )
    )
    frames.error = _line({"error": reply.error_message})
    return frames


def ollama_error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


def ollama_show(model: StubModel) -> dict[str, Any]:
    tools_template = "{{- if .Tools }}<tools>{{ range .Tools }}{{ . }}{{ end }}</tools>{{ end }}"
    info: dict[str, Any] = {
        "general.architecture": model.family,
        "general.parameter_count": 7_615_616_512,
    }
    if model.context_length is not None:
        info[f"{model.family}.context_length"] = model.context_length
    data: dict[str, Any] = {
        "modelfile": f"FROM {model.name}\n",
        "parameters": 'stop "<|im_start|>"\nstop "<|im_end|>"',
        "template": tools_template if "tools" in model.capabilities else "{{ .Prompt }}",
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": model.family,
            "families": [model.family],
            "parameter_size": model.parameter_size,
            "quantization_level": model.quantization,
        },
        "model_info": info,
        "modified_at": CREATED_AT,
    }
    if model.reports_capabilities:
        data["capabilities"] = list(model.capabilities)
    return data


def ollama_tags(models: list[StubModel]) -> dict[str, Any]:
    return {
        "models": [
            {
                "name": m.name,
                "model": m.name,
                "modified_at": CREATED_AT,
                "size": 4_683_087_332,
                "digest": "sha256:" + "0" * 64,
                "details": {
                    "format": "gguf",
                    "family": m.family,
                    "parameter_size": m.parameter_size,
                    "quantization_level": m.quantization,
                },
            }
            for m in models
        ]
    }


def ollama_pull_lines(total: int = 4_683_087_332, steps: int = 4) -> list[bytes]:
    digest = "sha256:" + "a" * 64
    lines = [_line({"status": "pulling manifest"})]
    for i in range(steps + 1):
        completed = total * i // steps
        lines.append(
            _line(
                {
                    "status": f"pulling {digest[7:19]}",
                    "digest": digest,
                    "total": total,
                    "completed": completed,
                }
            )
        )
    lines += [
        _line({"status": "verifying sha256 digest"}),
        _line({"status": "writing manifest"}),
        _line({"status": "success"}),
    ]
    return lines


# --- OpenAI --------------------------------------------------------------------------------


def openai_chat_frames(reply: ScriptedReply, model: str, include_usage: bool) -> Frames:
    frames = Frames("text/event-stream")
    created = int(time.time())

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _event(
            {
                "id": "chatcmpl-stub",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": "fp_stub",
                "choices": [choice],
            }
        )

    frames.opening.append(chunk({"role": "assistant", "content": None}))
    for piece in split_text(reply.text, reply.chunks):
        frames.content.append(chunk({"content": piece}))
    for index, call in enumerate(reply.tool_calls):
        arguments = (
            call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
        )
        head = {
            "index": index,
            "id": call.id or f"call_stub{index}",
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        frames.content.append(chunk({"tool_calls": [head]}))
        for piece in split_text(arguments, reply.tool_call_chunks):
            part = {"index": index, "function": {"arguments": piece}}
            frames.content.append(chunk({"tool_calls": [part]}))
    finish = "tool_calls" if reply.tool_calls else reply.done_reason
    frames.closing.append(chunk({}, finish))
    if include_usage:
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
        frames.closing.append(
            _event(
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [],
                    "usage": usage,
                }
            )
        )
    if reply.send_done_marker:
        frames.closing.append(b"data: [DONE]\n\n")
    frames.error = _event({"error": {"message": reply.error_message, "type": "server_error"}})
    return frames


def openai_completion(reply: ScriptedReply, model: str) -> dict[str, Any]:
    """The whole reply as one non-streamed ``chat.completion`` object."""
    calls = [
        {
            "id": call.id or f"call_stub{index}",
            "type": "function",
            "function": {
                "name": call.name,
                "arguments": call.arguments
                if isinstance(call.arguments, str)
                else json.dumps(call.arguments),
            },
        }
        for index, call in enumerate(reply.tool_calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if calls:
        message["tool_calls"] = calls
    finish = "tool_calls" if calls else reply.done_reason
    usage = {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


def openai_error_body(message: str, status: int) -> bytes:
    kind = "invalid_request_error" if status < 500 else "server_error"
    error = {"message": message, "type": kind, "param": None, "code": None}
    return json.dumps({"error": error}).encode()


def openai_models(models: list[StubModel]) -> dict[str, Any]:
    data = []
    for m in models:
        entry: dict[str, Any] = {"id": m.name, "object": "model", "created": 0, "owned_by": "stub"}
        if m.context_length is not None:
            entry["meta"] = {"n_ctx_train": m.context_length, "n_vocab": 151936}
        data.append(entry)
    return {"object": "list", "data": data}
