"""Any OpenAI-compatible ``/v1/chat/completions`` server: llama.cpp, LM Studio, vLLM, hosted APIs.

Streaming is SSE; usage comes in a last chunk thanks to ``stream_options.include_usage``.
Native tool calls arrive split across chunks by ``index`` and are assembled here; arguments that
are not JSON become ``ToolCallInvalid`` so the agent can re-prompt. Features differ between
servers, so refusals are detected and remembered for the session (``CapabilityFallback``):

- ``response_format`` ``json_schema`` → ``json_object`` carrying the schema under ``schema``
  (llama-cpp-python's server and others constrain to it; the rest ignore it) → the schema
  written into the prompt;
- ``tools`` → tool instructions in the prompt (the agent reads the calls from the text). Tools
  go out with ``tool_choice: "auto"`` (what the OpenAI API means without one; llama-cpp-python
  drops the tools without it), and whether the server really shows them to the model is checked
  once per server and model before the first use (:mod:`ipuaro.llm.toolprobe`): a server that
  drops them silently gets text tool calls too, and the user is told;
- ``stream_options`` → dropped (usage is then estimated locally).

``num_ctx`` does not exist here: the server's own context size applies.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal

from ipuaro.domain.session import ChatMessage
from ipuaro.llm.errors import ModelError, kind_for_status
from ipuaro.llm.formats import tool_instructions
from ipuaro.llm.http_client import HttpModelClient
from ipuaro.llm.lean_httpx import httpx
from ipuaro.llm.protocol import CapabilityFallback, ModelInfo, PullProgress
from ipuaro.llm.served import served_window
from ipuaro.llm.sse import iter_sse
from ipuaro.llm.streaming import ReplyBuilder, RetrySettings
from ipuaro.llm.toolprobe import ToolSupport, probe_tools, remember, remembered
from ipuaro.llm.transport import (
    ErrorAnswer,
    ServerHints,
    error_message,
    expect_object,
    parse_json_object,
)
from ipuaro.llm.wire import ChatRequest, NativeToolTurns, wire_messages, wire_tools

DEFAULT_OPENAI_URL = "http://localhost:8080/v1"
_CONTEXT_KEYS = ("context_length", "max_context_length", "context_window", "max_model_len")

ResponseFormatMode = Literal["json_schema", "json_object", "prompt"]


@dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class OpenAICompatibleClient(HttpModelClient):
    chat_path = "/chat/completions"
    probe_path = "/models"
    allocates_window = False

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
        full"); None sends no cap unless ``stream_chat`` asks one."""
        url = (base_url or DEFAULT_OPENAI_URL).rstrip("/")
        hints = ServerHints(
            provider="OpenAI-compatible server",
            base_url=url,
            start_hint=(
                f"Start the server so it listens on {url} (llama.cpp: "
                f"`llama-server -m MODEL.gguf --port {httpx.URL(url).port or 80}`; LM Studio: "
                "start the local server), "
                "or set llm.baseUrl to where it runs."
            ),
            missing_model_hint=f"Load {model} in the server, or pick one listed by GET "
            f"{url}/models with --model NAME (llm.model).",
        )
        super().__init__(
            model=model,
            base_url=url,
            hints=hints,
            timeout=timeout,
            retry=retry,
            context_window=context_window,
            requested_context=requested_context,
            headers={"Authorization": f"Bearer {api_key}"} if api_key else None,
            transport=transport,
            max_tokens=max_tokens,
        )
        self._temperature = temperature
        self.response_format_mode: ResponseFormatMode = "json_schema"
        self.native_tools = True
        self._stream_options = True
        self.tool_support: ToolSupport | None = None
        """The answer of the tool check, once made (None: not checked yet)."""
        self._tool_check_lock = asyncio.Lock()
        self._tools_notice: CapabilityFallback | None = None
        self._stream_tools = True
        """False once the server failed to stream a reply with a tool call (sent whole then)."""

    # --- chat -----------------------------------------------------------------------------

    async def _chat_body(self, request: ChatRequest) -> dict[str, Any]:
        tools, system, response_format = request.tools, request.system, request.response_format
        if tools and self.native_tools:
            await self.check_tools()
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
        streamed = not (native and not self._stream_tools)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(request.messages, system, _NATIVE if native else None),
            "stream": streamed,
            "temperature": self._temperature,
        }
        if request.reply_cap is not None:
            body["max_tokens"] = request.reply_cap
        if self._stream_options and streamed:
            body["stream_options"] = {"include_usage": True}
        if native and tools:
            body["tools"] = wire_tools(tools)
            body["tool_choice"] = "auto"
        if wire_format is not None:
            body["response_format"] = wire_format
        return body

    def _wire_response_format(self, requested: dict[str, Any]) -> dict[str, Any] | None:
        if self.response_format_mode == "prompt":
            return None
        if self.response_format_mode == "json_object" and requested.get("type") == "json_schema":
            schema = (requested.get("json_schema") or {}).get("schema")
            return {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}
        return requested

    def _fallback(self, answer: ErrorAnswer, sent: dict[str, Any]) -> CapabilityFallback | None:
        status = answer.status or 0
        message = answer.server_message
        lower = message.lower()
        # llama-cpp-python's server answers an unknown response_format type with a 500 that
        # names it: a refusal too, not a crash.
        named = "response_format" in sent and "response_format" in lower
        if (status >= 500 and not named) or status in (401, 403, 404, 429):
            return None
        if answer.kind == "context_overflow":
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

    async def _replay_unstreamed(self, body: dict[str, Any], builder: ReplyBuilder) -> bool:
        # A server that refuses the prompt says why in a plain answer, before evaluating
        # anything. One that could not stream a reply calling a tool (llama-cpp-python's
        # chatml-function-calling: "Automatic streaming tool choice is not supported") answers
        # it whole — and requests with tools go unstreamed for the rest of the session. Without
        # tools only the refusal is asked for (one token): the break stays a break, retried
        # as llm.autoRetry says.
        tools = bool(body.get("tools"))
        quiet = {k: v for k, v in body.items() if k != "stream_options"}
        quiet["stream"] = False
        if not tools:
            quiet["max_tokens"] = 1
        try:
            try:
                answer = await self._request_json("POST", self.chat_path, quiet)
            except ModelError as first:
                if first.kind != "disconnected":
                    raise
                # The kept-alive connection died with the stream (llama-cpp-python closes it
                # after the failure): the pool dropped it, the next try gets a new one.
                answer = await self._request_json("POST", self.chat_path, quiet)
        except ModelError as refusal:
            if refusal.kind != "context_overflow":
                return False
            raise ModelError(
                "context_overflow",
                "the server ended the stream without an answer; asked again without streaming "
                f"it says: {refusal.message}",
                status=refusal.status,
            ) from None
        if not tools:
            return False
        self._read_whole(answer, builder)
        if self._stream_tools:
            self._stream_tools = False
            detail = (
                "the server cannot stream a reply that calls a tool; requests with tools are "
                "sent without streaming"
            )
            builder.notice(CapabilityFallback("stream", detail))
        return True

    def _read_whole(self, answer: Any, builder: ReplyBuilder) -> None:
        payload = expect_object(answer, "the answer of /chat/completions")
        usage = payload.get("usage")
        if isinstance(usage, dict):
            builder.usage(
                int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
            )
        for choice in payload.get("choices") or []:
            message = choice.get("message") or {}
            builder.text(str(message.get("content") or ""))
            for index, call in enumerate(message.get("tool_calls") or []):
                function = call.get("function") or {}
                part = {"index": index, "id": call.get("id"), "function": function}
                pending: dict[int, _PendingCall] = {}
                _merge_call_part(pending, part)
                _flush_calls(pending, builder)
            builder.finish(str(choice.get("finish_reason") or "stop"))

    async def _read_chat(self, lines: AsyncIterator[str], builder: ReplyBuilder) -> None:
        pending: dict[int, _PendingCall] = {}
        finished = False
        async for event in iter_sse(lines):
            if event.data.strip() == "[DONE]":
                _flush_calls(pending, builder)
                return
            payload = parse_json_object(event.data, "an SSE event")
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

    # --- tools ----------------------------------------------------------------------------

    async def check_tools(self) -> ToolSupport:
        """Whether the server shows the model the tools it is sent, asked once per server and
        model (:mod:`ipuaro.llm.toolprobe`). A server that drops or refuses them switches this
        client to text tool calls; the next chat says so with a ``CapabilityFallback``."""
        async with self._tool_check_lock:
            if self.tool_support is not None:
                return self.tool_support
            support = remembered(self.base_url, self.model)
            if support is None:
                support = await probe_tools(self._http, self.base_url, self.model)
                remember(self.base_url, self.model, support)
            self.tool_support = support
            if support.honoured is False and self.native_tools:
                self.native_tools = False
                detail = f"{support.detail}; using text tool calls"
                self._tools_notice = CapabilityFallback("tools", detail)
            return support

    def _notices(self, request: ChatRequest) -> list[CapabilityFallback]:
        # Said to a request that offers tools natively: the agent then switches to text calls.
        # A request without tools (the agent already uses text calls) needs no switch.
        notice, self._tools_notice = self._tools_notice, None
        if notice is None or not request.tools:
            self._tools_notice = notice
            return []
        return [notice]

    # --- model metadata -------------------------------------------------------------------

    async def _models(self) -> list[dict[str, Any]]:
        data = await self._request_json("GET", "/models")
        entries = data.get("data") if isinstance(data, dict) else None
        return [e for e in entries or [] if isinstance(e, dict)]

    async def _listed_context(self) -> int | None:
        entry = next((e for e in await self._models() if e.get("id") == self.model), {})
        meta = entry.get("meta")
        meta = meta if isinstance(meta, dict) else {}
        context = next((entry[k] for k in _CONTEXT_KEYS if isinstance(entry.get(k), int)), None)
        if context is None and isinstance(meta.get("n_ctx_train"), int):
            context = meta["n_ctx_train"]  # llama.cpp's server
        return context if isinstance(context, int) else None

    async def model_info(self) -> ModelInfo:
        """Asks the server whether it shows the model the tools (once: see ``check_tools``);
        ``notes`` says so when it does not."""
        context = await self._listed_context()
        if self.native_tools:
            await self.check_tools()
        support = self.tool_support
        notes: tuple[str, ...] = ()
        if support is not None and support.honoured is False:
            notes = (f"{support.detail}; tools are described in the prompt instead",)
        capabilities = {"completion", "tools"} if self.native_tools else {"completion"}
        return ModelInfo(
            name=self.model,
            context_length=context,
            capabilities=frozenset(capabilities),
            notes=notes,
        )

    async def _model_max(self) -> int | None:
        try:
            return await self._listed_context()
        except ModelError:
            return None  # many servers list no sizes; the config decides

    async def _served_window(self) -> int | None:
        served = await served_window(self._http, self.base_url, self.model)
        return served.tokens if served else None

    async def list_models(self) -> list[str]:
        return [str(e.get("id")) for e in await self._models()]

    async def pull(self, progress: Callable[[PullProgress], None]) -> None:
        raise ModelError(
            "unsupported",
            f"{self.base_url} is an OpenAI-compatible server; it cannot download {self.model}",
            suggestion="Load the model in the server itself (llama.cpp `--model`, LM Studio, "
            "vLLM `--model`), or set llm.provider to ollama.",
        )


# --- wire format ---------------------------------------------------------------------------


def _assistant_calls(message: ChatMessage) -> dict[str, Any]:
    calls = [
        {
            "id": c.id,
            "type": "function",
            "function": {"name": c.name, "arguments": json.dumps(c.parameters)},
        }
        for c in message.tool_calls or []
    ]
    # "" rather than null: llama-cpp-python refuses a null content (OpenAI takes both).
    return {"role": "assistant", "content": message.content or "", "tool_calls": calls}


def _tool_result(message: ChatMessage, name: str) -> dict[str, Any] | None:
    call_id = next((r.call_id for r in message.tool_results or []), None)
    if call_id is None:
        return None  # nothing ties it to its call: the server would refuse it
    return {"role": "tool", "tool_call_id": call_id, "content": message.content}


_NATIVE = NativeToolTurns(calls=_assistant_calls, result=_tool_result)


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
        builder.wire_call(slot.name, slot.arguments, slot.id)
    pending.clear()
