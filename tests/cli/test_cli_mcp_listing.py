"""``ipuaro doctor`` and ``ipuaro tools`` include the MCP servers of the configuration (a real
MCP server over stdio, the SDK's own server side), and doctor takes the model server flags."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ipuaro.cli.main import cli
from tests.cli.conftest import StartServer
from tests.extensions.mcp.conftest import demo_stdio


@pytest.fixture
def with_mcp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project and a user config declaring the demo server and one that cannot start."""
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    config_dir = tmp_path / "user-config"
    config_dir.mkdir()
    servers = {"demo": demo_stdio(), "ghost": {"command": "no-such-mcp-server-xyz"}}
    (config_dir / "config.json").write_text(json.dumps({"mcp": {"servers": servers}}))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(config_dir))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    project = tmp_path / "app"
    project.mkdir()
    return project


def test_doctor_checks_the_configured_mcp_servers(with_mcp: Path) -> None:
    result = CliRunner().invoke(cli, ["doctor", str(with_mcp)])
    lines = result.stdout.splitlines()
    demo = next(line for line in lines if line.startswith("✓ mcp demo: running (stdio "))
    assert demo.endswith(" tools")
    ghost = next(line for line in lines if line.startswith("✗ mcp ghost: failed: "))
    assert "— fix: check the server's command" in ghost
    assert result.exit_code == 1  # the ghost server (and the absent model server) fail


def test_tools_lists_the_mcp_servers_tools(with_mcp: Path) -> None:
    result = CliRunner().invoke(cli, ["tools", "--json", "--project", str(with_mcp)])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert "get_lines" in rows  # the built-in ones still
    add = rows["mcp__demo__add"]
    assert add["effect"] == "asks before acting"
    assert set(add["parameters"]["properties"]) == {"a", "b"}
    assert "MCP server 'ghost' failed" in result.stderr
    one = CliRunner().invoke(cli, ["tools", "mcp__demo__add", "--project", str(with_mcp)])
    assert one.exit_code == 0 and one.stdout.startswith("mcp__demo__add  [asks before acting]")


def test_doctor_takes_provider_base_url_and_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "user-config"))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))
    base = model_server({"/v1/models": (200, {"data": [{"id": "tiny-coder"}]})})
    argv = ["doctor", str(tmp_path), "--provider", "openai", "--base-url", f"{base}/v1"]
    result = CliRunner().invoke(cli, [*argv, "--model", "tiny-coder"])
    lines = result.stdout.splitlines()
    server = next(line for line in lines if line.startswith("✓ model server: "))
    assert f"{base}/v1" in server
    assert any(line.startswith("✓ model: tiny-coder") for line in lines), result.stdout
