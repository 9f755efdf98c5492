"""A small Python project indexed into a real SQLite store, and the real basedpyright
language server (the ``test`` extras install it from PyPI; it brings its own node)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.lsp import LanguageServers
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ToolContext
from ipuaro.tools.context import build_context

JOBS = """\
class Job:
    def run(self) -> int:
        return 1


class Task:
    def run(self) -> int:
        return 2
"""

MAIN = """\
from pkg.jobs import Job, Task


def go(job: Job, task: Task) -> int:
    return job.run() + task.run()


def again() -> int:
    return Job().run()
"""

HELPERS = """\
def helper(value):
    return value


for looped in range(3):
    pass
"""

USES = """\
from pkg.helpers import helper, looped


def use() -> int:
    return helper(2) + looped
"""


def basedpyright() -> str:
    """The langserver beside this Python (the venv's bin) or on PATH."""
    beside = Path(sys.executable).parent / "basedpyright-langserver"
    found = str(beside) if beside.exists() else shutil.which("basedpyright-langserver")
    if found is None:
        pytest.skip(
            "basedpyright-langserver is not installed: pip install -e '.[test]' installs it "
            "(PyPI package basedpyright)"
        )
    return found


@dataclass
class Project:
    root: Path
    store: SqliteStore
    indexer: Indexer
    servers: LanguageServers
    ctx: ToolContext

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def make_project(tmp_path: Path, command: str | bool, **options: float) -> Iterator[Project]:
    root = tmp_path / "proj"
    for rel, text in {
        "pkg/__init__.py": "",
        "pkg/jobs.py": JOBS,
        "pkg/main.py": MAIN,
        "pkg/helpers.py": HELPERS,
        "pkg/uses.py": USES,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    config = Config()
    config.index.language_servers = {"python": command}
    store = SqliteStore(tmp_path / "store.db", "tests-lsp")
    indexer = Indexer(root, config, store)
    indexer.index()
    servers = LanguageServers(root, config.index.language_servers, store, **options)
    ctx = build_context(root, config, store, lambda changed, deleted: None)
    ctx = ctx.replace(language_servers=servers)
    try:
        yield Project(root, store, indexer, servers, ctx)
    finally:
        servers.close()
        store.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``lsp`` tests (a basedpyright start each, ~5 s) run only with ``-m lsp``; the one
    unmarked real-server test keeps the default suite honest."""
    if "lsp" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="language-server lane: run with -m lsp tests/index/lsp")
    for item in items:
        if item.get_closest_marker("lsp") is not None:
            item.add_marker(skip)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Project]:
    yield from make_project(tmp_path, f"{basedpyright()} --stdio")
