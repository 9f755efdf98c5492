"""Repository content cannot exhaust the machine: every repository file ipuaro reads itself
(``.ipuaro.json``, ``.ipuaro/project.json``, a custom command, ``AGENTS.md``, ignore files) is
read only when it is a regular file, up to a cap. A symlink to ``/dev/zero``, a FIFO or a
huge file is refused with a line naming it; 400,000 ignore patterns are cut with a notice.

The subprocess time-outs below are safety nets for a hang (the old behaviour), not timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ipuaro.agent.context.instructions import load_instructions
from ipuaro.config.loader import ConfigError, load_config
from ipuaro.config.schema import Config
from ipuaro.domain.repofiles import RepoFileRefused, read_repo_bytes
from ipuaro.extensions.commands import CommandFileError, parse_command_file
from ipuaro.index.scan.ignore import ProjectIgnore
from ipuaro.index.scan.scanner import scan
from ipuaro.memory.files import project_file, read_layer

REPO = Path(__file__).resolve().parents[2]


def _plant(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.write_bytes(b" " * 5_000_000)


KINDS = ["dev-zero", "fifo", "huge"]
EXPECTED = {"dev-zero": "not a regular file (a device)", "fifo": "not a regular file (a FIFO)"}


def _expected(kind: str) -> str:
    return EXPECTED.get(kind, "larger than")


@pytest.mark.parametrize("kind", KINDS)
def test_the_project_config(tmp_path: Path, kind: str) -> None:
    _plant(tmp_path / ".ipuaro.json", kind)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert str(caught.value).startswith(f"{tmp_path / '.ipuaro.json'}: {_expected(kind)}")


@pytest.mark.parametrize("kind", KINDS)
def test_the_project_memory(tmp_path: Path, kind: str) -> None:
    _plant(project_file(tmp_path), kind)
    layer = read_layer("project", project_file(tmp_path))
    assert not layer.readable or layer.values == {}
    (problem,) = layer.problems
    assert problem.startswith(".ipuaro/project.json: ") and _expected(kind) in problem


@pytest.mark.parametrize("kind", KINDS)
def test_a_custom_command(tmp_path: Path, kind: str) -> None:
    path = tmp_path / ".ipuaro" / "commands" / "review.md"
    _plant(path, kind)
    with pytest.raises(CommandFileError) as caught:
        parse_command_file(path, "project")
    assert str(caught.value).startswith(f"{path}: ") and _expected(kind) in str(caught.value)


@pytest.mark.parametrize("kind", KINDS)
def test_agents_md(tmp_path: Path, kind: str) -> None:
    if kind == "huge":
        (tmp_path / "AGENTS.md").write_bytes(b"x" * 5_000_000)
    else:
        _plant(tmp_path / "AGENTS.md", kind)
    loaded = load_instructions(tmp_path)
    assert loaded.agents_md is None
    (warning,) = loaded.warnings
    assert warning.startswith("AGENTS.md could not be read") and _expected(kind) in warning


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
@pytest.mark.parametrize("where", [".gitignore", "src/.gitignore", ".git/info/exclude"])
def test_an_ignore_file(tmp_path: Path, kind: str, where: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    _plant(tmp_path / where, kind)
    ignore = ProjectIgnore(tmp_path)
    result = scan(tmp_path, Config(), ignore=ignore)
    assert "src/a.py" in result.paths()
    assert any(_expected(kind) in notice for notice in ignore.notices)


def test_400000_ignore_patterns_are_cut_with_a_notice(tmp_path: Path) -> None:
    patterns = [f"{n}.t" for n in range(400_000)]  # 3.3 MB: under the size cap
    (tmp_path / ".gitignore").write_text("\n".join(patterns) + "\n*.log\n")
    (tmp_path / "src").mkdir()
    for name in ("a.py", "b.log"):
        (tmp_path / "src" / name).write_text("x\n")
    ignore = ProjectIgnore(tmp_path, [f"cfg_{n}" for n in range(400_000)])
    # *.log comes after the cap: cut, so b.log is indexed (and the notice says why).
    found = scan(tmp_path, Config(), ignore=ignore).paths()
    assert found == [".gitignore", "src/a.py", "src/b.log"]
    assert len(ignore.notices) == 2
    assert all("only the first 5,000 are used" in n for n in ignore.notices)
    assert ignore.notices[0].startswith("project.ignorePatterns: 400,000 ignore patterns")


def test_a_plain_file_reads_whole_and_a_file_of_exactly_the_cap_too(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a" * 100)
    assert read_repo_bytes(path, 100) == b"a" * 100
    with pytest.raises(RepoFileRefused):
        read_repo_bytes(path, 99)
    (tmp_path / "link").symlink_to(path)
    assert read_repo_bytes(tmp_path / "link", 100) == b"a" * 100


def _run(project: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        IPUARO_CONFIG_DIR=str(tmp_path / "cfg"),
        IPUARO_DATA_DIR=str(tmp_path / "data"),
        PYTHONPATH=str(REPO),
    )
    argv = [sys.executable, "-m", "ipuaro", *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("kind", ["dev-zero", "fifo"])
def test_ipuaro_run_on_a_planted_config_says_so_and_exits_2(tmp_path: Path, kind: str) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    _plant(project / ".ipuaro.json", kind)
    done = _run(project, tmp_path, "run", "--project", str(project), "-p", "hi")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{project / '.ipuaro.json'}: {_expected(kind)}" in done.stderr


PLANTED: dict[str, Callable[[Path], Path]] = {
    "memory": project_file,
    "agents": lambda root: root / "AGENTS.md",
}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_ipuaro_memory_show_on_a_planted_file_does_not_hang(tmp_path: Path, name: str) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    _plant(PLANTED[name](project), "fifo")
    done = _run(project, tmp_path, "memory", "--project", str(project), "show")
    assert "Traceback" not in done.stderr, done.stderr
    if name == "memory":
        assert "not a regular file (a FIFO)" in done.stdout + done.stderr
    json.dumps(done.stdout)


def test_manifests_read_for_imports_and_scripts_are_never_waited_on(tmp_path: Path) -> None:
    from ipuaro.security.policy.commands import CommandPolicy
    from ipuaro.store.sqlite import SqliteStore
    from tests.index.conftest import make_indexer

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.ts").write_text("import { b } from 'pkg/b';\nexport const a = b;\n")
    (project / "src" / "b.php").write_text("<?php\nuse App\\Models\\User;\n")
    for name in ("package.json", "tsconfig.json", "composer.json", "Makefile"):
        os.mkfifo(project / name)
    store = SqliteStore(tmp_path / "store.db", "project")
    try:
        summary = make_indexer(project, store).index()
    finally:
        store.close()
    assert summary.files >= 2
    policy = CommandPolicy(project, [], ["npm", "make"])
    assert policy.decide("npm run build").verdict in ("allow", "ask", "deny")
    assert policy.decide("make all").verdict in ("allow", "ask", "deny")


def test_a_dotenv_and_a_venv_config_are_never_waited_on(tmp_path: Path) -> None:
    from ipuaro.planning.environment import describe_environment
    from ipuaro.trace.redaction import Redactor, env_values

    os.mkfifo(tmp_path / ".env")
    (tmp_path / ".venv").mkdir()
    os.mkfifo(tmp_path / ".venv" / "pyvenv.cfg")
    assert env_values(tmp_path / ".env") == []
    Redactor.for_project(tmp_path)
    assert isinstance(describe_environment(tmp_path), str)


def test_the_users_config_flag_may_be_a_pipe_still_capped(tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "config-pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as pipe:
            pipe.write('{"llm": {"model": "piped"}}')

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    assert load_config(tmp_path, config_file=fifo).llm.model == "piped"
    writer.join()
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, config_file=Path("/dev/zero"))
    assert "larger than 1,000,000 bytes" in str(caught.value)
