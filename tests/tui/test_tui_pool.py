"""Issue 21 item 1: inside Textual ``sys.stderr`` is a capture whose ``fileno()`` is -1, and
multiprocessing passed it to the helper processes it starts for a ``forkserver`` pool ("bad
value(s) in fds_to_keep"): the TUI could not index 48 files or more.

The reproduction runs in a fresh interpreter: in this one an earlier test may already have
started multiprocessing's resource tracker and forkserver, which hides the fault."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.loader import load_config
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.factory import open_store
from tests.tui.conftest import MakeApp, chat_text, ready, settle, submit, until

REPRO = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from textual.app import App
    from ipuaro.config.loader import load_config
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.factory import open_store

    class IndexInTextual(App[str]):
        def on_mount(self) -> None:
            self.run_worker(self.index, thread=True)

        def index(self) -> None:
            root = Path(sys.argv[1])
            config = load_config(root)
            store = open_store(config, root)
            try:
                summary = Indexer(root, config, store).index(workers=2)
                result = f"parsed={summary.parsed} errors={summary.parse_errors}"
            except Exception as error:
                result = f"failed: {error}"
            finally:
                store.close()
            self.call_from_thread(self.exit, result)

    print(IndexInTextual().run(headless=True))
    """
)


def test_a_textual_app_indexes_a_project_of_60_files_in_the_pool(tmp_path: Path) -> None:
    root = tmp_path / "sixty"
    (root / "pkg").mkdir(parents=True)
    for n in range(60):
        (root / "pkg" / f"m{n}.py").write_text(f"def f{n}(x):\n    return x + {n}\n")
    env_dirs = {"IPUARO_DATA_DIR": str(tmp_path / "data"), "IPUARO_CONFIG_DIR": str(tmp_path)}
    script = tmp_path / "repro.py"
    script.write_text(REPRO, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script), str(root)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env_dirs},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "parsed=60 errors=0", done.stdout + done.stderr


MANY = 60
"""Files to parse at once: more than ``POOL_MIN_FILES`` (48), so the index parses in the pool."""


def write_modules(root: Path, folder: str, suffix: str) -> None:
    (root / folder).mkdir(parents=True, exist_ok=True)
    for n in range(MANY):
        text = f"def {suffix}_{n}(value):\n    return value + {n}\n"
        (root / folder / f"m{n}.py").write_text(text, encoding="utf-8")


def defined(project: Path, name: str) -> bool:
    store = open_store(load_config(project), project)
    try:
        return bool(store.find_definitions(name))
    finally:
        store.close()


@pytest.fixture
def big_project(project: Path) -> Path:
    write_modules(project, "pkg", "first")
    return project


async def test_the_tui_opens_reindexes_and_watches_a_project_of_60_files(
    make_app: MakeApp, big_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ipuaro.index.pipeline import pool

    pools: list[int] = []
    start = pool.ShardedPool.__init__

    def counted(self: pool.ShardedPool, *args: Any) -> None:
        pools.append(len(pools))
        start(self, *args)

    monkeypatch.setattr(pool.ShardedPool, "__init__", counted)
    app = make_app(overrides={"watchdog.enabled": True, "watchdog.debounceMs": 200})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert "indexed 65 files · 64 parsed" in chat_text(app)
        assert app.workspace is not None and pools == [0]

        # 60 files change at once, as in a branch switch: the folder is swapped in two
        # renames, so the watcher sees one batch and parses it in the pool.
        await until(pilot, app.workspace.watch_ready.is_set)
        write_modules(tmp_path / "staging", "pkg", "second")
        (big_project / "pkg").rename(tmp_path / "old-pkg")
        (tmp_path / "staging" / "pkg").rename(big_project / "pkg")
        await until(pilot, lambda: defined(big_project, "second_59"), timeout=120)
        assert not defined(big_project, "first_0")
        assert "index update failed" not in chat_text(app)
        assert pools == [0, 1]

        await app.workspace.stop_watching()  # /reindex, not the watcher, picks up the next
        write_modules(big_project, "pkg", "third")
        await submit(pilot, "/reindex")
        await settle(pilot)
        assert "indexed 65 files · 60 parsed · 5 unchanged" in chat_text(app)
        assert pools == [0, 1, 2]
        assert defined(big_project, "third_59")


async def test_a_failed_watcher_batch_is_said_in_the_chat_and_retried_with_the_next(
    make_app: MakeApp, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Indexer.update_paths
    failures = ["the store is locked"]

    def update_paths(self: Indexer, changed: list[str], deleted: list[str]) -> object:
        if failures:
            raise RuntimeError(failures.pop())
        return real(self, changed, deleted)

    app = make_app(overrides={"watchdog.enabled": True, "watchdog.debounceMs": 200})
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.workspace is not None
        await until(pilot, app.workspace.watch_ready.is_set)
        monkeypatch.setattr(Indexer, "update_paths", update_paths)
        (project / "src" / "lost.ts").write_text("export const lost = 1;\n", "utf-8")
        await until(pilot, lambda: "index update failed" in chat_text(app))
        text = chat_text(app)
        assert "the store is locked" in text and "1 changed file(s) are not in the index" in text
        assert "src/lost.ts" not in app.known_paths()

        (project / "src" / "next.ts").write_text("export const next = 1;\n", "utf-8")
        await until(pilot, lambda: "src/next.ts" in app.known_paths())
        assert "src/lost.ts" in app.known_paths()  # the failed batch went with the next one
