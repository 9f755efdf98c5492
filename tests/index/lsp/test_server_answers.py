"""find_references / find_definition against the real basedpyright language server.

The server starts at the first question, in the background: that question (and any while it
starts) is answered by the index. Missing, crashed or hung servers leave the answer to the
index too, and the model never sees an error about them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ipuaro.index.watcher import IndexWatcher
from ipuaro.tools.base import ToolOutcome
from ipuaro.tools.builtin.find_definition import FindDefinition, FindDefinitionArgs
from ipuaro.tools.builtin.find_references import FindReferences, FindReferencesArgs

from .conftest import JOBS, MAIN, Project, basedpyright, make_project

READY_S = 90.0
"""How long a test waits for the server to start (a loaded CI machine)."""


def references(project: Project, symbol: str, path: str | None = None) -> ToolOutcome:
    args = FindReferencesArgs(symbol=symbol, path=path)
    return asyncio.run(FindReferences().execute(args, project.ctx))


def definition(project: Project, symbol: str) -> ToolOutcome:
    return asyncio.run(FindDefinition().execute(FindDefinitionArgs(symbol=symbol), project.ctx))


def places(outcome: ToolOutcome) -> set[tuple[str, int]]:
    data: dict[str, Any] = outcome.data
    return {(r["path"], r["line"]) for r in data["references"]}


def wait_ready(project: Project) -> None:
    server = project.servers.servers["python"]
    assert server.wait_ready(READY_S), server.describe()


def test_the_server_tells_a_method_from_a_same_named_one_where_the_index_cannot(
    project: Project,
) -> None:
    first = references(project, "Job.run")  # starts the server; the index answers meanwhile
    assert first.success and first.data["source"] == "index"
    # By name, `task.run()` on line 5 is a use of Job.run as much as `job.run()` is.
    assert ("pkg/main.py", 5) in places(first) and ("pkg/jobs.py", 7) in places(first)

    wait_ready(project)
    answer = references(project, "Job.run")

    assert answer.success and answer.data["source"] == "language server"
    assert places(answer) == {("pkg/jobs.py", 2), ("pkg/main.py", 5), ("pkg/main.py", 9)}
    columns = {(r["line"], r["column"]) for r in answer.data["references"]}
    assert (5, 16) in columns and (5, 29) not in columns  # job.run(), not task.run()
    assert "(from the language server)" in answer.content
    assert "pkg/main.py:9:18: return Job().run()" in answer.content
    task = references(project, "Task.run")
    assert places(task) == {("pkg/jobs.py", 7), ("pkg/main.py", 5)}
    assert {r["column"] for r in task.data["references"] if r["line"] == 5} == {29}


@pytest.mark.lsp
def test_a_name_the_index_declares_nowhere_is_defined_by_the_server(project: Project) -> None:
    wait_ready(project)
    # A for-loop's variable: the index holds no declaration of it, only its uses.
    answer = definition(project, "looped")

    assert answer.success and answer.data["source"] == "language server"
    assert [(d["path"], d["line"]) for d in answer.data["definitions"]] == [("pkg/helpers.py", 5)]
    assert "pkg/helpers.py:5: for looped in range(3):" in answer.content
    # A declared name is still the index's answer (kind, span, container).
    assert "source" not in definition(project, "Job").data


@pytest.mark.lsp
def test_answers_are_cached_and_an_edited_file_drops_them(project: Project) -> None:
    wait_ready(project)
    assert places(references(project, "Job.run")) == {
        ("pkg/jobs.py", 2),
        ("pkg/main.py", 5),
        ("pkg/main.py", 9),
    }
    cached = [k for k in _answer_keys(project) if k.startswith("references|python|pkg/jobs.py")]
    assert len(cached) == 1

    # A new file using Job.run: no answer involved it, but it holds the name asked about.
    project.write("pkg/more.py", "from pkg.jobs import Job\n\nVALUE = Job().run()\n")
    watcher = IndexWatcher(project.indexer, on_changed=project.servers.files_changed)
    from watchfiles import Change

    watcher.apply({(Change.added, str(project.root / "pkg/more.py"))})
    assert _answer_keys(project) == []

    answer = references(project, "Job.run")
    assert answer.data["source"] == "language server"
    assert ("pkg/more.py", 3) in places(answer)


@pytest.mark.lsp
def test_a_cached_answer_about_a_changed_file_is_not_used_even_unwatched(project: Project) -> None:
    wait_ready(project)
    references(project, "Job.run")
    # Written and re-indexed without the watcher: the stored hashes no longer match.
    project.write("pkg/main.py", MAIN_MOVED)
    project.indexer.update_paths(["pkg/main.py"])

    answer = references(project, "Job.run")
    assert answer.data["source"] == "language server"
    assert places(answer) == {("pkg/jobs.py", 2), ("pkg/main.py", 7), ("pkg/main.py", 11)}

    # The file asked about itself (open in the server) changed the same way.
    project.write("pkg/jobs.py", "\n\n" + JOBS)
    project.indexer.update_paths(["pkg/jobs.py"])
    answer = references(project, "Job.run")
    assert places(answer) == {("pkg/jobs.py", 4), ("pkg/main.py", 7), ("pkg/main.py", 11)}


MAIN_MOVED = "# moved\n\n" + MAIN


def test_a_missing_server_leaves_the_answer_to_the_index(tmp_path: Path) -> None:
    for project in make_project(tmp_path, "no-such-language-server --stdio"):
        first = references(project, "Job.run")
        server = project.servers.servers["python"]
        assert not server.wait_ready(10)
        answer = references(project, "Job.run")

        for outcome in (first, answer):
            assert outcome.success and outcome.error is None
            assert outcome.data["source"] == "index"
            assert "server" not in outcome.content
        assert ("pkg/main.py", 9) in places(answer)
        assert "not used: cannot start 'no-such-language-server'" in server.describe()
        assert "the index answers for this session" in server.describe()


@pytest.mark.lsp
def test_true_finds_basedpyright_and_names_a_language_with_no_known_server(
    tmp_path: Path,
) -> None:
    basedpyright()
    from ipuaro.index.lsp import LanguageServers

    servers = LanguageServers(
        tmp_path,
        {"python": True, "cobol": True},
        None,
        environ={"PATH": ""},  # type: ignore[arg-type]
    )
    assert servers.servers["python"].argv[0].endswith("basedpyright-langserver")
    assert servers.problems == [
        "cobol: no language server found (known: none); install one or give its command, "
        'e.g. "cobol": "NAME --stdio"'
    ]


@pytest.mark.lsp
def test_a_killed_server_leaves_the_answer_to_the_index_then_restarts(project: Project) -> None:
    wait_ready(project)
    server = project.servers.servers["python"]
    assert references(project, "Job.run").data["source"] == "language server"
    pid = server.pid
    assert pid is not None
    os.killpg(pid, signal.SIGKILL)  # the server and its node child
    _wait_exit(server)

    after = references(project, "Task.run")  # not cached: the server would be asked
    assert after.success and after.error is None and after.data["source"] == "index"
    assert "server" not in after.content

    wait_ready(project)  # a later question restarted it
    assert server.pid != pid and server.starts == 2
    assert references(project, "Task.run").data["source"] == "language server"


def _wait_exit(server: Any) -> None:
    import time

    deadline = time.monotonic() + 10
    while server._process is not None and server._process.alive:
        if time.monotonic() > deadline:
            pytest.fail("the language server's process was still alive 10 s after close")
        time.sleep(0.05)


HANGING_SERVER = textwrap.dedent(
    """
    import json, sys
    from ipuaro.index.lsp.jsonrpc import encode_frame, read_frame
    while True:
        message = read_frame(sys.stdin.buffer)
        if message is None:
            break
        if message.get("method") == "initialize":
            sys.stdout.buffer.write(encode_frame({"jsonrpc": "2.0", "id": message["id"],
                                                  "result": {"capabilities": {}}}))
            sys.stdout.buffer.flush()
        # every other question: no answer, ever
    """
)


@pytest.fixture
def hanging(tmp_path: Path) -> Iterator[Project]:
    script = tmp_path / "hanging_server.py"
    script.write_text(HANGING_SERVER, encoding="utf-8")
    yield from make_project(tmp_path, f"{sys.executable} {script}", request_timeout=1.0)


def test_a_hung_server_is_stopped_and_the_index_answers(hanging: Project) -> None:
    wait_ready(hanging)
    server = hanging.servers.servers["python"]
    pid = server.pid

    answer = references(hanging, "Job.run")

    assert answer.success and answer.data["source"] == "index"
    assert "server" not in answer.content
    assert server.state == "failed" and "got no answer in 1 s" in (server.problem or "")
    assert pid is not None and _gone(pid)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _answer_keys(project: Project) -> list[str]:
    conn = project.store._conn
    return [row[0] for row in conn.execute("SELECT key FROM server_answers")]
