"""Suite-wide: results must not depend on the machine running the tests."""

from __future__ import annotations

import pytest

from ipuaro.llm import toolprobe, window

pytest_plugins = ["tests.support.processes"]  # start_stub: the stub model server as a process


@pytest.fixture(autouse=True)
def machine_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """The RAM that caps an Ollama window chosen without a setting: 32 GiB everywhere (a test
    of the cap passes ``total_memory`` itself)."""
    monkeypatch.setattr(window, "_total_memory", lambda: 32 * window.GIB)


@pytest.fixture(autouse=True)
def user_config_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user's own config folder (config.json, the memory's preferences.json) is an empty one
    of the test's, never the machine's: a developer's remembered preferences must not reach a
    prompt under test. A test that needs its own sets IPUARO_CONFIG_DIR again."""
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path_factory.mktemp("user-config")))


@pytest.fixture(autouse=True)
def fresh_tool_checks() -> None:
    """Each test's stub server is asked anew whether it shows the model the tools: a port the
    system hands out again must not inherit the answer of an earlier test's server."""
    toolprobe.forget()
