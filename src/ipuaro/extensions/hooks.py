"""Hooks: programs run on the agent's events, the event as one JSON object on stdin.

Events: ``session_start``, ``user_prompt``, ``pre_tool``, ``post_tool``, ``agent_end``. A
``pre_tool`` hook that exits with code 2 blocks the call: its stderr is the reason the model
reads. Any other failure — another exit code, a program that cannot start, a hook that outlives
its timeout (its process group is killed) — is reported through ``report`` (the front ends show
it) and the agent goes on. Hooks of one event run one after the other, in declared order.
"""

from __future__ import annotations

import fnmatch
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ipuaro.config.schema import Config, HookConfig, HooksConfig
from ipuaro.domain import ToolCall, ToolResult

if TYPE_CHECKING:
    # the process runner and the sandbox load with the first hook, not with every start
    from ipuaro.extensions.process import ProgramResult

__all__ = ["BLOCK_EXIT_CODE", "EVENTS", "Hook", "HookEvent", "HookRunner"]

HookEvent = Literal["session_start", "user_prompt", "pre_tool", "post_tool", "agent_end"]
EVENTS: tuple[HookEvent, ...] = (
    "session_start",
    "user_prompt",
    "pre_tool",
    "post_tool",
    "agent_end",
)
BLOCK_EXIT_CODE = 2
_OUTPUT_LIMIT = 8192
_RESULT_CHARS = 4000
"""How much of a tool's result a post_tool hook gets."""


@dataclass(frozen=True)
class Hook:
    event: HookEvent
    config: HookConfig
    source: Literal["user", "project"]

    @property
    def command(self) -> str:
        return shlex.join(self.config.argv)

    def wants(self, tool: str) -> bool:
        patterns = self.config.tools
        return not patterns or any(fnmatch.fnmatchcase(tool, p) for p in patterns)


def hooks_of(config: HooksConfig, source: Literal["user", "project"]) -> list[Hook]:
    return [Hook(event, hook, source) for event in EVENTS for hook in getattr(config, event)]


class HookRunner:
    """Runs the hooks of each event; the agent's dispatch calls :meth:`before_tool` and
    :meth:`after_tool` (the ``ToolHooks`` seam), the workspace the others."""

    def __init__(
        self,
        root: Path,
        config: Config,
        hooks: list[Hook],
        session_id: Callable[[], str] = lambda: "",
    ) -> None:
        self.root = root
        self.hooks = hooks
        self.session_id = session_id
        self.report: Callable[[str], None] = lambda message: None
        """Where failures go (the workspace turns them into ``ExtensionWarning`` events)."""
        self._hidden = [config.llm.api_key_env]
        from ipuaro.security.sandboxing.sandbox import SandboxProfile

        self._sandbox = SandboxProfile.for_project(root, config.sandbox)

    def of(self, event: HookEvent) -> list[Hook]:
        return [hook for hook in self.hooks if hook.event == event]

    async def fire(self, event: HookEvent, payload: dict[str, Any]) -> None:
        """Run every hook of ``event`` (failures reported, never raised)."""
        for hook in self.of(event):
            await self._run(hook, payload)

    async def before_tool(self, call: ToolCall) -> str | None:
        """The reason a ``pre_tool`` hook blocks ``call`` (exit code 2), or None to run it."""
        payload = {"tool": call.name, "arguments": call.parameters}
        for hook in self.of("pre_tool"):
            if not hook.wants(call.name):
                continue
            result = await self._run(hook, payload, blocking=True)
            if result is not None and result.exit_code == BLOCK_EXIT_CODE:
                reason = result.stderr.strip() or result.stdout.strip()
                return reason or f"a pre_tool hook ({hook.command}) refused the call"
        return None

    async def after_tool(self, call: ToolCall, result: ToolResult) -> None:
        text = (result.data if result.success else result.error) or ""
        payload = {
            "tool": call.name,
            "arguments": call.parameters,
            "result": {
                "success": result.success,
                "refused": result.refused,
                "content": str(text)[:_RESULT_CHARS],
                "changedPaths": list(result.changed_paths),
            },
        }
        for hook in self.of("post_tool"):
            if hook.wants(call.name):
                await self._run(hook, payload)

    async def _run(
        self, hook: Hook, payload: dict[str, Any], *, blocking: bool = False
    ) -> ProgramResult | None:
        event = {
            "event": hook.event,
            "project": str(self.root),
            "sessionId": self.session_id(),
            **payload,
        }
        from ipuaro.extensions.process import run_program

        result = await run_program(
            hook.config.argv,
            cwd=self.root,
            stdin=json.dumps(event, ensure_ascii=False, default=str).encode("utf-8"),
            timeout=hook.config.timeout,
            output_limit=_OUTPUT_LIMIT,
            extra_env={"IPUARO_EVENT": hook.event, "IPUARO_PROJECT": str(self.root)},
            hidden_env=self._hidden,
            sandbox=self._sandbox,
        )
        problem = _problem(hook, result, blocking)
        if problem is not None:
            self.report(f"hook {hook.event} `{hook.command}` {problem}; the agent goes on")
        return result


def _problem(hook: Hook, result: ProgramResult, blocking: bool) -> str | None:
    if result.start_error is not None:
        return f"could not start ({result.start_error})"
    if result.timed_out:
        return f"ran past its {hook.config.timeout:g}s timeout and was stopped"
    if result.ok or (blocking and result.exit_code == BLOCK_EXIT_CODE):
        return None
    said = (result.stderr.strip() or result.stdout.strip()).splitlines()
    detail = f": {said[0][:200]}" if said else ""
    return f"failed with exit code {result.exit_code}{detail}"
