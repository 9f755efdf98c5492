"""Shared fixtures for the index tests: fixture projects copied into tmp_path, configs."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.protocol import Store
from ipuaro.store.sqlite import SqliteStore

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


def copy_fixture(name: str, destination: Path) -> Path:
    target = destination / name
    shutil.copytree(FIXTURES / name, target, symlinks=True)
    return target


@pytest.fixture
def config() -> Config:
    return Config()


@pytest.fixture
def ts_project(tmp_path: Path) -> Path:
    return copy_fixture("ts-monorepo", tmp_path)


@pytest.fixture
def py_project(tmp_path: Path) -> Path:
    return copy_fixture("py-package", tmp_path)


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "data" / "index.db", "test-project")
    yield opened
    opened.close()


def make_indexer(root: Path, store: Store, config: Config | None = None) -> Indexer:
    return Indexer(root, config or Config(), store)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``corpora`` tests run only when asked for with ``-m corpora``: they read pinned libraries
    fetched by bench/fetch-ts-corpora.sh and run node (the TypeScript compiler as judge)."""
    if "corpora" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="corpora lane: run with -m corpora")
    for item in items:
        if "corpora" in item.keywords:
            item.add_marker(skip)
