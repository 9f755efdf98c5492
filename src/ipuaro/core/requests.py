"""The model-calling part of a workspace: a request as a task, a plan request or an agent
request, and steering or interrupting the one that runs (``Workspace`` delegates here).

It receives what it uses — the services (``services()``), the task runner, the plan flow,
the extensions and whether plan mode is on — never the workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ipuaro.core.errors import WorkspaceBusy
from ipuaro.core.mentions import attach_mentions
from ipuaro.core.plan_flow import PlanFlow, plan_request

if TYPE_CHECKING:
    from ipuaro.core.events import AgentEnd
    from ipuaro.core.extending import ExtensionHost
    from ipuaro.core.tasks import TaskKind, TaskRunner
    from ipuaro.core.wiring import AppContext


class Requests:
    """Requests to the model, one at a time on the task runner."""

    def __init__(
        self,
        services: Callable[[], AppContext],
        tasks: TaskRunner,
        plans: PlanFlow,
        extensions: Callable[[], ExtensionHost | None],
        plan_mode: Callable[[], bool],
    ) -> None:
        self._services = services
        self._tasks = tasks
        self._plans = plans
        self._extensions = extensions
        self._plan_mode = plan_mode

    async def send(self, text: str) -> AgentEnd:
        """Run one request (then any queued follow-ups) as the one task."""
        from ipuaro.agent.run.loop import AgentBusy

        agent = self._services().agent

        async def request() -> AgentEnd:
            extensions = self._extensions()
            if extensions is None:
                return await self._plan_or_send(text)
            return await extensions.send(agent, text, self._plan_or_send)

        try:
            planning = plan_request(text, self._plan_mode() or agent.plan_mode) is not None
            kind: TaskKind = "plan" if planning else "request"
            return await self._tasks.run(kind, "a new request", request)
        except AgentBusy as error:
            raise WorkspaceBusy(str(error)) from None

    async def _plan_or_send(self, text: str) -> AgentEnd:
        """A plan request (plan mode — the workspace's, or a ``mode: plan`` custom command's
        — or a ``plan:`` prefix) goes to the plan flow; anything else to the agent."""
        ctx = self._services()
        agent = ctx.agent
        request = plan_request(text, self._plan_mode() or agent.plan_mode)
        if request is not None:
            return (await self._plans.run(request, text.strip())).end
        if self._plans.busy:
            raise WorkspaceBusy("a plan is being made; wait for it or interrupt it")
        # Another request: the stored plan expires. A later bare "ok" answers this exchange
        # (it goes to the model) instead of applying a plan shown turns ago.
        ctx.session.plan = None
        attach_mentions(ctx, text, ctx.window.tokens)  # @path: the file goes with it
        return await agent.send(text)

    def abort(self) -> None:
        """Interrupt the running request, plan or ``!command``."""
        ctx = self._services()
        self._plans.abort()
        ctx.agent.abort()
        if self._tasks.running is not None:
            ctx.cancel_user_call()  # a ``!command`` runs on a cancel event of its own
