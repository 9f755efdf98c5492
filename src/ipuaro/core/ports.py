"""What a core helper may ask of the workspace: small Protocols, so no helper names it.

A helper receives what it uses — an :data:`Emit` for events, an :data:`Ask` for questions,
the services (``AppContext``), the task runner — as arguments. A slash command's operation
runs over a :class:`CommandHost`: the few workspace facts and operations the command rows
use; :class:`~ipuaro.core.workspace.Workspace` is one (structurally: it imports nothing from
here at run time). A leaf: its imports are for type hints only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.decisions import Answer, Question
    from ipuaro.core.events import Event
    from ipuaro.core.replies import Reply
    from ipuaro.core.reports import McpServerInfo
    from ipuaro.core.tasks import TaskRunner
    from ipuaro.core.wiring import AppContext
    from ipuaro.domain import ChatMessage
    from ipuaro.memory import EngineeringMemory, PatchReport

Emit = Callable[["Event"], None]
"""Send one event to the workspace's listeners (the event bus)."""
Ask = Callable[["Question"], Awaitable["Answer"]]
"""Ask the user through the front end's decider."""


class CommandHost(Protocol):
    """The workspace as a slash command's operation sees it."""

    @property
    def root(self) -> Path: ...
    @property
    def config(self) -> Config: ...
    @property
    def ctx(self) -> AppContext: ...
    @property
    def tasks(self) -> TaskRunner: ...
    @property
    def session_id(self) -> str: ...
    @property
    def plan_mode(self) -> bool: ...

    def save(self) -> None: ...
    def history(self) -> list[ChatMessage]: ...
    def tool_names(self) -> set[str]: ...
    async def ask(self, question: Question) -> Answer: ...
    async def mcp_servers(self) -> list[McpServerInfo]: ...
    def engineering_memory(self) -> EngineeringMemory: ...
    async def set_memory(self, key: str, value: str) -> PatchReport: ...
    async def unset_memory(self, key: str) -> PatchReport: ...
    def custom_command(self, name: str, args: tuple[str, ...]) -> Reply: ...
    async def apply_command(self, args: tuple[str, ...]) -> Reply: ...
