"""typescript-language-server (npm) as the TypeScript backend: installed once into a cache
folder by npm at pinned versions; skipped, saying why, where npm or the registry is missing."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ipuaro.config.schema import Config
from ipuaro.index.lsp import LanguageServers
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.store.sqlite import SqliteStore
from ipuaro.tools.base import ToolContext, ToolOutcome
from ipuaro.tools.builtin.find_references import FindReferences, FindReferencesArgs
from ipuaro.tools.context import build_context

PACKAGES = ("typescript-language-server@4.3.4", "typescript@5.7.2")

JOBS = """\
export class Job {
  run(): number {
    return 1;
  }
}

export class Task {
  run(): number {
    return 2;
  }
}
"""

MAIN = """\
import { Job, Task } from "./jobs";

export function go(job: Job, task: Task): number {
  return job.run() + task.run();
}

export function again(): number {
  return new Job().run();
}
"""


def _server_command() -> str:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "ipuaro-lsp"
    folder = cache / ("typescript-" + "-".join(p.rsplit("@", 1)[1] for p in PACKAGES))
    binary = folder / "node_modules" / ".bin" / "typescript-language-server"
    if binary.exists():
        return f"{binary} --stdio"
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the TypeScript language-server test needs it")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder), *PACKAGES],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0 or not binary.exists():
        pytest.skip(f"npm could not install {' '.join(PACKAGES)}: {done.stderr.strip()[-300:]}")
    return f"{binary} --stdio"


@pytest.fixture
def ctx(tmp_path: Path) -> Iterator[ToolContext]:
    command = _server_command()
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "jobs.ts").write_text(JOBS, encoding="utf-8")
    (root / "src" / "main.ts").write_text(MAIN, encoding="utf-8")
    (root / "tsconfig.json").write_text(
        '{"compilerOptions": {"strict": true}, "include": ["src"]}', encoding="utf-8"
    )
    config = Config()
    store = SqliteStore(tmp_path / "store.db", "tests-lsp-ts")
    Indexer(root, config, store).index()
    servers = LanguageServers(root, {"typescript": command}, store)
    context = build_context(root, config, store, lambda changed, deleted: None)
    context = context.replace(language_servers=servers)
    try:
        yield context
    finally:
        servers.close()
        store.close()


def _references(ctx: ToolContext, symbol: str) -> ToolOutcome:
    args = FindReferencesArgs(symbol=symbol)
    return asyncio.run(FindReferences().execute(args, ctx))


@pytest.mark.lsp
def test_typescript_language_server_tells_the_two_run_methods_apart(ctx: ToolContext) -> None:
    deadline = time.monotonic() + 90
    answer = _references(ctx, "Job.run")  # starts the server: the index answers
    assert answer.success and answer.data["source"] == "index"
    while answer.data["source"] != "language server":  # it loads its project meanwhile
        if time.monotonic() > deadline:
            pytest.fail(f"the server never answered within 90 s: {answer.content}")
        time.sleep(0.5)
        answer = _references(ctx, "Job.run")

    lines = {(r["path"], r["line"], r["column"]) for r in answer.data["references"]}
    assert lines == {("src/jobs.ts", 2, 3), ("src/main.ts", 4, 14), ("src/main.ts", 8, 20)}
    task = _references(ctx, "Task.run")
    assert {(r["path"], r["line"], r["column"]) for r in task.data["references"]} == {
        ("src/jobs.ts", 8, 3),
        ("src/main.ts", 4, 27),
    }


@pytest.mark.lsp
def test_the_repositorys_own_typescript_is_never_run(tmp_path: Path) -> None:
    """typescript-language-server runs the ``tsserver.js`` of the workspace's
    ``node_modules/typescript`` when it finds one: a repository's code. ipuaro names the
    TypeScript installed beside the server instead, so a planted one never runs."""
    command = _server_command()
    marker = tmp_path / "ran"
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "jobs.ts").write_text(JOBS, encoding="utf-8")
    planted = root / "node_modules" / "typescript"
    (planted / "lib").mkdir(parents=True)
    (planted / "package.json").write_text(
        '{"name": "typescript", "version": "5.7.2", "main": "lib/typescript.js"}',
        encoding="utf-8",
    )
    payload = f"require('fs').writeFileSync({json.dumps(str(marker))}, 'x'); process.exit(1);"
    for name in ("tsserver.js", "typescript.js", "tsserverlibrary.js"):
        (planted / "lib" / name).write_text(payload, encoding="utf-8")
    store = SqliteStore(tmp_path / "store.db", "tests-lsp-ts")
    Indexer(root, Config(), store).index()
    servers = LanguageServers(root, {"typescript": command}, store)
    try:
        server = servers.servers["typescript"]
        servers.references("src/jobs.ts", 2, 3, "run")  # starts it
        ready = server.wait_ready(60)
        assert not marker.exists(), "the repository's node_modules/typescript ran"
        assert ready, server.describe()
    finally:
        servers.close()
        store.close()


def test_a_typescript_server_with_no_typescript_beside_it_is_not_started(tmp_path: Path) -> None:
    """Without a TypeScript of its own the server would take the project's: it is not started,
    and the reason names what to install; the index answers."""
    package = tmp_path / "global" / "node_modules" / "typescript-language-server"
    (package / "lib").mkdir(parents=True)
    marker = tmp_path / "ran"
    cli = package / "lib" / "cli.mjs"
    cli.write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    cli.chmod(0o755)
    binary = tmp_path / "global" / "bin" / "typescript-language-server"
    binary.parent.mkdir()
    binary.symlink_to(cli)
    root = tmp_path / "proj"
    root.mkdir()
    servers = LanguageServers(root, {"typescript": f"{binary} --stdio"}, None)  # type: ignore[arg-type]
    try:
        server = servers.servers["typescript"]
        assert not server.wait_ready(5)
        assert "no TypeScript installed beside" in server.describe()
        assert not marker.exists()
    finally:
        servers.close()
