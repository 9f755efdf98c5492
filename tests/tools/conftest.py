"""The fixture project (TS + JS + Python) copied into tmp_path, made a git repository, indexed
by the real indexer into a real SQLite store, with a ToolContext and the default registry."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.schema import Config
from ipuaro.domain import ToolResult
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ToolContext
from ipuaro.tools.context import build_context
from ipuaro.tools.registry import ToolRegistry

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "tools_app"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.com",
    "GIT_COMMITTER_NAME": "Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.com",
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


@dataclass
class Project:
    root: Path
    store: SqliteStore
    indexer: Indexer
    ctx: ToolContext
    registry: ToolRegistry

    async def call(self, tool: str, /, **arguments: Any) -> ToolResult:
        return await self.registry.call(tool, arguments, self.ctx, call_id="t1")

    async def ok(self, tool: str, /, **arguments: Any) -> ToolResult:
        result = await self.call(tool, **arguments)
        assert result.success, result.error
        return result

    def data(self, result: ToolResult) -> Any:
        assert result.details is not None
        return result.details["data"]


def make_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for key, value in GIT_IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    root = tmp_path / "tools_app"
    shutil.copytree(FIXTURE, root)
    (root / ".env").write_text("API_KEY=fixture-not-a-real-secret\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixture")
    config = Config()
    store = SqliteStore(tmp_path / "data" / "store.db", "tests-tools_app")
    indexer = Indexer(root, config, store)
    indexer.index()
    ctx = build_context(
        root,
        config,
        store,
        lambda changed, deleted: indexer.update_paths(changed, deleted),
        session_id="test",
        auto_apply=True,
    )
    return Project(root, store, indexer, ctx, ToolRegistry.default())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    made = make_project(tmp_path, monkeypatch)
    yield made
    made.store.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``corpora`` tests run only when asked for with ``-m corpora`` (they need a corpus fetched
    as bench/README.md says, and fail when it is missing); otherwise they are deselected, so no
    machine skips them silently."""
    if "corpora" in (config.getoption("markexpr", "") or ""):
        return
    chosen = [item for item in items if "corpora" not in item.keywords]
    if len(chosen) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if "corpora" in i.keywords])
        items[:] = chosen
