"""``ipuaro run`` as a real subprocess against the stub model server (a thread in this process),
and a session that survives SIGKILL between two turns."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agent.conftest import ScriptedModel, call, tool_outputs
from tests.stubs.model_server import ModelStubServer, ScriptedReply

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = "    return amount * rate_percent // 100"
CHANGED = "    return amount * rate_percent // 100  # rounded down"


def run_env(
    tmp_path: Path, server: ModelStubServer | None, port: int | None = None
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    url = server.url if server is not None else f"http://127.0.0.1:{port}"
    env.update(
        {
            "IPUARO_DATA_DIR": str(tmp_path / "data"),
            "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
            "IPUARO_LLM__BASE_URL": url,
            "IPUARO_LLM__CONTEXT_WINDOW": "32768",
            "IPUARO_LLM__TIMEOUT": "30",
            "PYTHONPATH": str(REPO),
        }
    )
    return env


def ipuaro(project: Path, env: dict[str, str], *args: str) -> list[str]:
    return [sys.executable, "-m", "ipuaro", "run", "--project", str(project), *args]


def run(
    project: Path, env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ipuaro(project, env, *args),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=project,
    )


def run_here(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``ipuaro run`` in this process (click's test runner), for what needs no process of its
    own: flags, output formats, exit codes. Behaviours that need a real process (signals, a
    kill, output reaching a pipe as it streams) keep :func:`run`."""
    from click.testing import CliRunner

    from ipuaro.cli.main import cli

    overlay: dict[str, str | None] = {k: None for k in os.environ if k.startswith("IPUARO_")}
    overlay.update(env)
    result = CliRunner().invoke(
        cli, ["run", "--project", str(project), *args], env=overlay, catch_exceptions=False
    )
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def test_json_output_has_the_answer_and_stats(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel(
        [call("get_function", path="shop/pricing.py", name="tax"), ScriptedReply(text="20 %.")]
    )
    done = run(
        project, run_env(tmp_path, model_server), "-p", "what is the tax rate?", "--output", "json"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"] == "20 %."
    assert result["reason"] == "done" and result["exitCode"] == 0
    assert result["stats"]["toolCalls"] == 1 and result["stats"]["tokensIn"] > 0
    assert result["changes"] == [] and result["sessionId"]
    assert result["model"] == "qwen2.5-coder:7b-instruct" and result["contextWindow"] == 32768


def test_a_refused_edit_goes_back_to_the_model_and_the_run_finishes_with_exit_0(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    before = pricing.read_text(encoding="utf-8")
    seen: list[str] = []

    def answer(body: dict[str, Any]) -> ScriptedReply:
        seen.append(tool_outputs(body)[-1])
        return ScriptedReply(text="I cannot edit in this run; the change is: add a comment.")

    model_server.responder = ScriptedModel(
        [call("replace", path="shop/pricing.py", old=ORIGINAL, new=CHANGED), answer]
    )
    done = run(
        project, run_env(tmp_path, model_server), "-p", "comment the rounding", "--output", "json"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reason"] == "done" and result["exitCode"] == 0
    assert result["answer"].startswith("I cannot edit in this run")
    assert result["refusalCount"] == 1
    assert result["refusals"][0].startswith("replace: ")
    # One hint, for the flag that applies: not `ipuaro tool`'s --yes, not --allow-commands.
    assert result["refusals"][0].endswith("(allow edits with --auto-apply)")
    assert "--yes" not in result["refusals"][0]
    assert seen[0].startswith("refused: ") and seen[0].endswith("choose another way or finish")
    assert pricing.read_text(encoding="utf-8") == before
    assert len(model_server.chat_requests()) == 2  # the model was asked again


def test_a_run_left_without_an_answer_by_refusals_exits_3(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    pricing = project / "shop" / "pricing.py"
    before = pricing.read_text(encoding="utf-8")
    model_server.responder = ScriptedModel(
        [
            call("replace", path="shop/pricing.py", old=ORIGINAL, new=f"{CHANGED} {n}")
            for n in range(5)
        ]
    )
    done = run_here(
        project,
        run_env(tmp_path, model_server),
        *("-p", "comment the rounding", "--output", "json", "--max-turns", "2"),
    )
    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["reason"] == "refused" and result["refusalCount"] == 2
    assert result["answer"] == ""
    assert "--auto-apply" in result["detail"]
    assert pricing.read_text(encoding="utf-8") == before


def test_auto_apply_edits_and_lists_the_change(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel(
        [
            call("replace", path="shop/pricing.py", old=ORIGINAL, new=CHANGED),
            ScriptedReply(text="Done."),
        ]
    )
    done = run(
        project,
        run_env(tmp_path, model_server),
        "-p",
        "comment the rounding",
        "--output",
        "json",
        "--auto-apply",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == ["shop/pricing.py"]
    assert CHANGED in (project / "shop" / "pricing.py").read_text(encoding="utf-8")


def test_json_result_carries_what_an_applied_edit_broke(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """The after-edit check as a typed field: a signature change with a caller in another file
    left as it was; the run is not blocked (exit 0) and the model read the same finding."""
    model_server.responder = ScriptedModel(
        [
            call(
                "replace",
                path="shop/pricing.py",
                old="def tax(amount: int, rate_percent: int = 20) -> int:",
                new="def tax(amount: int, rate_percent: int, region: str) -> int:",
            ),
            ScriptedReply(text="Done."),
        ]
    )
    done = run_here(
        project,
        run_env(tmp_path, model_server),
        "-p",
        "tax by region",
        "--output",
        "json",
        "--auto-apply",
    )
    assert done.returncode == 0, done.stderr
    (check,) = json.loads(done.stdout)["checks"]
    assert check["tool"] == "replace" and check["syntax"] == [] and check["imports"] == []
    (item,) = check["mayBreak"]
    assert (item["symbol"], item["change"]) == ("tax", "changed")
    assert {"path": "shop/cart.py", "line": 38} in item["uses"]
    told = tool_outputs(model_server.chat_requests()[-1])[-1]
    assert "may break: `tax` (signature changed in shop/pricing.py)" in told


def test_ipuaro_diff_shows_what_the_last_run_changed(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    diff = ["diff", "--project", str(project)]
    empty = run_cli(env, *diff)
    assert empty.returncode == 1 and "no session yet" in empty.stderr
    model_server.responder = ScriptedModel(
        [
            call("replace", path="shop/pricing.py", old=ORIGINAL, new=CHANGED),
            ScriptedReply(text="Done."),
        ]
    )
    done = run_here(project, env, "-p", "comment the rounding", "--auto-apply")
    assert done.returncode == 0, done.stderr
    shown = run_cli(env, *diff)
    assert shown.returncode == 0, shown.stderr
    assert f"-{ORIGINAL}\n+{CHANGED}\n" in shown.stdout
    assert "--- a/shop/pricing.py\n+++ b/shop/pricing.py" in shown.stdout
    as_json = json.loads(run_cli(env, *diff, "1", "--json").stdout)
    assert as_json["diff"].startswith("--- a/shop/pricing.py")
    bad = run_cli(env, *diff, "--session", "nope")
    assert bad.returncode == 1 and "nope" in bad.stderr


def run_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    from click.testing import CliRunner

    from ipuaro.cli.main import cli

    overlay: dict[str, str | None] = {k: None for k in os.environ if k.startswith("IPUARO_")}
    overlay.update(env)
    result = CliRunner().invoke(cli, list(args), env=overlay, catch_exceptions=False)
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def test_max_turns_is_a_limit_with_exit_4(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel([call("get_structure")], repeat_last=True)
    done = run_here(
        project, run_env(tmp_path, model_server), "-p", "look around", "--max-turns", "1"
    )
    assert done.returncode == 4
    assert "stopped (limit)" in done.stderr and "llm.maxTurns" in done.stderr


def test_stream_json_prints_one_event_per_line(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel(
        [call("git_status"), ScriptedReply(text="Clean tree.", chunks=3)]
    )
    done = run(project, run_env(tmp_path, model_server), "-p", "status?", "--output", "stream-json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "agent_start" and types[-2:] == ["agent_end", "result"]
    assert "tool_call_start" in types and "tool_call_end" in types
    assert (
        "".join(line["text"] for line in lines if line["type"] == "message_delta") == "Clean tree."
    )
    start = next(line for line in lines if line["type"] == "tool_call_start")
    assert start["call"]["name"] == "git_status"
    assert lines[0]["sessionId"] == lines[-1]["sessionId"]
    ends = [line for line in lines if line["type"] == "message_end"]
    assert [len(end["toolCalls"]) for end in ends] == [1, 0]
    finished = next(line for line in lines if line["type"] == "tool_call_end")
    assert finished["durationS"] >= 0 and finished["result"]["callId"] == start["call"]["id"]
    update = next(line for line in lines if line["type"] == "context_update")
    assert update["tokensLimit"] == 32768


def keys_outside_data(value: Any, path: str = "") -> list[str]:
    """Every object key in a stream-json line, with where it is; the insides of a tool call's
    ``parameters`` and of a result's ``data``/``details`` are the model's and the tool's data,
    not the event's shape, so they are not walked."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append(f"{path}.{key}")
            if key not in ("parameters", "data", "details"):
                found.extend(keys_outside_data(inner, f"{path}.{key}"))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found.extend(keys_outside_data(inner, f"{path}[{index}]"))
    return found


def test_stream_json_keys_are_camel_case(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    # The model's argument names are data and pass through untouched, underscores and all.
    model_server.responder = ScriptedModel(
        [
            call("get_lines", path="shop/cart.py", start_line=1, end_line=3),
            ScriptedReply(text="Read it."),
        ]
    )
    done = run_here(
        project, run_env(tmp_path, model_server), "-p", "read", "--output", "stream-json"
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    types = {line["type"] for line in lines}
    assert {"agent_start", "message_end", "tool_call_end", "context_update", "result"} <= types
    keys = [key for line in lines for key in keys_outside_data(line, line["type"])]
    assert "agent_start.sessionId" in keys and "tool_call_end.durationS" in keys
    assert [key for key in keys if "_" in key.rsplit(".", 1)[-1]] == []
    start = next(line for line in lines if line["type"] == "tool_call_start")
    assert set(start["call"]["parameters"]) >= {"path"}
    assert any("_" in name for name in start["call"]["parameters"])


def test_text_output_streams_the_answer(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    model_server.responder = ScriptedModel([call("get_structure"), ScriptedReply(text="Hello.")])
    done = run(project, run_env(tmp_path, model_server), "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello."
    assert "→ get_structure" in done.stderr and "│ 1 tool call\n" in done.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_server_says_how_to_start_one(project: Path, tmp_path: Path) -> None:
    done = run_here(project, run_env(tmp_path, None, free_port()), "-p", "hi", "--output", "json")
    assert done.returncode == 1
    assert "ollama serve" in done.stderr and "ollama pull qwen2.5-coder:7b-instruct" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    # A script reading stdout still gets the one result object --output json promises.
    result = json.loads(done.stdout)
    assert (result["reason"], result["exitCode"], result["sessionId"]) == ("error", 1, None)
    assert "ollama serve" in result["detail"]
    streamed = run_here(
        project, run_env(tmp_path, None, free_port()), "-p", "hi", "--output", "stream-json"
    )
    assert streamed.returncode == 1
    lines = streamed.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["type"] == "result"
    text = run_here(project, run_env(tmp_path, None, free_port()), "-p", "hi")
    assert text.returncode == 1 and text.stdout == ""


def test_bad_flags_are_usage_errors(project: Path, tmp_path: Path) -> None:
    done = run_here(
        project, run_env(tmp_path, None, free_port()), "-p", "x", "--new", "--session", "a"
    )
    assert done.returncode == 2 and "exclude each other" in done.stderr
    done = run_here(
        project, run_env(tmp_path, None, free_port()), "-p", "x", "--continue", "--resume", "a"
    )
    assert done.returncode == 2 and "--continue and --resume exclude each other" in done.stderr
    done = run_here(project, run_env(tmp_path, None, free_port()), "-p", "  ")
    assert done.returncode == 2 and "prompt is empty" in done.stderr


def test_the_session_survives_sigkill_between_turns(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    stalled = ScriptedReply(text="never finished", first_token_delay=60)
    first = ScriptedModel([call("get_function", path="shop/cart.py", name="total"), stalled])
    model_server.responder = first
    process = subprocess.Popen(
        ipuaro(project, env, "-p", "explain the cart total", "--output", "stream-json"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
    )
    try:
        deadline = time.monotonic() + 60
        while len(first.bodies) < 2 and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        assert len(first.bodies) == 2, "the second turn never reached the model"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    def answer(body: dict[str, Any]) -> ScriptedReply:
        return ScriptedReply(text=f"resumed with {len(tool_outputs(body))} earlier result(s)")

    second = ScriptedModel([answer])
    model_server.responder = second
    done = run(project, env, "-p", "go on", "--output", "json", "--continue")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"] == "resumed with 1 earlier result(s)"
    messages = second.bodies[0]["messages"]
    contents = [str(m.get("content")) for m in messages]
    assert any("explain the cart total" in c for c in contents)  # the killed run's request
    assert any("def total" in c for c in contents)  # and its tool result
    assert contents[-1] == "go on"
    listed = subprocess.run(
        [sys.executable, "-m", "ipuaro", "sessions", "list", "--project", str(project), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    sessions = json.loads(listed.stdout)
    assert [s["id"] for s in sessions] == [result["sessionId"]]


@pytest.mark.parametrize("flags", [(), ("--new",)])
def test_every_run_starts_a_new_session_by_default(
    project: Path, model_server: ModelStubServer, tmp_path: Path, flags: tuple[str, ...]
) -> None:
    env = run_env(tmp_path, model_server)
    model_server.responder = ScriptedModel([ScriptedReply(text="one"), ScriptedReply(text="two")])
    first = json.loads(run_here(project, env, "-p", "a", "--output", "json").stdout)
    second = json.loads(run_here(project, env, "-p", "b", "--output", "json", *flags).stdout)
    assert first["sessionId"] != second["sessionId"]
    assert [m.get("content") for m in model_server.chat_requests()[1]["messages"]][-1] == "b"
    assert len(model_server.chat_requests()[1]["messages"]) == 2  # system + b: nothing of a


def test_continue_and_resume_pick_up_a_session(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    model_server.responder = ScriptedModel([ScriptedReply(text=t) for t in "1234"])
    # Three runs in this process, the last in its own: what one run saved, another reads.
    first = json.loads(run_here(project, env, "-p", "a", "--output", "json").stdout)
    second = json.loads(run_here(project, env, "-p", "b", "--output", "json").stdout)
    latest = json.loads(run_here(project, env, "-p", "c", "--output", "json", "--continue").stdout)
    chosen = run(project, env, "-p", "d", "--output", "json", "--resume", first["sessionId"])
    assert latest["sessionId"] == second["sessionId"]
    assert json.loads(chosen.stdout)["sessionId"] == first["sessionId"]
    contents = [m.get("content") for m in model_server.chat_requests()[3]["messages"]]
    assert contents[1:] == ["a", "1", "d"]


def test_unknown_commands_need_allow_commands(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    model_server.responder = ScriptedModel(
        [call("run_command", command=f"mytool --version {n}") for n in range(5)]
    )
    refused = run_here(project, env, "-p", "run mytool", "--output", "json", "--max-turns", "2")
    assert refused.returncode == 3, refused.stderr
    assert "--allow-commands" in json.loads(refused.stdout)["detail"]
    model_server.responder = ScriptedModel(
        [
            call("run_command", command="mytool --version"),
            lambda body: ScriptedReply(text=tool_outputs(body)[-1].splitlines()[0]),
        ]
    )
    allowed = run_here(project, env, "-p", "run mytool", "--output", "json", "--allow-commands")
    assert allowed.returncode == 0, allowed.stderr
    assert json.loads(allowed.stdout)["answer"] == "Error: $ mytool --version"  # ran, failed


def test_allow_commands_never_covers_reading_a_secret(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """``--allow-commands`` answers "yes" to every command question in a run nobody watches —
    but not to a command that reads a secret file: the secret never reaches the model (or the
    session) through ``cat``, as ``get_lines`` on it is refused in the same run."""
    (project / ".env").write_text("API_KEY=sk-qa-not-for-the-model\n", encoding="utf-8")
    env = run_env(tmp_path, model_server)
    model_server.responder = ScriptedModel(
        [
            call("run_command", command="cat .env"),
            lambda body: ScriptedReply(text=tool_outputs(body)[-1][:400]),
        ]
    )
    done = run_here(project, env, "-p", "show .env", "--output", "json", "--allow-commands")
    sent = json.dumps(model_server.chat_requests())
    assert "sk-qa-not-for-the-model" not in sent
    assert "sk-qa-not-for-the-model" not in done.stdout
    answer = json.loads(done.stdout)["answer"]
    assert "secret" in answer and "--allow-commands does not cover secrets" in answer


def test_a_missing_model_says_how_to_get_it(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    done = run_here(project, run_env(tmp_path, model_server), "-p", "hi", "--model", "nope:1b")
    assert done.returncode == 1
    assert "nope:1b" in done.stderr and "ollama pull nope:1b" in done.stderr
    assert model_server.chat_requests() == []


def test_a_missing_model_is_caught_before_chat_in_a_resumed_session(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    model_server.responder = ScriptedModel([ScriptedReply(text="one")])
    first = run_here(project, env, "-p", "a", "--output", "json")
    assert first.returncode == 0, first.stderr
    # The resumed session pins its context window, so /api/show is asked only for capabilities.
    done = run_here(project, env, "-p", "b", "--model", "nope:1b", "--continue")
    assert done.returncode == 1
    assert "ollama pull nope:1b" in done.stderr
    assert "tools offered as text" not in done.stderr
    assert len(model_server.chat_requests()) == 1  # only the first run chatted


def test_model_server_flags_reach_the_run(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    env = run_env(tmp_path, model_server)
    del env["IPUARO_LLM__CONTEXT_WINDOW"]
    env["IPUARO_LLM__BASE_URL"] = "http://127.0.0.1:9"  # the flag must win over the variable
    env["STUB_KEY"] = "sekrit"
    model_server.api_key = "sekrit"
    model_server.responder = ScriptedModel([ScriptedReply(text="via flags")])
    done = run_here(
        project, env, "-p", "hi", "--output", "json",
        "--provider", "openai", "--base-url", model_server.openai_url,
        "--api-key-env", "STUB_KEY", "--context-window", "20000",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"] == "via flags" and result["contextWindow"] == 20000
    assert [r.path for r in model_server.requests][-1] == "/v1/chat/completions"
    refused = run_here(project, env, "-p", "hi", "--context-window", "100")
    assert refused.returncode == 2 and "--context-window" in refused.stderr


def test_a_run_killed_in_its_first_second_keeps_the_prompt(
    project: Path, model_server: ModelStubServer, tmp_path: Path
) -> None:
    """SIGKILL 0.3 s after the session appears (indexing a large project, before any chat
    request): the session lists the prompt, and resuming sends it once, not twice."""
    bulk = project / "bulk"
    bulk.mkdir()
    body = "".join(f"def f{i}(a):\n    return a + {i}\n\n" for i in range(40))
    for i in range(1000):
        (bulk / f"m{i}.py").write_text(body)
    env = run_env(tmp_path, model_server)
    model = ScriptedModel([ScriptedReply(text="never reached")])
    model_server.responder = model
    process = subprocess.Popen(
        ipuaro(project, env, "-p", "rename the cart total", "--output", "json"),
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=project,
    )
    database = next_database(tmp_path / "data", process)
    try:
        deadline = time.monotonic() + 60
        while not sessions_in(database) and time.monotonic() < deadline:
            assert process.poll() is None
            time.sleep(0.01)
        time.sleep(0.3)
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    assert model.bodies == [], "the kill came after the first chat request; no test of the gap"
    listed = subprocess.run(
        [sys.executable, "-m", "ipuaro", "sessions", "list", "--project", str(project), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    sessions = json.loads(listed.stdout)
    assert len(sessions) == 1 and "rename the cart total" in json.dumps(sessions), sessions

    resumed = ScriptedModel([ScriptedReply(text="done")])
    model_server.responder = resumed
    session_id = sessions[0]["id"]
    done = run(
        project, env, "--session", session_id, "-p", "rename the cart total", "--output", "json"
    )
    assert done.returncode == 0, done.stderr
    contents = [str(m.get("content")) for m in resumed.bodies[0]["messages"]]
    assert contents.count("rename the cart total") == 1


def next_database(data: Path, process: subprocess.Popen[bytes]) -> Path:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = list(data.glob("*.db"))
        if found:
            return found[0]
        assert process.poll() is None, "ipuaro run ended before creating its store"
        time.sleep(0.01)
    raise AssertionError("no store database appeared")


def sessions_in(database: Path) -> int:
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
