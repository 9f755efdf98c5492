"""``/status``: the store, the model, the context, the index, the session and what the user
granted for it ("always" answers, :mod:`ipuaro.security.policy.grants`) in rows."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ipuaro.core.reports import plural

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.core.tasks import TaskRunner
    from ipuaro.core.wiring import AppContext
    from ipuaro.security.policy.grants import GrantsView


def percent(used: int, limit: int) -> int:
    return 0 if limit <= 0 else min(999, round(100 * used / limit))


def status_rows(
    ctx: AppContext, config: Config, tasks: TaskRunner, plan_mode: bool
) -> list[tuple[str, str]]:
    """Blocking (reads the store): run it in a thread."""
    from ipuaro.core.checks import base_url
    from ipuaro.store.factory import describe_store

    window = ctx.window
    used, limit = ctx.agent.context_usage
    session = ctx.session
    stats = session.stats
    grants = ctx.grants.view()
    last = ctx.store.get_config("last_indexed")
    indexed = (
        time.strftime("%Y-%m-%d %H:%M", time.localtime(float(last)))
        if isinstance(last, int | float)
        else "never"
    )
    servers = ctx.tool_ctx.language_servers
    language_servers = [("language servers", "; ".join(servers.describe()))] if servers else []
    return [
        ("store", describe_store(config, ctx.root)),
        ("model", f"{ctx.client.model} ({config.llm.provider} at {base_url(config)})"),
        ("tool format", ctx.agent.tool_format),
        ("context window", f"{window.tokens:,} tokens ({window.source})"),
        ("context in use", f"{used:,} tokens ({percent(used, limit)}%)"),
        (
            "index",
            f"{plural(len(ctx.store.file_hashes()), 'file')} · "
            f"{plural(len(ctx.store.symbol_names()), 'symbol')} · last indexed {indexed}",
        ),
        *language_servers,
        (
            "session",
            f"{session.id} · {plural(len(session.history), 'message')} · "
            f"{plural(stats.total_tokens, 'token')} · {plural(stats.tool_calls, 'tool call')}"
            f" · {stats.edits_applied} edits applied, {stats.edits_rejected} rejected",
        ),
        ("auto-apply", _auto_apply(grants)),
        ("plan mode", "on" if plan_mode else "off"),
        ("task", tasks.describe()),
        ("granted", "; ".join(grants.lines()) or 'nothing yet (answers of "always" show here)'),
    ]


def _auto_apply(grants: GrantsView) -> str:
    if grants.auto_apply_always:
        return "on (an edit answered always, this session)"
    return "on" if grants.auto_apply else "off"
