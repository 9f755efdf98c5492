"""``ipuaro doctor`` against real things: a stub model server, SQLite files, redis-server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ipuaro.cli.main import cli
from ipuaro.store.naming import project_id

StartServer = Callable[[dict[str, tuple[int, object]]], str]  # the model_server fixture
MODEL = "qwen2.5-coder:7b-instruct"
GRAMMARS = (
    *("typescript", "tsx", "javascript", "python", "json", "yaml"),
    *("go", "rust", "java", "c", "cpp", "c_sharp", "ruby", "php", "kotlin", "swift", "scala"),
    *("lua", "bash", "elixir", "haskell", "julia", "ocaml", "ocaml_interface", "zig", "hcl"),
    *("solidity", "commonlisp", "fortran", "arduino", "matlab"),
    *("dart", "r", "clojure", "elm", "d", "racket", "elisp", "gleam", "pony"),
    *("properties", "udev", "chatito"),
)


def how_to_start(url: str) -> str:
    listen = url.removeprefix("http://")
    return (
        f"— fix: start Ollama at {url}: `OLLAMA_HOST={listen} ollama serve`, then "
        f"`ollama pull {MODEL}` (or set llm.baseUrl to where it runs)"
    )


def doctor(project: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> Result:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return CliRunner().invoke(cli, ["doctor", str(project)])


def lines_by_check(result: Result) -> dict[str, str]:
    """``{"model server": "✓ model server: ...", ...}`` from the report lines."""
    checks = {}
    for line in result.stdout.splitlines():
        if line[:2] in ("✓ ", "✗ "):
            checks[line[2:].split(":", 1)[0]] = line
    return checks


def ollama_tags(*names: str) -> dict[str, tuple[int, object]]:
    return {"/api/tags": (200, {"models": [{"name": n, "model": n} for n in names]})}


def test_everything_passes_with_a_model_server_that_has_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server(ollama_tags("llama3:latest", MODEL))
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__BASE_URL=base)
    checks = lines_by_check(result)
    assert result.exit_code == 0, result.output
    assert set(checks) == {
        "python",
        "config",
        "store",
        "sandbox",
        "model server",
        "model",
        *(f"grammar {g}" for g in GRAMMARS),
        "language servers",  # not configured: one line
    }
    assert all(line.startswith("✓ ") for line in checks.values())
    assert checks["model server"] == f"✓ model server: ollama at {base} (2 models)"
    assert checks["model"] == f"✓ model: {MODEL} is available (context window from the server)"
    database = tmp_path / "data" / f"{project_id(tmp_path)}.db"
    assert checks["store"] == f"✓ store: SQLite {database} (will be created on first index)"
    assert result.stdout.endswith(f"all {len(checks)} checks passed\n")


def test_unreachable_server_prints_how_to_start_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port_url: str
) -> None:
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__BASE_URL=closed_port_url)
    checks = lines_by_check(result)
    assert result.exit_code == 1
    server = checks["model server"]
    assert server.startswith(f"✗ model server: cannot reach ollama at {closed_port_url} (")
    assert server.endswith(how_to_start(closed_port_url))
    assert checks["model"] == f"✗ model: {MODEL}: not checked (no model server)"
    assert checks["python"].startswith("✓ ")
    assert result.stdout.endswith(f"2 of {len(checks)} checks failed\n")


def test_model_missing_on_the_server_says_how_to_pull_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server(ollama_tags("llama3:latest"))
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__BASE_URL=base)
    assert result.exit_code == 1
    assert lines_by_check(result)["model"] == (
        f"✗ model: {MODEL} is not on the server — fix: run `ollama pull {MODEL}`, "
        "or pick one of the server's models with --model NAME (llm.model)"
    )


def test_untagged_model_name_matches_latest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server(ollama_tags("llama3:latest"))
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__BASE_URL=base, IPUARO_LLM__MODEL="llama3")
    assert result.exit_code == 0, result.output


def test_openai_compatible_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server({"/v1/models": (200, {"object": "list", "data": [{"id": "local-7b"}]})})
    # The server is the user's to choose (a project file may only name the model).
    (tmp_path / ".ipuaro.json").write_text(json.dumps({"llm": {"model": "other"}}))
    server = {"IPUARO_LLM__PROVIDER": "openai", "IPUARO_LLM__BASE_URL": f"{base}/v1"}
    result = doctor(tmp_path, monkeypatch, **server)
    checks = lines_by_check(result)
    assert checks["model server"] == f"✓ model server: openai at {base}/v1 (1 models)"
    assert checks["model"] == (
        "✗ model: other is not on the server — fix: load other in the server, "
        "or pick one with --model NAME (llm.model): local-7b"
    )
    assert checks["config"].startswith(f"✓ config: {tmp_path / '.ipuaro.json'};")
    assert result.exit_code == 1


def test_keys_a_project_may_not_set_are_named_not_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server({"/api/tags": (200, {"models": []})})
    hostile = {"sandbox": {"profile": "off"}, "llm": {"baseUrl": "http://evil.example"}}
    (tmp_path / ".ipuaro.json").write_text(json.dumps(hostile))
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__BASE_URL=base)
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("! config: ")]
    assert "ignored sandbox.profile, llm.baseUrl" in line
    assert lines_by_check(result)["model server"].startswith(f"✓ model server: ollama at {base}")


def test_server_refusing_the_key_points_at_the_api_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server({"/models": (401, {"error": "bad key"})})
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__PROVIDER="openai", IPUARO_LLM__BASE_URL=base)
    assert lines_by_check(result)["model server"] == (
        f"✗ model server: GET {base}/models answered HTTP 401 "
        "— fix: set OPENAI_API_KEY to a valid API key"
    )


def test_server_answering_something_else_is_not_a_model_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_server: StartServer
) -> None:
    base = model_server({"/api/tags": (200, ["not", "tags"])})
    result = doctor(tmp_path, monkeypatch, IPUARO_LLM__BASE_URL=base)
    assert lines_by_check(result)["model server"].startswith(
        f"✗ model server: GET {base}/api/tags did not return the ollama model list"
    )


def test_sqlite_file_that_is_not_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port_url: str
) -> None:
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(b"this is not sqlite" * 100)
    result = doctor(
        tmp_path,
        monkeypatch,
        IPUARO_LLM__BASE_URL=closed_port_url,
        IPUARO_STORE__PATH=str(bogus),
    )
    store = lines_by_check(result)["store"]
    assert store.startswith(f"✗ store: SQLite file {bogus} cannot be opened (")
    # A damaged file is fixed by rebuilding the index, not by moving the data dir.
    assert "run `ipuaro index --rebuild`" in store
    assert ".corrupt-" in store  # the name rebuild gives the kept file


def test_existing_sqlite_database_is_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port_url: str
) -> None:
    import sqlite3

    database = tmp_path / "real.db"
    sqlite3.connect(database).close()
    result = doctor(
        tmp_path,
        monkeypatch,
        IPUARO_LLM__BASE_URL=closed_port_url,
        IPUARO_STORE__PATH=str(database),
    )
    assert (
        lines_by_check(result)["store"]
        == f"✓ store: SQLite {database} (writable, integrity checked)"
    )


def test_sqlite_parent_that_is_a_file_cannot_be_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port_url: str
) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("", encoding="utf-8")
    result = doctor(
        tmp_path,
        monkeypatch,
        IPUARO_LLM__BASE_URL=closed_port_url,
        IPUARO_STORE__PATH=str(blocker / "x.db"),
    )
    store = lines_by_check(result)["store"]
    assert store.startswith(f"✗ store: cannot create {blocker / 'x.db'}: {blocker} is not")


@pytest.mark.redis
@pytest.mark.parametrize("appendonly", [True, False])
def test_redis_backend_checks_reachability_and_aof(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    closed_port_url: str,
    redis_server: Callable[[bool], int],
    appendonly: bool,
) -> None:
    port = redis_server(appendonly)
    result = doctor(
        tmp_path,
        monkeypatch,
        IPUARO_LLM__BASE_URL=closed_port_url,
        IPUARO_STORE__BACKEND="redis",
        IPUARO_REDIS__HOST="127.0.0.1",
        IPUARO_REDIS__PORT=str(port),
    )
    store = lines_by_check(result)["store"]
    if appendonly:
        assert store == f"✓ store: Redis at 127.0.0.1:{port}/0 (AOF on)"
    else:
        assert store.startswith(f"✗ store: Redis at 127.0.0.1:{port}/0 is reachable but AOF")
        assert "redis-cli CONFIG SET appendonly yes" in store


def test_redis_not_running_says_how_to_start_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port_url: str
) -> None:
    port = closed_port_url.rsplit(":", 1)[1]
    result = doctor(
        tmp_path,
        monkeypatch,
        IPUARO_LLM__BASE_URL=closed_port_url,
        IPUARO_STORE__BACKEND="redis",
        IPUARO_REDIS__HOST="127.0.0.1",
        IPUARO_REDIS__PORT=port,
    )
    store = lines_by_check(result)["store"]
    assert store.startswith(f"✗ store: cannot reach Redis at 127.0.0.1:{port}/0")
    assert store.endswith(
        "fix: start it with `redis-server --appendonly yes --appendfsync everysec`, "
        "or set store.backend=sqlite"
    )


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ('{"llm": {"temperature": "big"}}', "llm.temperature: expected a number"),
        ('{"llm": {"modle": "x"}}', "unknown key llm.modle (did you mean llm.model?)"),
        ('{"llm": {"model": "x",}}', ".ipuaro.json:1:23: invalid JSON"),
    ],
)
def test_broken_project_config_is_a_failed_check_and_the_rest_still_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, key: str
) -> None:
    (tmp_path / ".ipuaro.json").write_text(content, encoding="utf-8")
    result = doctor(tmp_path, monkeypatch)
    assert result.exit_code == 2
    assert len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"ipuaro: {tmp_path}")
    assert key in result.stderr
    checks = lines_by_check(result)
    assert checks["config"].startswith(f"✗ config: {tmp_path}")
    assert key in checks["config"]
    assert "— fix: correct that value (every key: docs/configuration.md)" in checks["config"]
    assert checks["python"].startswith("✓ python")
    assert all(checks[f"grammar {name}"].startswith("✓") for name in GRAMMARS)
    # What depends on the configuration is not guessed at with defaults.
    assert checks["store"] == "✗ store: not checked: the configuration is invalid"
    assert checks["model server"] == "✗ model server: not checked: the configuration is invalid"
    assert (
        result.stdout.splitlines()[-1]
        == f"the configuration of {tmp_path} is invalid: fix it first"
    )


def test_broken_environment_value_is_the_failed_config_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = doctor(tmp_path, monkeypatch, IPUARO_UNDO__STACK_SIZE="many")
    assert result.exit_code == 2
    message = (
        "environment variable IPUARO_UNDO__STACK_SIZE: undo.stackSize: "
        'expected an integer from 1 to 1000, got "many"'
    )
    assert result.stderr == f"ipuaro: {message}\n"
    assert lines_by_check(result)["config"].startswith(f"✗ config: {message} — fix:")


def test_doctor_names_the_sandbox_engine_and_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ipuaro.security.sandboxing.sandbox import engine

    found = engine()
    line = lines_by_check(doctor(tmp_path, monkeypatch))["sandbox"]
    if found is None:
        assert "no engine" in line and "asked about" in line
    else:
        assert line == f"✓ sandbox: workspace via {found}, network off unless a command asks"
    off = lines_by_check(doctor(tmp_path, monkeypatch, IPUARO_SANDBOX__PROFILE="off"))
    assert off["sandbox"].startswith("✓ sandbox: off — commands can write anywhere")


@pytest.mark.parametrize("path", ["/v1", ""])
def test_openai_provider_down_gets_advice_for_its_own_server_and_port(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port_url: str, path: str
) -> None:
    port = closed_port_url.rsplit(":", 1)[1]
    result = doctor(
        tmp_path,
        monkeypatch,
        IPUARO_LLM__PROVIDER="openai",
        IPUARO_LLM__BASE_URL=f"{closed_port_url}{path}",
    )
    server = lines_by_check(result)["model server"]
    assert result.exit_code == 1
    assert "ollama" not in server.lower()
    assert f"start an OpenAI-compatible server at {closed_port_url}{path}" in server
    assert f"`llama-server -m MODEL.gguf --port {port}` (llama.cpp)" in server
    assert f"`vllm serve {MODEL} --port {port}` (vLLM)" in server


def test_ollama_on_its_default_port_needs_no_host_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ipuaro.config.schema import LlmConfig
    from ipuaro.core.server_advice import start_commands

    assert start_commands(LlmConfig()) == ["ollama serve", f"ollama pull {MODEL}"]
    remote = LlmConfig(provider="openai", base_url="http://10.0.0.5:1234/v1")
    assert (
        start_commands(remote)[0]
        == "llama-server -m MODEL.gguf --host 10.0.0.5 --port 1234   (llama.cpp)"
    )


@pytest.mark.parametrize("flavour", ["llama.cpp", "vllm", "lmstudio", "llama-cpp-python"])
def test_doctor_reports_the_window_the_server_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flavour: str
) -> None:
    from tests.stubs.model_server import ModelStubServer

    with ModelStubServer() as stub:
        stub.served = (flavour, 8192)
        result = doctor(
            tmp_path,
            monkeypatch,
            IPUARO_LLM__PROVIDER="openai",
            IPUARO_LLM__BASE_URL=stub.openai_url,
        )
    model = lines_by_check(result)["model"]
    assert model.startswith(f"✓ model: {MODEL} is available (context window 8,192 tokens (server);")
    assert "start the server with a larger context" in model
