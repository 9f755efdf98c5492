"""What both model clients share; a subclass is one server's wire format and nothing else.

``HttpModelClient`` owns the connection and everything that is the same whatever the server
speaks:

- the chat loop: build the body, POST it, stream the answer into a ``ReplyBuilder``; when the
  server refuses a feature (the subclass's ``_fallback`` recognises it and switches it off for
  the session), tell the user with a ``CapabilityFallback`` and send again without it;
- retries, backoff and cancellation, through ``streaming.drive``;
- error mapping: every httpx failure and every HTTP error answer leaves as a ``ModelError``
  (``transport``), also in the middle of a stream;
- the context window, chosen once per session (``window.choose_context_window``).

What the two protocols write alike (tool specs, the conversation) is in ``wire``.

A subclass supplies ``chat_path`` and ``probe_path``, builds the body (``_chat_body``), reads the
stream (``_read_chat``), names the refusals it can fall back from (``_fallback``), reports the
model's size (``_model_max``), and answers the metadata queries of ``ModelClient``.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from ipuaro.domain.session import ChatMessage
from ipuaro.llm.errors import ModelError
from ipuaro.llm.lean_httpx import httpx
from ipuaro.llm.protocol import CapabilityFallback, ContextWindow, ModelEvent, ToolSpec
from ipuaro.llm.streaming import ReplyBuilder, RetrySettings, RunawayCut, drive
from ipuaro.llm.tokens import estimate_chat_tokens
from ipuaro.llm.transport import ErrorAnswer, ServerHints, error_from_exception, error_from_status
from ipuaro.llm.window import choose_context_window
from ipuaro.llm.wire import ChatRequest, wire_tools

if TYPE_CHECKING:
    import ssl

MIN_REPLY_CAP = 256
"""A reply cap never goes below this, however full the window: compaction keeps room for it."""


def tls_context(base_url: str) -> ssl.SSLContext | bool:
    """What the client verifies TLS with: httpx's default (certifi's bundle) for ``https://``;
    for a plain ``http://`` server (Ollama, llama.cpp on this machine) a context that trusts no
    certificate at all.

    The client sends only paths relative to ``base_url`` and follows no redirect, so it never
    speaks TLS to an ``http://`` server; loading certifi's bundle for it anyway cost ~55 ms of
    CPU per client at every start. Should TLS ever happen with it, verification fails: the
    check is never skipped. (A proxy from the environment keeps its own TLS settings.)
    """
    if not base_url.lower().startswith("http://"):
        return True
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies, against no trusted roots


class HttpModelClient(ABC):
    chat_path: ClassVar[str]
    """Where chat requests are POSTed, relative to ``base_url``."""
    probe_path: ClassVar[str]
    """A cheap GET that answers JSON while the server is up (``is_available``)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str,
        hints: ServerHints,
        timeout: float,
        retry: RetrySettings | None,
        context_window: int | None,
        requested_context: int | None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        max_tokens: int | None = None,
    ) -> None:
        """``max_tokens``: the reply cap of a ``stream_chat`` that names none
        (``llm.maxReplyTokens``); None: no cap."""
        self.model = model
        self.max_tokens = max_tokens
        self.base_url = base_url
        self._hints = hints
        self._timeout = timeout
        self._retry = retry or RetrySettings()
        self._pinned = context_window
        self._requested = requested_context
        self._window: ContextWindow | None = None
        self._window_lock = asyncio.Lock()
        self._http = httpx.AsyncClient(
            base_url=base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
            verify=tls_context(base_url),
        )

    # --- what a server protocol supplies --------------------------------------------------

    @abstractmethod
    async def _chat_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body for ``chat_path``, using only the features still switched on."""

    @abstractmethod
    async def _read_chat(self, lines: AsyncIterator[str], builder: ReplyBuilder) -> None:
        """Feed the streamed answer into ``builder``; raise ``ModelError`` if it breaks off."""

    @abstractmethod
    def _fallback(self, answer: ErrorAnswer, sent: dict[str, Any]) -> CapabilityFallback | None:
        """The feature ``answer`` refuses in ``sent``, switched off for the session; None if
        the answer refuses no feature this client can do without."""

    @abstractmethod
    async def _model_max(self) -> int | None:
        """The model's context size as the server reports it; None if it reports none."""

    async def _served_window(self) -> int | None:
        """The window the server already runs with and cannot exceed (llama.cpp ``n_ctx``); None
        where the server sizes it per request, as Ollama does with ``num_ctx``."""
        return None

    #: The window chosen here is allocated by the server per request (Ollama's ``num_ctx``), so
    #: memory caps it; False for servers started with a fixed window.
    allocates_window: ClassVar[bool] = True

    # --- chat -----------------------------------------------------------------------------

    def stream_chat(
        self,
        messages: list[ChatMessage],
        *,
        system: str | None,
        tools: list[ToolSpec] | None,
        response_format: dict[str, Any] | None = None,
        cancel: asyncio.Event | None = None,
        max_tokens: int | None = None,
    ) -> AsyncIterator[ModelEvent]:
        tools_text = json.dumps(wire_tools(tools)) if tools else ""
        estimate = estimate_chat_tokens(messages, system=system, extra=tools_text)
        wanted = self.max_tokens if max_tokens is None else (max_tokens or None)
        request = ChatRequest(messages, system, tools, response_format)

        async def attempt(builder: ReplyBuilder) -> None:
            cap, reason = self._reply_cap(wanted, estimate)
            builder.reply_cap, builder.cap_reason = cap, reason
            await self._chat_once(replace(request, reply_cap=cap), builder)

        return drive(attempt, cancel=cancel, retry=self._retry, prompt_estimate=estimate)

    def _reply_cap(self, wanted: int | None, prompt_estimate: int) -> tuple[int | None, str]:
        """The cap to send: ``wanted``, but never more than the window has left once the
        prompt is in (a server such as vLLM refuses a prompt plus cap above its window). The
        estimate is padded by a tenth: it can be that much short of the server's count."""
        window = self._window
        if wanted is None or window is None:
            return wanted, ""
        room = window.tokens - (prompt_estimate * 11 + 9) // 10
        if room >= wanted:
            return wanted, ""
        return max(room, MIN_REPLY_CAP), "what the context window had left"

    def _notices(self, request: ChatRequest) -> list[CapabilityFallback]:
        """Switches made before this request (a check at session start) that its stream must
        report, once."""
        return []

    async def _chat_once(self, request: ChatRequest, builder: ReplyBuilder) -> None:
        body = await self._chat_body(request)
        for notice in self._notices(request):
            builder.notice(notice)
        builder.restart_clock()  # building the first body may have asked the model's size
        while True:
            try:
                if body.get("stream") is False:
                    answer = await self._request_json("POST", self.chat_path, body)
                    self._read_whole(answer, builder)
                else:
                    async with self._stream(self.chat_path, body) as lines:
                        await self._read_chat(lines, builder)
                return
            except ErrorAnswer as answer:
                fallback = self._fallback(answer, body)
                if fallback is None:
                    raise
                builder.notice(fallback)
            except RunawayCut as runaway:
                builder.cut_runaway(runaway.found)  # leaving the block hung up on the server
                return
            except ModelError as error:
                if error.kind != "disconnected" or builder.streamed or body.get("stream") is False:
                    raise
                # A stream that ends before its first word is how some servers refuse or fail
                # (llama-cpp-python raises inside the stream on a prompt above its window, and
                # on a streamed tool call): "the server closed the stream early. Retry." would
                # send the user in circles.
                try:
                    replayed = await self._replay_unstreamed(body, builder)
                except RunawayCut as runaway:
                    builder.cut_runaway(runaway.found)
                    return
                if not replayed:
                    raise
                return
            body = await self._chat_body(request)

    async def _replay_unstreamed(self, body: dict[str, Any], builder: ReplyBuilder) -> bool:
        """``body``'s stream ended before a word: send it again without streaming. Raises the
        server's refusal when that explains the break (a context-length refusal); True when
        the answer came this way (fed into ``builder``); False to report the break."""
        return False

    def _read_whole(self, answer: Any, builder: ReplyBuilder) -> None:
        """Feed a non-streamed answer into ``builder`` (servers that cannot stream some
        replies); only clients that send ``"stream": false`` implement it."""
        raise ModelError("bad_response", f"{self.chat_path} cannot be read without streaming")

    # --- shared queries -------------------------------------------------------------------

    async def context_window(self) -> ContextWindow:
        """Chosen on first use and kept: Ollama reloads the model whenever ``num_ctx`` changes."""
        async with self._window_lock:
            if self._window is None:
                model_max: int | None = None
                # Asked for a pinned (resumed) session too: the server's window wins over it.
                served = await self._served_window()
                if self._pinned is None:
                    model_max = await self._model_max()
                self._window = choose_context_window(
                    pinned=self._pinned,
                    requested=self._requested,
                    model_max=model_max,
                    served=served,
                    allocates=self.allocates_window,
                )
            return self._window

    async def is_available(self) -> bool:
        try:
            await self._request_json("GET", self.probe_path)
        except ModelError:
            return False
        return True

    async def aclose(self) -> None:
        await self._http.aclose()

    # --- HTTP -----------------------------------------------------------------------------

    async def _request_json(self, method: str, path: str, body: Any = None) -> Any:
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.HTTPError as exc:
            raise error_from_exception(exc, self._hints, self._timeout) from None
        if response.status_code >= 400:
            raise error_from_status(response.status_code, response.content, self._hints, path)
        try:
            return response.json()
        except json.JSONDecodeError:
            raise ModelError("bad_response", f"{path} did not answer JSON") from None

    @asynccontextmanager
    async def _stream(self, path: str, body: dict[str, Any]) -> AsyncIterator[AsyncIterator[str]]:
        """POST ``body`` and hand over the answer line by line. An error answer raises
        ``ErrorAnswer``; a transport failure, also one while the lines are read, a
        ``ModelError``. Leaving the block (or cancelling) closes the response."""
        try:
            async with self._http.stream("POST", path, json=body) as response:
                if response.status_code >= 400:
                    error_body = await response.aread()
                    raise error_from_status(response.status_code, error_body, self._hints, path)
                yield response.aiter_lines()
        except httpx.HTTPError as exc:
            raise error_from_exception(exc, self._hints, self._timeout) from None
