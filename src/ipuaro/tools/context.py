"""Building a :class:`ToolContext` from the parts the app already has."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.tools.base import (
    ConfirmCallback,
    EditPlanner,
    Reindex,
    SessionScope,
    ToolContext,
    ToolServices,
)

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.store.protocol import Store


def build_context(
    root: Path,
    config: Config,
    store: Store,
    reindex: Reindex,
    *,
    session_id: str | None = None,
    confirm: ConfirmCallback | None = None,
    auto_apply: bool | None = None,
    planner: EditPlanner | None = None,
    cancel: asyncio.Event | None = None,
) -> ToolContext:
    """Path and command policies come from ``config`` (never from repository content);
    ``auto_apply`` defaults to ``edit.autoApply``."""
    from ipuaro.security.policy.commands import CommandPolicy
    from ipuaro.security.policy.grants import Grants
    from ipuaro.security.policy.paths import PathPolicy

    services = ToolServices(
        root=root,
        config=config,
        store=store,
        paths=PathPolicy.from_config(root, config),
        commands=CommandPolicy.from_config(root, config),
        reindex=reindex,
        planner=planner,
    )
    grants = Grants(auto_apply=config.edit.auto_apply if auto_apply is None else auto_apply)
    return ToolContext(
        services,
        SessionScope(session_id or uuid.uuid4().hex[:12], grants),
        confirm=confirm,
        cancel=cancel,
    )
