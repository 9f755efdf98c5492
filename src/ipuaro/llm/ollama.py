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
  ``/api/show`` says so beforehand (``capabilities``, or the template before Ollama 0.6): the
  same check the OpenAI-compatible client makes with a probe, so both clients switch to text
  tool calls before the first turn and say so (``ModelInfo.notes``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from ipuaro.domain.session import ChatMessage
from ipuaro.llm.errors import ModelError, kind_for_status
from ipuaro.llm.formats import tool_instructions
from ipuaro.llm.http_client import HttpModelClient
from ipuaro.llm.lean_httpx import httpx
from ipuaro.llm.protocol import CapabilityFallback, ModelInfo, PullProgress
from ipuaro.llm.streaming import ReplyBuilder, RetrySettings
from ipuaro.llm.transport import ErrorAnswer, ServerHints, expect_object, parse_json_object
from ipuaro.llm.wire import ChatRequest, NativeToolTurns, wire_messages, wire_tools

DEFAULT_OLLAMA_URL = "http://localhost:11434"


class OllamaClient(HttpModelClient):
    chat_path = "/api/chat"
    probe_path = "/api/version"

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
        max_tokens: int | None = None,
    ) -> None:
        """``context_window`` pins ``num_ctx``; ``requested_context`` (``llm.contextWindow``) is
        used capped to the model's size; with neither, the model's size is used.
        ``max_tokens`` (``llm.maxReplyTokens``) goes out as ``num_predict``."""
        url = (base_url or DEFAULT_OLLAMA_URL).rstrip("/")
        hints = ServerHints(
            provider="Ollama",
            base_url=url,
            start_hint=(
                f"Start Ollama with `ollama serve`, then get the model with `ollama pull {model}` "
                f"(or set llm.baseUrl if Ollama runs elsewhere than {url})."
            ),
            missing_model_hint=f"Get the model with `ollama pull {model}`, or pick one listed "
            "by `ollama list` with --model NAME (llm.model).",
        )
        super().__init__(
            model=model,
            base_url=url,
            hints=hints,
            timeout=timeout,
            retry=retry,
            context_window=context_window,
            requested_context=requested_context,
            transport=transport,
            max_tokens=max_tokens,
        )
        self._temperature = temperature
        self._keep_alive = keep_alive
        self._native_tools = True
        self._tools_notice: CapabilityFallback | None = None

    # --- chat -----------------------------------------------------------------------------

    async def _chat_body(self, request: ChatRequest) -> dict[str, Any]:
        window = await self.context_window()
        tools = request.tools
        native = bool(tools) and self._native_tools
        system = request.system
        if tools and not native:
            extra = tool_instructions("json", tools)
            system = f"{system}\n\n{extra}" if system else extra
        body: dict[str, Any] = {
            "model": self.model,
            "messages": wire_messages(request.messages, system, _NATIVE if native else None),
            "stream": True,
            "options": {"num_ctx": window.tokens, "temperature": self._temperature},
            "keep_alive": self._keep_alive,
        }
        if request.reply_cap is not None:
            body["options"]["num_predict"] = request.reply_cap
        if native and tools:
            body["tools"] = wire_tools(tools)
        if request.response_format is not None:
            body["format"] = _ollama_format(request.response_format)
        return body

    def _fallback(self, answer: ErrorAnswer, sent: dict[str, Any]) -> CapabilityFallback | None:
        if "tools" not in sent or "does not support tools" not in answer.server_message:
            return None
        self._native_tools = False
        return CapabilityFallback(
            "tools",
            f"{self.model} does not support native tools on this server; tools are described "
            "in the prompt instead",
        )

    async def _read_chat(self, lines: AsyncIterator[str], builder: ReplyBuilder) -> None:
        async for line in lines:
            if not line.strip():
                continue
            chunk = parse_json_object(line, "a line of /api/chat")
            if "error" in chunk:
                message = str(chunk["error"])
                kind = kind_for_status(500, message)
                raise ModelError(kind, f"Ollama failed while answering: {message}")
            message_part = chunk.get("message") or {}
            builder.text(str(message_part.get("content") or ""))
            for raw_call in message_part.get("tool_calls") or []:
                function = raw_call.get("function") or {}
                name = str(function.get("name") or "")
                builder.wire_call(name, function.get("arguments"), raw_call.get("id"))
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
        data = await self._object("POST", "/api/show", {"model": self.model})
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
        notes: tuple[str, ...] = ()
        if "tools" not in capabilities:
            detail = f"{self.model} has no tools capability on this Ollama (/api/show)"
            notes = (f"{detail}; tools are described in the prompt instead",)
            if self._native_tools:
                self._native_tools = False
                self._tools_notice = CapabilityFallback("tools", f"{detail}; using text calls")
        return ModelInfo(
            name=self.model,
            context_length=int(context) if context is not None else None,
            capabilities=frozenset(capabilities),
            parameter_size=details.get("parameter_size"),
            family=details.get("family"),
            quantization=details.get("quantization_level"),
            notes=notes,
        )

    def _notices(self, request: ChatRequest) -> list[CapabilityFallback]:
        notice, self._tools_notice = self._tools_notice, None
        if notice is None or not request.tools:
            self._tools_notice = notice
            return []
        return [notice]

    async def _model_max(self) -> int | None:
        return (await self.model_info()).context_length

    async def list_models(self) -> list[str]:
        data = await self._object("GET", "/api/tags", None)
        return [str(m.get("name") or m.get("model")) for m in data.get("models") or []]

    async def pull(self, progress: Callable[[PullProgress], None]) -> None:
        body = {"model": self.model, "stream": True}
        async with self._stream("/api/pull", body) as lines:
            async for line in lines:
                if not line.strip():
                    continue
                chunk = parse_json_object(line, "a line of /api/pull")
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
        raise ModelError("disconnected", f"Ollama stopped the download of {self.model} early")

    async def _object(self, method: str, path: str, body: Any) -> dict[str, Any]:
        return expect_object(await self._request_json(method, path, body), f"the answer of {path}")


# --- wire format ---------------------------------------------------------------------------


def _assistant_calls(message: ChatMessage) -> dict[str, Any]:
    calls = [
        {"function": {"name": c.name, "arguments": c.parameters}} for c in message.tool_calls or []
    ]
    return {"role": "assistant", "content": message.content, "tool_calls": calls}


def _tool_result(message: ChatMessage, name: str) -> dict[str, Any]:
    return {"role": "tool", "content": message.content, "tool_name": name}


_NATIVE = NativeToolTurns(calls=_assistant_calls, result=_tool_result)


def _ollama_format(response_format: dict[str, Any]) -> Any:
    """OpenAI's ``response_format`` in Ollama's terms: a JSON schema object, or ``"json"``."""
    if response_format.get("type") == "json_schema":
        schema = (response_format.get("json_schema") or {}).get("schema")
        if isinstance(schema, dict):
            return schema
    return "json"


def _pull_error(message: str, model: str) -> ModelError:
    if "does not exist" in message or "not found" in message:
        return ModelError(
            "model_not_found",
            f"Ollama cannot download {model}: {message}",
            suggestion="Check the name in the Ollama library (e.g. qwen2.5-coder:7b-instruct).",
        )
    return ModelError(kind_for_status(500, message), f"pulling {model} failed: {message}")
