"""The workspace wires ``index.languageServers``: ``/status`` says whether each server is
used, and the file watcher drops the cached answers about a file that changed on disk."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.core.conftest import open_workspace, wait_for
from tests.stubs.model_server import ModelStubServer

MISSING = {"python": "no-such-language-server --stdio"}


async def test_status_names_the_language_servers_and_why_one_is_not_used(
    project: Path, server: ModelStubServer
) -> None:
    async with open_workspace(project, server, **{"index.languageServers": MISSING}) as opened:
        servers = opened.workspace.ctx.tool_ctx.language_servers
        assert servers is not None
        # Started when the index was in (the project has Python files), no question asked.
        assert not await asyncio.to_thread(servers.until_ready, 10)
        assert servers.servers["python"].starts == 1
        after = dict((await opened.workspace.status()).rows)

    assert "not used: cannot start 'no-such-language-server'" in after["language servers"]


async def test_none_configured_no_row(project: Path, server: ModelStubServer) -> None:
    async with open_workspace(project, server) as opened:
        assert opened.workspace.ctx.tool_ctx.language_servers is None
        assert "language servers" not in dict((await opened.workspace.status()).rows)


async def test_the_watcher_drops_cached_answers_about_a_changed_file(
    project: Path, server: ModelStubServer
) -> None:
    overrides = {"index.languageServers": MISSING, "watchdog.enabled": True}
    async with open_workspace(project, server, **overrides) as opened:
        workspace = opened.workspace
        store = workspace.ctx.store
        answer = json.dumps({"locations": [], "hashes": {}})
        store.put_server_answer("k-cart", "nothing_here", ["shop/cart.py"], answer)
        store.put_server_answer("k-name", "apply_discount", ["shop/pricing.py"], answer)
        store.put_server_answer("k-other", "nothing_here", ["shop/main.py"], answer)
        workspace.start_watching()
        assert await asyncio.to_thread(workspace.watch_ready.wait, 15)

        cart = project / "shop" / "cart.py"
        cart.write_text(cart.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")

        # cart.py is involved in k-cart and holds the name k-name asked about.
        await wait_for(lambda: store.get_server_answer("k-cart") is None, timeout=15)
        await wait_for(lambda: store.get_server_answer("k-name") is None, timeout=15)
        assert store.get_server_answer("k-other") == answer
        await workspace.stop_watching()
