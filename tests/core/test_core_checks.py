"""The checks a front end runs before it opens a workspace, and the model pull it may offer,
against the real stub model server (no Textual)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ipuaro.core.checks import model_server_reachable, onboarding_checks, pull_model
from ipuaro.core.errors import WorkspaceError
from tests.core.conftest import config_for
from tests.stubs.model_server import ModelStubServer, StubModel

MISSING = "llama3.2:1b"


async def test_onboarding_names_a_missing_model_and_pull_fetches_it(
    project: Path, server: ModelStubServer
) -> None:
    config = config_for(project, server, **{"llm.model": MISSING})
    assert await model_server_reachable(config)
    before = onboarding_checks(project, config)
    assert not before.ok and before.can_pull and not before.server_down
    server.pullable[MISSING] = StubModel(MISSING)
    seen: list[tuple[str, float | None]] = []
    await pull_model(config, lambda status, fraction: seen.append((status, fraction)))
    assert seen and any(fraction is not None for _, fraction in seen)
    assert onboarding_checks(project, config).ok


async def test_a_failed_pull_says_why(project: Path, server: ModelStubServer) -> None:
    config = config_for(project, server, **{"llm.model": "nobody-has-this:1b"})
    with pytest.raises(WorkspaceError, match="file does not exist"):
        await pull_model(config, lambda status, fraction: None)


async def test_a_server_that_is_down_is_named(project: Path, server: ModelStubServer) -> None:
    config = config_for(project, server, **{"llm.baseUrl": "http://127.0.0.1:9"})
    assert not await model_server_reachable(config)
    checks = onboarding_checks(project, config)
    assert checks.server_down and not checks.can_pull and not checks.ok


def test_the_model_server_check_loads_neither_httpx_cli_nor_a_ca_bundle(
    project: Path, server: ModelStubServer
) -> None:
    """It runs at every TUI start (issue 27): httpx comes without its command line, and a
    plain-http server gets no CA bundle. A fresh process, so nothing was imported before."""
    import json
    import subprocess
    import sys

    child = (
        "import json, ssl, sys\n"
        "loaded = []\n"
        "real = ssl.SSLContext.load_verify_locations\n"
        "class Counting(ssl.SSLContext):\n"
        "    def load_verify_locations(self, *a, **k):\n"
        "        loaded.append(1)\n"
        "        return real(self, *a, **k)\n"
        "ssl.SSLContext = Counting\n"
        "from pathlib import Path\n"
        "from ipuaro.config.loader import load_config\n"
        "from ipuaro.core.checks import check_model_server\n"
        "config = load_config(Path(sys.argv[1]), {'llm.baseUrl': sys.argv[2]})\n"
        "server, _ = check_model_server(config)\n"
        "print(json.dumps({'ok': server.ok, 'cli': 'httpx._main' in sys.modules,\n"
        "                  'bundles': len(loaded)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(project), server.url],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout) == {"ok": True, "cli": False, "bundles": 0}
