"""Ollama's native API: ``/api/chat`` (NDJSON stream), ``/api/show``, ``/api/tags``, ``/api/pull``.

What Ollama does that this client works around:

- it silently truncates the prompt to its default context unless ``options.num_ctx`` is sent,
  and reloads the model whenever ``num_ctx`` changes — so one value is sent on every request of
  the session (``window.choose_context_window``);
- it unloads an idle model after five minutes unless ``keep_alive`` is sent — sent every time;
- it wants ``tool_name`` on ``role: tool`` messages, and ignores ``tool_choice`` (never sent);
- qwen2.5-coder often writes its call as text and Ollama then reports no call — the agent reads
  those with ``toolcalls.parse_reply``;
- a model without the ``tools`` capability makes ``/api/chat`` answer 400 "does not support
  tools": the client then offers the tools as text instructions for the rest of the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

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
from ipuaro.llm.streaming import ReplyBuilder, RetrySettings, drive
from ipuaro.llm.tokens import estimate_chat_tokens
from ipuaro.llm.transport import ServerHints, error_from_exception, error_from_status
from ipuaro.llm.window import choose_context_window

DEFAULT_OLLAMA_URL = "http://localhost:11434"


class OllamaClient:
    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        context_window: int | None = None,
        requested_context: int | None = None,
        temperature: float = 0.1,
        keep_alive: str = "30m",
        timeout: float = 300.0,
        retry: RetrySettings | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``context_window`` pins ``num_ctx``; ``requested_context`` (``llm.contextWindow``) is
        used capped to the model's size; with neither, the model's size is used."""
        self.model = model
        self.base_url = (base_url or DEFAULT_OLLAMA_URL).rstrip("/")
        self._pinned = context_window
        self._requested = requested_context
        self._temperature = temperature
        self._keep_alive = keep_alive
        self._timeout = timeout
        self._retry = retry or RetrySettings()
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
        )
        self._window: ContextWindow | None = None
        self._window_lock = asyncio.Lock()
        self._native_tools = True
        self._hints = ServerHints(
            provider="Ollama",
            base_url=self.base_url,
            start_hint=(
                f"Start Ollama with `ollama serve`, then get the model with `ollama pull {model}` "
                f"(or set llm.baseUrl if Ollama runs elsewhere than {self.base_url})."
            ),
            missing_model_hint=f"Get the model with `ollama pull {model}`, or set llm.model to "
            "one listed by `ollama list`.",
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

        estimate = estimate_chat_tokens(messages, system=system, extra=_tools_text(tools))
        return drive(attempt, cancel=cancel, retry=self._retry, prompt_estimate=estimate)

    async def _chat_once(
        self,
        builder: ReplyBuilder,
        messages: list[ChatMessage],
        system: str | None,
        tools: list[ToolSpec] | None,
        response_format: dict[str, Any] | None,
    ) -> None:
        window = await self.context_window()
        builder.restart_clock()
        while True:
            native = bool(tools) and self._native_tools
            body = self._chat_body(messages, system, tools, native, response_format, window.tokens)
            try:
                async with self._http.stream("POST", "/api/chat", json=body) as response:
                    if response.status_code >= 400:
                        error_body = await response.aread()
                        if native and _refuses_tools(error_body):
                            self._native_tools = False
                            builder.notice(
                                CapabilityFallback(
                                    "tools",
                                    f"{self.model} does not support native tools on this "
                                    "server; tools are described in the prompt instead",
                                )
                            )
                            continue
                        raise error_from_status(
                            response.status_code, error_body, self._hints, "/api/chat"
                        )
                    await self._read_chat(response, builder)
                    return
            except httpx.HTTPError as exc:
                raise error_from_exception(exc, self._hints, self._timeout) from None

    def _chat_body(
        self,
        messages: list[ChatMessage],
        system: str | None,
        tools: list[ToolSpec] | None,
        native: bool,
        response_format: dict[str, Any] | None,
        num_ctx: int,
    ) -> dict[str, Any]:
        if tools and not native:
            extra = tool_instructions("json", tools)
            system = f"{system}\n\n{extra}" if system else extra
        body: dict[str, Any] = {
            "model": self.model,
            "messages": _wire_messages(messages, system, native),
            "stream": True,
            "options": {"num_ctx": num_ctx, "temperature": self._temperature},
            "keep_alive": self._keep_alive,
        }
        if native and tools:
            body["tools"] = [_wire_tool(tool) for tool in tools]
        if response_format is not None:
            body["format"] = _ollama_format(response_format)
        return body

    async def _read_chat(self, response: httpx.Response, builder: ReplyBuilder) -> None:
        async for line in response.aiter_lines():
            if not line.strip():
                continue
            chunk = _json_line(line, "/api/chat")
            if "error" in chunk:
                message = str(chunk["error"])
                kind = kind_for_status(500, message)
                raise ModelError(kind, f"Ollama failed while answering: {message}")
            message_part = chunk.get("message") or {}
            builder.text(str(message_part.get("content") or ""))
            for raw_call in message_part.get("tool_calls") or []:
                _read_tool_call(raw_call, builder)
            if chunk.get("done"):
                builder.usage(
                    int(chunk.get("prompt_eval_count") or 0), int(chunk.get("eval_count") or 0)
                )
                eval_ns = chunk.get("eval_duration") or 0
                if eval_ns:
                    builder.tokens_per_s = int(chunk.get("eval_count") or 0) / (eval_ns / 1e9)
                builder.finish(str(chunk.get("done_reason") or "stop"))
                return
        raise ModelError("disconnected", "Ollama ended the stream without its final message")

    # --- model metadata -------------------------------------------------------------------

    async def model_info(self) -> ModelInfo:
        data = await self._request_json("POST", "/api/show", {"model": self.model})
        info = data.get("model_info") or {}
        arch = info.get("general.architecture")
        context = info.get(f"{arch}.context_length") if arch else None
        if context is None:
            context = next((v for k, v in info.items() if k.endswith(".context_length")), None)
        capabilities = set(data.get("capabilities") or [])
        if not capabilities:
            # Ollama before 0.6 has no "capabilities": the chat template says whether tools work.
            capabilities = {"completion"}
            if ".Tools" in str(data.get("template") or ""):
                capabilities.add("tools")
        details = data.get("details") or {}
        return ModelInfo(
            name=self.model,
            context_length=int(context) if context is not None else None,
            capabilities=frozenset(capabilities),
            parameter_size=details.get("parameter_size"),
            family=details.get("family"),
            quantization=details.get("quantization_level"),
        )

    async def context_window(self) -> ContextWindow:
        async with self._window_lock:
            if self._window is None:
                model_max: int | None = None
                if self._pinned is None:
                    model_max = (await self.model_info()).context_length
                self._window = choose_context_window(
                    pinned=self._pinned, requested=self._requested, model_max=model_max
                )
            return self._window

    async def list_models(self) -> list[str]:
        data = await self._request_json("GET", "/api/tags", None)
        return [str(m.get("name") or m.get("model")) for m in data.get("models") or []]

    async def is_available(self) -> bool:
        try:
            await self._request_json("GET", "/api/version", None)
        except ModelError:
            return False
        return True

    async def pull(self, progress: Callable[[PullProgress], None]) -> None:
        body = {"model": self.model, "stream": True}
        try:
            async with self._http.stream("POST", "/api/pull", json=body) as response:
                if response.status_code >= 400:
                    error_body = await response.aread()
                    raise error_from_status(
                        response.status_code, error_body, self._hints, "/api/pull"
                    )
                async for line in response.aiter_lines():
                    if not line.strip():
                        continue
                    chunk = _json_line(line, "/api/pull")
                    if "error" in chunk:
                        raise _pull_error(str(chunk["error"]), self.model)
                    status = str(chunk.get("status") or "")
                    progress(
                        PullProgress(
                            status=status,
                            digest=chunk.get("digest"),
                            total=chunk.get("total"),
                            completed=chunk.get("completed"),
                        )
                    )
                    if status == "success":
                        return
        except httpx.HTTPError as exc:
            raise error_from_exception(exc, self._hints, self._timeout) from None
        raise ModelError("disconnected", f"Ollama stopped the download of {self.model} early")

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _request_json(self, method: str, path: str, body: Any) -> dict[str, Any]:
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.HTTPError as exc:
            raise error_from_exception(exc, self._hints, self._timeout) from None
        if response.status_code >= 400:
            raise error_from_status(response.status_code, response.content, self._hints, path)
        try:
            data = response.json()
        except json.JSONDecodeError:
            raise ModelError("bad_response", f"{path} did not answer JSON") from None
        if not isinstance(data, dict):
            raise ModelError("bad_response", f"{path} answered {type(data).__name__}, not object")
        return data


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
            name = message.tool_name or _name_from_results(message, names_by_id)
            if native:
                out.append({"role": "tool", "content": message.content, "tool_name": name})
            else:
                out.append({"role": "user", "content": tool_result_text(name, message.content)})
        elif message.role == "assistant" and message.tool_calls:
            if native:
                calls = [
                    {"function": {"name": c.name, "arguments": c.parameters}}
                    for c in message.tool_calls
                ]
                out.append({"role": "assistant", "content": message.content, "tool_calls": calls})
            else:
                content = render_calls_as_text(message.content, message.tool_calls)
                out.append({"role": "assistant", "content": content})
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def _name_from_results(message: ChatMessage, names_by_id: dict[str, str]) -> str:
    for result in message.tool_results or []:
        if result.call_id in names_by_id:
            return names_by_id[result.call_id]
    return "tool"


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def _tools_text(tools: list[ToolSpec] | None) -> str:
    return json.dumps([_wire_tool(t) for t in tools]) if tools else ""


def _ollama_format(response_format: dict[str, Any]) -> Any:
    """OpenAI's ``response_format`` in Ollama's terms: a JSON schema object, or ``"json"``."""
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        if isinstance(schema, dict):
            return schema
    return "json"


def _read_tool_call(raw_call: dict[str, Any], builder: ReplyBuilder) -> None:
    function = raw_call.get("function") or {}
    name = str(function.get("name") or "")
    arguments = function.get("arguments")
    call_id = str(raw_call.get("id") or new_call_id())
    if isinstance(arguments, str):  # some Ollama builds pass the model's string through
        try:
            arguments = loads_lenient(arguments) if arguments.strip() else {}
        except JsonRepairError as exc:
            raw = str(function.get("arguments"))[:300]
            builder.invalid_call(ToolCallParseError(f"arguments of {name}: {exc}", name, raw))
            return
    if not isinstance(arguments, dict):
        message = f"arguments of {name} must be a JSON object"
        builder.invalid_call(ToolCallParseError(message, name, str(arguments)[:300]))
        return
    builder.tool_call(ToolCall(id=call_id, name=name, parameters=arguments))


def _refuses_tools(body: bytes) -> bool:
    return b"does not support tools" in body


def _json_line(line: str, path: str) -> dict[str, Any]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        raise ModelError(
            "bad_response", f"{path} sent a line that is not JSON: {line[:200]!r}"
        ) from None
    if not isinstance(data, dict):
        raise ModelError("bad_response", f"{path} sent {type(data).__name__}, not an object")
    return data


def _pull_error(message: str, model: str) -> ModelError:
    if "does not exist" in message or "not found" in message:
        return ModelError(
            "model_not_found",
            f"Ollama cannot download {model}: {message}",
            suggestion="Check the name in the Ollama library (e.g. qwen2.5-coder:7b-instruct).",
        )
    return ModelError(kind_for_status(500, message), f"pulling {model} failed: {message}")
