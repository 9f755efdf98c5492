"""The real terminal: ``ipuaro PATH`` in tmux against the stub model server run as its own
process. Type a question and watch the answer stream in, confirm an edit with Y and find it on
disk, quit with Ctrl+D and find the session saved in the data dir."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ipuaro.config.loader import load_config
from ipuaro.store.factory import open_store
from tests.support.processes import StartStub
from tests.support.terminal import Tmux
from tests.tui.conftest import copy_project

pytestmark = pytest.mark.tmux

REPO = Path(__file__).resolve().parents[2]
OLD = "  const isValid = verifyToken(token);\n  return isValid;"
NEW = (
    "  const isValid = verifyToken(token);\n"
    '  if (!isValid) throw new AuthError("bad");\n'
    "  return isValid;"
)
SCRIPT = {
    "replies": [
        {
            "text": "Login returns a token built from the user name.",
            "chunks": 12,
            "chunk_delay": 0.15,
        },
        {
            "text": "I will add a validity check.",
            "tool_calls": [
                {
                    "name": "replace",
                    "arguments": {"path": "src/auth/login.ts", "old": OLD, "new": NEW},
                }
            ],
        },
        {"text": "The check is in place."},
    ]
}


@pytest.fixture
def stub_process(start_stub: StartStub) -> str:
    return start_stub(SCRIPT)


@pytest.fixture
def terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[Path, str], Tmux]]:
    """``launch(project, model_url)``: ``ipuaro PROJECT --new`` in a fresh tmux server (its
    data and config in ``tmp_path``), returned as soon as tmux has started it."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux): the real-terminal tests need it")
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    tmux = Tmux(f"ipuaro-test-{os.getpid()}-{tmp_path.name}")

    def launch(project: Path, model_url: str) -> Tmux:
        env = {
            "IPUARO_DATA_DIR": str(tmp_path / "data"),
            "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
            "IPUARO_LLM__BASE_URL": model_url,
            "IPUARO_WATCHDOG__ENABLED": "false",
        }
        command = " ".join(
            ["env", "-u", "EDITOR", "-u", "VISUAL", "TERM=xterm-256color"]
            + [f"{key}={value}" for key, value in env.items()]
            + [sys.executable, "-m", "ipuaro", str(project), "--new"]
        )
        tmux.run("new-session", "-d", "-s", "ipuaro", "-x", "110", "-y", "36", command)
        monkeypatch.setenv("IPUARO_DATA_DIR", env["IPUARO_DATA_DIR"])
        monkeypatch.setenv("IPUARO_CONFIG_DIR", env["IPUARO_CONFIG_DIR"])
        return tmux

    try:
        yield launch
    finally:
        tmux.run("kill-server")


def saved_requests(project: Path) -> list[str]:
    """The user messages of the project's one saved session."""
    store = open_store(load_config(project), project)
    try:
        (session_id,) = store.list_sessions()
        session = store.load_session(session_id)
        assert session is not None
        return [m.content for m in session.history if m.role == "user"]
    finally:
        store.close()


def test_real_terminal_session(
    tmp_path: Path, terminal: Callable[[Path, str], Tmux], stub_process: str
) -> None:
    project = copy_project(tmp_path)
    tmux = terminal(project, stub_process)
    tmux.wait_for(lambda s: "Ask anything" in s, "the prompt")
    assert "[project: projects-tui_app]" in tmux.screen()
    tmux.type("how does login work?")
    tmux.keys("Enter")
    # Streamed: the first words show while the rest is still on its way (~1.8 s).
    first = tmux.wait_for(lambda s: "Login" in s, "the answer to start")
    assert "user name." not in first
    screen = tmux.wait_for(lambda s: "tool calls" in s, "the stats line")
    assert "Login returns a token built from the user name." in screen
    assert "1 tool call" not in screen and "0 tool calls" in screen

    tmux.type("add a validity check")
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: "[Y] Apply" in s, "the diff")
    assert "src/auth/login.ts" in screen and "AuthError" in screen
    tmux.keys("y")
    tmux.wait_for(lambda s: "The check is in place." in s, "the final answer")
    text = (project / "src" / "auth" / "login.ts").read_text(encoding="utf-8")
    assert 'if (!isValid) throw new AuthError("bad");' in text

    tmux.keys("C-d")
    tmux.wait_for_exit()
    assert saved_requests(project) == ["how does login work?", "add a validity check"]


EDIT_SCRIPT = {
    "replies": [
        {
            "text": "I will add a validity check.",
            "tool_calls": [
                {
                    "name": "replace",
                    "arguments": {"path": "src/auth/login.ts", "old": OLD, "new": NEW},
                }
            ],
        },
        {"text": "The check is in place."},
    ]
}


def test_keys_typed_during_start_up_and_y_the_instant_the_diff_shows_take_effect(
    tmp_path: Path, terminal: Callable[[Path, str], Tmux], start_stub: StartStub
) -> None:
    project = copy_project(tmp_path)
    tmux = terminal(project, start_stub(EDIT_SCRIPT))
    # Typed at once: ipuaro has not even started (the terminal holds the keys), then while
    # it checks the model server, opens the store and indexes the project for the first time.
    # (The first part certainly: tmux has only just started the process.)
    tmux.type("add a ")
    tmux.wait_for(lambda s: "[project:" in s, "the first screen", poll=0.01)
    tmux.type("validity ")
    tmux.type("check")
    ready = tmux.wait_for(lambda s: "context window" in s, "the start-up to finish")
    # Everything typed arrived, in order, in the input (nothing was sent yet).
    tmux.wait_for(lambda s: "add a validity check" in s, "the typed text in the input")
    assert "You:" not in ready
    tmux.keys("Enter")

    # Y the moment the diff is on screen: it answers the diff (no key guard swallows it).
    tmux.wait_for(lambda s: "[Y] Apply" in s, "the diff", poll=0.005)
    tmux.keys("y")
    tmux.wait_for(lambda s: "The check is in place." in s, "the final answer")
    text = (project / "src" / "auth" / "login.ts").read_text(encoding="utf-8")
    assert 'if (!isValid) throw new AuthError("bad");' in text
    # And the y was not typed into the input: it is empty again, showing its placeholder.
    tmux.wait_for(lambda s: "Ask anything" in s, "the empty input")

    tmux.keys("C-d")
    tmux.wait_for_exit()
    assert saved_requests(project) == ["add a validity check"]


def test_enter_typed_before_ipuaro_reads_the_terminal_sends_once_ready(
    tmp_path: Path, terminal: Callable[[Path, str], Tmux], start_stub: StartStub
) -> None:
    project = copy_project(tmp_path)
    tmux = terminal(project, start_stub({"replies": [{"text": "Login returns a token."}]}))
    # Before Python has started the terminal is in line mode: Enter reaches ipuaro as a line
    # feed, which must still send (the request waits until start-up is done).
    tmux.type("how does login work?")
    tmux.keys("Enter")
    screen = tmux.wait_for(lambda s: "Login returns a token." in s, "the answer")
    assert "You: how does login work?" in screen
    tmux.keys("C-d")
    tmux.wait_for_exit()
    assert saved_requests(project) == ["how does login work?"]
