"""Opening a project for one ACP session: the only place the ACP server meets the wiring.

Everything the protocol side needs from ipuaro — open a folder as a project (new or stored
session), index it with progress, send / abort, the events, the questions — goes through here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ipuaro.agent.events import AgentHandlers
from ipuaro.app import AppContext
from ipuaro.tools.base import ConfirmCallback


class ProjectError(Exception):
    """The project cannot be opened; the message says what is wrong and what to do."""


async def open_project(
    root: Path,
    *,
    handlers: AgentHandlers,
    confirm: ConfirmCallback,
    session_id: str | None,
    overrides: Mapping[str, Any],
    config_file: Path | None,
) -> AppContext:
    from ipuaro.agent.sessions import SessionNotFound
    from ipuaro.app import build_app
    from ipuaro.config.loader import ConfigError, load_config
    from ipuaro.llm.errors import ModelError
    from ipuaro.store.protocol import StoreError

    try:
        config = load_config(root, overrides, config_file=config_file)
        return await build_app(
            root,
            config,
            handlers=handlers,
            confirm=confirm,
            session_id=session_id,
            new_session=session_id is None,
        )
    except (ConfigError, StoreError, SessionNotFound) as error:
        raise ProjectError(str(error)) from error
    except ModelError as error:
        raise ProjectError(f"{error.message} — {error.suggestion}") from error


async def index_project(app: AppContext, progress: Callable[[int, int], None]) -> str:
    """Bring the index up to date (only changed files are parsed); one line saying what was
    done. ``progress(done, total)`` is called from the indexing thread."""
    from ipuaro.store.protocol import StoreError

    try:
        summary = await asyncio.to_thread(lambda: app.indexer.index(progress=progress))
    except StoreError as error:
        raise ProjectError(f"indexing failed: {error}") from error
    return (
        f"Indexed {summary.files:,} files ({summary.parsed:,} parsed, "
        f"{summary.unchanged:,} unchanged) in {summary.seconds:.1f} s."
    )
