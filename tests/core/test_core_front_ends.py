"""What front ends share: the slash-command table (every command has a core operation and a
TUI row), the decision protocol's rules, headless `--eval`, and the layering between folders."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import grimp
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ipuaro.core.commands import COMMANDS
from ipuaro.core.decisions import (
    Answer,
    ApplyMemory,
    ConfirmChange,
    ConfirmRequest,
    LargeProject,
    LoopDetected,
    OverwriteChanges,
    RecoverError,
    ResolveConflict,
    resolve,
)
from ipuaro.core.events import AgentError
from ipuaro.headless import HeadlessOptions, run_headless
from tests.core.conftest import config_for
from tests.stubs.model_server import ModelStubServer, ScriptedReply


def test_every_slash_command_has_a_row_in_the_tuis_table() -> None:
    from ipuaro.tui.command_runner import CommandRunner

    runner = CommandRunner(app=None, workspace=None)  # type: ignore[arg-type]
    assert set(runner.table) == {spec.name for spec in COMMANDS}


QUESTIONS = [
    ConfirmChange.of(ConfirmRequest(kind="edit", title="t", description="d", diff="@@")),
    ConfirmChange.of(ConfirmRequest(kind="command", title="t", description="d", command="ls")),
    RecoverError.of(AgentError("file", "disk full"), ("retry", "skip", "abort")),
    ResolveConflict.of("a.py", "changed", ("skip", "regenerate")),
    LoopDetected.of("get_lines", 3),
    LargeProject.of("p", 20_000, 10_000),
    OverwriteChanges.of("redo", "a.py changed"),
    ApplyMemory.of("remember", (("user.ask_budget", "(not set)", "1"),), ("x: not a key",)),
]


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: type(q).__name__)
def test_every_question_is_answerable_by_its_options_and_safe_otherwise(question: Any) -> None:
    values = question.values()
    assert question.safe in values and len(set(o.key for o in question.options)) == len(values)
    for value in values:
        assert resolve(question, value).choice == value
    assert resolve(question, "something else") == Answer(question.safe)
    assert resolve(question, Answer("nope", {"a": "b"})) == Answer(question.safe)


def test_edited_text_is_kept_only_for_confirmations() -> None:
    confirm, loop = QUESTIONS[0], QUESTIONS[4]
    assert resolve(confirm, Answer("apply", {"a.py": "x"})).edited == {"a.py": "x"}
    assert resolve(loop, Answer("stop", {"a.py": "x"})).edited is None


def test_a_conflict_offers_apply_only_when_the_edit_can_move() -> None:
    assert "apply" not in QUESTIONS[3].values()
    assert "apply" in ResolveConflict.of("a.py", "", ("apply", "skip", "regenerate")).values()


async def test_headless_eval_checks_the_answer_then_sends_the_critique(
    project: Path, server: ModelStubServer
) -> None:
    answers = [
        ScriptedReply(text="It is in shop/cart.py:1-3 and `Phantom`."),
        ScriptedReply(text="Verdict: partly correct."),
    ]
    server.responder = lambda body: answers.pop(0)
    out, err = io.StringIO(), io.StringIO()
    options = HeadlessOptions(prompt="where?", output="json", evaluate=True, new_session=True)
    code = await run_headless(project, config_for(project, server), options, out, err)
    assert code == 0, err.getvalue()
    assert "✓ shop/cart.py:1-3" in err.getvalue() and "✗ `Phantom`" in err.getvalue()
    assert json.loads(out.getvalue())["answer"] == "Verdict: partly correct."
    critique = json.dumps(server.chat_requests()[-1]["messages"])
    assert "Review your previous answer" in critique


async def test_headless_eval_without_an_answer_says_so(
    project: Path, server: ModelStubServer
) -> None:
    out, err = io.StringIO(), io.StringIO()
    options = HeadlessOptions(prompt="", output="json", evaluate=True, new_session=True)
    code = await run_headless(project, config_for(project, server), options, out, err)
    assert code == 1
    assert "no answer to evaluate" in json.loads(out.getvalue())["detail"]


def test_no_import_cycles_between_folders() -> None:
    """Every top-level folder imports only folders below it: no chain leads back up."""
    graph = grimp.build_graph("ipuaro")
    folders = sorted(
        {".".join(m.split(".")[:2]) for m in graph.modules if m.count(".") >= 1}
        - {"ipuaro.__main__"}
    )
    cycles = []
    for first in folders:
        for second in folders:
            if first < second and (
                graph.chain_exists(first, second, as_packages=True)
                and graph.chain_exists(second, first, as_packages=True)
            ):
                cycles.append((first, second))
    assert cycles == []


def test_front_ends_import_nothing_below_the_core() -> None:
    graph = grimp.build_graph("ipuaro")
    internals = ("agent", "trace", "tools", "edits", "index", "llm", "security", "store")
    front = ("ipuaro.tui", "ipuaro.headless")
    found = [
        (importer, imported)
        for importer in graph.modules
        if importer.startswith(front)
        for imported in graph.find_modules_directly_imported_by(importer)
        if imported.split(".")[1] in internals
    ]
    assert found == []


async def _hello(workspace: Any, args: tuple[str, ...]) -> Any:
    from ipuaro.core.commands import Reply, ReplyTable

    rows = (("session", workspace.session_id),)
    return Reply(f"hello {' '.join(args) or 'there'}", "success", (ReplyTable("Hello", rows),))


def test_a_registered_command_is_parsed_listed_and_removable() -> None:
    from ipuaro.core.commands import (
        CommandSpec,
        help_rows,
        parse_command,
        register,
        unregister,
    )

    register(CommandSpec("hello", "/hello [NAME]", "say hello", max_args=1, operation=_hello))
    try:
        assert parse_command("/hello you").args == ("you",)
        assert ("/hello [NAME]", "say hello") in help_rows()[0]
        with pytest.raises(ValueError, match="exists already"):
            register(CommandSpec("status", "/status", "again", operation=_hello))
        with pytest.raises(ValueError, match="needs an operation"):
            register(CommandSpec("bare", "/bare", "no operation"))
    finally:
        unregister("hello")
    with pytest.raises(Exception, match="unknown command /hello"):
        parse_command("/hello")


def _run_cli(project: Path, server: ModelStubServer, *args: str) -> Any:
    import os
    import subprocess
    import sys

    env = dict(os.environ)
    env.update(
        {
            "IPUARO_LLM__BASE_URL": server.url,
            "IPUARO_LLM__CONTEXT_WINDOW": "32768",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        }
    )
    command = [sys.executable, "-m", "ipuaro", "run", "--project", str(project), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)


def test_ipuaro_run_eval_as_a_real_process(project: Path, server: ModelStubServer) -> None:
    answers = [
        ScriptedReply(text="See shop/cart.py:1-3 and `Phantom`."),
        ScriptedReply(text="Verdict: partly correct."),
    ]
    server.responder = lambda body: answers.pop(0)
    done = _run_cli(project, server, "--eval", "-p", "where?", "--output", "json")
    assert done.returncode == 0, done.stderr
    assert "✗ `Phantom`" in done.stderr
    assert json.loads(done.stdout)["answer"] == "Verdict: partly correct."
    alone = _run_cli(project, server, "--eval")
    assert alone.returncode == 2 and "--resume" in alone.stderr and "Traceback" not in alone.stderr


@given(
    index=st.integers(min_value=0, max_value=len(QUESTIONS) - 1),
    answer=st.one_of(st.text(max_size=20), st.sampled_from(["apply", "reject", "abort", "stop"])),
    edited=st.none() | st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)
def test_any_answer_resolves_to_one_of_the_options(
    index: int, answer: str, edited: dict[str, str] | None
) -> None:
    question = QUESTIONS[index]
    resolved = resolve(question, Answer(answer, edited))
    assert resolved.choice in question.values()
    if resolved.choice != answer:
        assert resolved == Answer(question.safe)
