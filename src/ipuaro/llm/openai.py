"""Any OpenAI-compatible ``/v1/chat/completions`` server: llama.cpp, LM Studio, vLLM, hosted APIs.

Streaming is SSE; usage comes in a last chunk thanks to ``stream_options.include_usage``.
Native tool calls arrive split across chunks by ``index`` and are assembled here; arguments that
are not JSON become ``ToolCallInvalid`` so the agent can re-prompt. Features differ between
servers, so refusals are detected and remembered for the session (``CapabilityFallback``):

- ``response_format`` ``json_schema`` → ``json_object`` → the schema written into the prompt;
- ``tools`` → tool instructions in the prompt (the agent reads the calls from the text);
- ``stream_options`` → dropped (usage is then estimated locally).

``num_ctx`` does not exist here: the server's own context size applies.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from ipuaro.domain.session import ChatMessage, ToolCall
from ipuaro.llm.errors import ModelError, kind_for_status
from ipuaro.llm.formats import render_calls_as_text, tool_instructions, tool_result_text
from ipuaro.llm.jsonrepair import JsonRepairError, loads_lenient
from ipuaro.llm.protocol import (
    CapabilityFallback,
    ContextWindow,
    ModelEvent,
    ModelInfo,
    PullProgress,
    ToolCallParseError,
    ToolSpec,
    new_call_id,
)
from ipuaro.llm.served import served_window
from ipuaro.llm.sse import iter_sse
from ipuaro.llm.streaming import ReplyBuilder, RetrySettings, drive
from ipuaro.llm.tokens import estimate_chat_tokens
from ipuaro.llm.transport import ServerHints, error_from_exception, error_from_status, error_message
from ipuaro.llm.window import choose_context_window

DEFAULT_OPENAI_URL = "http://localhost:8080/v1"
_CONTEXT_KEYS = ("context_length", "max_context_length", "context_window", "max_model_len")

ResponseFormatMode = Literal["json_schema", "json_object", "prompt"]


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class OpenAICompatibleClient:
    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        context_window: int | None = None,
        requested_context: int | None = None,
        temperature: float = 0.1,
        timeout: float = 300.0,
        retry: RetrySettings | None = None,
        max_tokens: int | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``max_tokens`` caps each reply (some servers default to "until the context is
        full"); None sends no cap."""
        self.model = model
        self._max_tokens = max_tokens
        self.base_url = (base_url or DEFAULT_OPENAI_URL).rstrip("/")
        self._pinned = context_window
        self._requested = requested_context
        self._temperature = temperature
        self._timeout = timeout
        self._retry = retry or RetrySettings()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
        )
        self._window: ContextWindow | None = None
        self._window_lock = asyncio.Lock()
        self.response_format_mode: ResponseFormatMode = "json_schema"
        self.native_tools = True
        self._stream_options = True
        self._hints = ServerHints(
            provider="OpenAI-compatible server",
            base_url=self.base_url,
            start_hint=(
                f"Start the server so it listens on {self.base_url} (llama.cpp: "
                "`llama-server -m MODEL.gguf --port 8080`; LM Studio: start the local server), "
                "or set llm.baseUrl to where it runs."
            ),
            missing_model_hint=f"Load {model} in the server, or set llm.model to one listed by "
            f"GET {self.base_url}/models.",
        )

    # --- chat -----------------------------------------------------------------------------

    def stream_chat(
        self,
        messages: list[ChatMessage],
        *,
        system: str | None,
        tools: list[ToolSpec] | None,
        response_format: dict[str, Any] | None = None,
        cancel: asyncio.Event | None = None,
    ) -> AsyncIterator[ModelEvent]:
        async def attempt(builder: ReplyBuilder) -> None:
            await self._chat_once(builder, messages, system, tools, response_format)

        tools_text = json.dumps([_wire_tool(t) for t in tools]) if tools else ""
        estimate = estimate_chat_tokens(messages, system=system, extra=tools_text)
        return drive(attempt, cancel=cancel, retry=self._retry, prompt_estimate=estimate)

    async def _chat_once(
        self,
        builder: ReplyBuilder,
        messages: list[ChatMessage],
        system: str | None,
        tools: list[ToolSpec] | None,
        response_format: dict[str, Any] | None,
    ) -> None:
        while True:
            body = self._chat_body(messages, system, tools, response_format)
            try:
                async with self._http.stream("POST", "/chat/completions", json=body) as response:
                    if response.status_code >= 400:
                        error_body = await response.aread()
                        fallback = self._fallback(response.status_code, error_body, body)
                        if fallback is not None:
                            builder.notice(fallback)
                            continue
                        raise error_from_status(
                            response.status_code, error_body, self._hints, "/chat/completions"
                        )
                    await self._read_stream(response, builder)
                    return
            except httpx.HTTPError as exc:
                raise error_from_exception(exc, self._hints, self._timeout) from None

    def _chat_body(
        self,
        messages: list[ChatMessage],
        system: str | None,
        tools: list[ToolSpec] | None,
        response_format: dict[str, Any] | None,
    ) -> dict[str, Any]:
        native = bool(tools) and self.native_tools
        extra: list[str] = []
        if tools and not native:
            extra.append(tool_instructions("json", tools))
        wire_format = None
        if response_format is not None:
            wire_format = self._wire_response_format(response_format)
            if wire_format is None or wire_format.get("type") == "json_object":
                schema = (response_format.get("json_schema") or {}).get("schema")
                if schema is not None:
                    extra.append(
                        "Reply with one JSON object, and nothing else, that matches this JSON "
                        "schema:\n" + json.dumps(schema)
                    )
                elif wire_format is None:
                    extra.append("Reply with one JSON object and nothing else.")
        if extra:
            system = "\n\n".join([system, *extra]) if system else "\n\n".join(extra)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": _wire_messages(messages, system, native),
            "stream": True,
            "temperature": self._temperature,
        }
        if self._max_tokens is not None:
            body["max_tokens"] = self._max_tokens
        if self._stream_options:
            body["stream_options"] = {"include_usage": True}
        if native and tools:
            body["tools"] = [_wire_tool(tool) for tool in tools]
        if wire_format is not None:
            body["response_format"] = wire_format
        return body

    def _wire_response_format(self, requested: dict[str, Any]) -> dict[str, Any] | None:
        if self.response_format_mode == "prompt":
            return None
        if self.response_format_mode == "json_object" and requested.get("type") == "json_schema":
            return {"type": "json_object"}
        return requested

    def _fallback(
        self, status: int, body: bytes, sent: dict[str, Any]
    ) -> CapabilityFallback | None:
        """The feature a 4xx answer refuses, switched off for the session; None if none."""
        if status >= 500 or status in (401, 403, 404, 429):
            return None
        message = error_message(body.decode("utf-8", errors="replace"))
        lower = message.lower()
        if kind_for_status(status, message) == "context_overflow":
            return None
        if "response_format" in sent and any(
            word in lower for word in ("response_format", "json_schema", "json_object", "grammar")
        ):
            sent_type = sent["response_format"].get("type")
            self.response_format_mode = "json_object" if sent_type == "json_schema" else "prompt"
            detail = f"the server refused response_format {sent_type} ({message[:200]})"
            return CapabilityFallback("response_format", detail)
        if "stream_options" in sent and "stream_options" in lower:
            self._stream_options = False
            detail = f"the server refused stream_options ({message[:200]})"
            return CapabilityFallback("stream_options", detail)
        refusal = ("support", "enable", "requires", "unrecognized", "unknown", "not allowed")
        if "tools" in sent and "tool" in lower and any(word in lower for word in refusal):
            self.native_tools = False
            detail = f"the server refused native tools ({message[:200]}); using text tool calls"
            return CapabilityFallback("tools", detail)
        return None

    async def _read_stream(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        pending: dict[int, _PendingCall] = {}
        finished = False
        async for event in iter_sse(response.aiter_lines()):
            if event.data.strip() == "[DONE]":
                _flush_calls(pending, builder)
                return
            payload = _json_event(event.data)
            if "error" in payload or event.event == "error":
                message = error_message(event.data)
                kind = kind_for_status(500, message)
                raise ModelError(kind, f"the server failed while answering: {message}")
            usage = payload.get("usage")
            if isinstance(usage, dict):
                builder.usage(
                    int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
                )
            for choice in payload.get("choices") or []:
                delta = choice.get("delta") or {}
                builder.text(str(delta.get("content") or ""))
                for part in delta.get("tool_calls") or []:
                    _merge_call_part(pending, part)
                if choice.get("finish_reason"):
                    builder.finish(str(choice["finish_reason"]))
                    _flush_calls(pending, builder)
                    finished = True
        if not finished:
            raise ModelError("disconnected", "the stream ended before the server finished")
        _flush_calls(pending, builder)  # some servers send no [DONE] after finish_reason

    # --- model metadata -------------------------------------------------------------------

    async def _models(self) -> list[dict[str, Any]]:
        try:
            response = await self._http.get("/models")
        except httpx.HTTPError as exc:
            raise error_from_exception(exc, self._hints, self._timeout) from None
        if response.status_code >= 400:
            raise error_from_status(response.status_code, response.content, self._hints, "/models")
        try:
            data = response.json()
        except json.JSONDecodeError:
            raise ModelError("bad_response", "/models did not answer JSON") from None
        entries = data.get("data") if isinstance(data, dict) else None
        return [e for e in entries or [] if isinstance(e, dict)]

    async def model_info(self) -> ModelInfo:
        entry = next((e for e in await self._models() if e.get("id") == self.model), {})
        meta = entry.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        context = next((entry[k] for k in _CONTEXT_KEYS if isinstance(entry.get(k), int)), None)
        if context is None and isinstance(meta.get("n_ctx_train"), int):
            context = meta["n_ctx_train"]  # llama.cpp's server
        capabilities = {"completion", "tools"} if self.native_tools else {"completion"}
        return ModelInfo(
            name=self.model, context_length=context, capabilities=frozenset(capabilities)
        )

    async def context_window(self) -> ContextWindow:
        async with self._window_lock:
            if self._window is None:
                model_max: int | None = None
                served = None
                if self._pinned is None:
                    served = await served_window(self._http, self.base_url, self.model)
                    try:
                        model_max = (await self.model_info()).context_length
                    except ModelError:
                        model_max = None  # many servers list no sizes; the config decides
                self._window = choose_context_window(
                    pinned=self._pinned,
                    requested=self._requested,
                    model_max=model_max,
                    served=served.tokens if served else None,
                    allocates=False,
                )
            return self._window

    async def list_models(self) -> list[str]:
        return [str(e.get("id")) for e in await self._models()]

    async def is_available(self) -> bool:
        try:
            await self._models()
        except ModelError:
            return False
        return True

    async def pull(self, progress: Callable[[PullProgress], None]) -> None:
        raise ModelError(
            "unsupported",
            f"{self.base_url} is an OpenAI-compatible server; it cannot download {self.model}",
            suggestion="Load the model in the server itself (llama.cpp `--model`, LM Studio, "
            "vLLM `--model`), or set llm.provider to ollama.",
        )

    async def aclose(self) -> None:
        await self._http.aclose()


# --- wire format ---------------------------------------------------------------------------


def _wire_messages(
    messages: list[ChatMessage], system: str | None, native: bool
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if system:
        out.append({"role": "system", "content": system})
    names_by_id: dict[str, str] = {}
    for message in messages:
        for call in message.tool_calls or []:
            names_by_id[call.id] = call.name
        if message.role == "tool":
            call_id = next((r.call_id for r in message.tool_results or []), None)
            if native and call_id is not None:
                out.append({"role": "tool", "tool_call_id": call_id, "content": message.content})
            else:
                name = message.tool_name or names_by_id.get(call_id or "", "tool")
                out.append({"role": "user", "content": tool_result_text(name, message.content)})
        elif message.role == "assistant" and message.tool_calls:
            if native:
                calls = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(c.parameters)},
                    }
                    for c in message.tool_calls
                ]
                out.append(
                    {"role": "assistant", "content": message.content or None, "tool_calls": calls}
                )
            else:
                content = render_calls_as_text(message.content, message.tool_calls)
                out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def _merge_call_part(pending: dict[int, _PendingCall], part: dict[str, Any]) -> None:
    slot = pending.setdefault(int(part.get("index") or 0), _PendingCall())
    if part.get("id"):
        slot.id = str(part["id"])
    function = part.get("function") or {}
    if function.get("name"):
        slot.name += str(function["name"])
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        slot.arguments += arguments
    elif isinstance(arguments, dict):  # a few servers send the object whole
        slot.arguments = json.dumps(arguments)


def _flush_calls(pending: dict[int, _PendingCall], builder: ReplyBuilder) -> None:
    for index in sorted(pending):
        slot = pending[index]
        raw = slot.arguments.strip()
        try:
            arguments = loads_lenient(raw) if raw else {}
        except JsonRepairError as exc:
            error = ToolCallParseError(f"arguments of {slot.name}: {exc}", slot.name, raw[:300])
            builder.invalid_call(error)
            continue
        if not isinstance(arguments, dict):
            message = f"arguments of {slot.name} must be a JSON object"
            builder.invalid_call(ToolCallParseError(message, slot.name, raw[:300]))
            continue
        builder.tool_call(
            ToolCall(id=slot.id or new_call_id(), name=slot.name, parameters=arguments)
        )
    pending.clear()


def _json_event(data: str) -> dict[str, Any]:
    try:
        payload = json.loads(data)
    except json.JSONDecodeError:
        raise ModelError("bad_response", f"an SSE event is not JSON: {data[:200]!r}") from None
    if not isinstance(payload, dict):
        raise ModelError("bad_response", f"an SSE event is {type(payload).__name__}, not object")
    return payload
