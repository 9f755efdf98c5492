"""Fixtures for plan → apply: a small real project on disk, indexed by the real Indexer into a
real SQLite store, and plans built as the plan flow stores them (a PlanRecord whose
``read_files`` holds what the model read). And the planning tests' opt-in lane: ``realmodel``
tests here run only with ``-m realmodel`` (the same rule as tests/llm, which may not be
collected when only this folder runs)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.domain.edits import Reindex
from ipuaro.domain.plan import Action, Plan, PlanRecord, PlanStep, ProposedChanges
from ipuaro.edits.engine import EditEngine, EditResult
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.planning.actions import file_sha256
from ipuaro.planning.apply import PreparedApply
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.context import build_context

FILES = {
    "src/app.py": "def main():\n    return 1\n",
    "src/util.py": "def helper(x):\n    return x + 1\n",
    "README.md": "# demo\n",
    "docs/guide.md": "guide\n",
    "empty/.keep": "",
}


@dataclass
class Project:
    root: Path
    store: SqliteStore
    paths: PathPolicy

    def read(self, *rels: str) -> dict[str, str]:
        """``read_files`` as the plan flow records them for files the model read now."""
        return {rel: file_sha256((self.root / rel).read_bytes().decode()) for rel in rels}

    def snapshot(self) -> dict[str, bytes]:
        return {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
        }

    def folders(self) -> list[str]:
        return sorted(
            p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_dir()
        )


def make_project(root: Path, files: Mapping[str, str | bytes], db: Path) -> Project:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(content.encode("utf-8"))
    store = SqliteStore(db, "tests-planning")
    Indexer(root, Config(), store).index()
    return Project(root, store, PathPolicy(root, list(Config().project.protected_paths)))


@pytest.fixture
def proj(tmp_path: Path) -> Iterator[Project]:
    project = make_project(tmp_path / "project", FILES, tmp_path / "store.db")
    try:
        yield project
    finally:
        project.store.close()


def record(
    actions: Sequence[Action] = (),
    *,
    read: Mapping[str, str] | None = None,
    summary: str = "change things",
    patch: str | None = None,
    commands: Sequence[str] = (),
    steps: Sequence[PlanStep] = (),
    risks: Sequence[str] = (),
) -> PlanRecord:
    plan = Plan(
        mode="fix-plan",
        summary=summary,
        plan=tuple(steps),
        proposed_changes=ProposedChanges(tuple(actions), patch, tuple(commands)),
        risks=tuple(risks),
    )
    return PlanRecord(plan, "the request", "s1", dict(read or {}))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "realmodel" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="real-model lane: run with -m realmodel")
    for item in items:
        if "realmodel" in item.keywords and "tests/planning/" in item.nodeid:
            item.add_marker(skip)


def write_plan(
    prepared: PreparedApply,
    store: SqliteStore,
    reindex: Reindex,
    description: str,
    *,
    limit: int = 10,
    session: str = "s1",
) -> EditResult:
    """Write a prepared plan as plan apply does, through the edit engine (the one write path),
    the user having said yes (``auto_apply``)."""
    config = Config()
    config.undo.stack_size = limit
    ctx = build_context(prepared.root, config, store, reindex, session_id=session, auto_apply=True)
    return asyncio.run(EditEngine(ctx).commit(prepared.changeset(description)))
