"""The sharded pool: files stay with the process that parsed them; a dead process loses nothing."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from ipuaro.index.pipeline.indexer import SqliteOpener
from ipuaro.index.pipeline.pool import ShardedPool
from ipuaro.index.pipeline.worker import FileSummary, ParseJob
from ipuaro.store.sqlite import SqliteStore


def jobs(count: int) -> list[ParseJob]:
    return [
        ParseJob(f"src/m{i}.ts", "typescript", f"export const v{i} = {i};\n", f"h{i}", 20, 1.0)
        for i in range(count)
    ]


@pytest.mark.parametrize("pause", [0.0, 0.5])
def test_dead_shard_hands_back_its_files(tmp_path: Path, pause: float) -> None:
    store_path = tmp_path / "pool.db"
    SqliteStore(store_path, "p").close()
    all_jobs = jobs(40)
    paths = [job.path for job in all_jobs]
    parsed: list[FileSummary] = []
    with ShardedPool(2, tmp_path, paths, SqliteOpener(store_path, "p")) as pool:
        chunks = iter([all_jobs[i : i + 5] for i in range(0, 40, 5)])
        pool.parse(chunks, parsed.extend)
        assert pool.take_lost() == []
        assert sorted(s.path for s in parsed) == sorted(paths)
        held = pool.shard_paths()
        assert all(held) and sorted(held[0] + held[1]) == sorted(paths)
        pool.write(held[1][:3], {})  # an early write, queued before the crash

        os.kill(pool.shard_pid(0), signal.SIGKILL)
        time.sleep(pause)  # 0: death noticed while writing; later: noticed at submission
        lost = pool.finish({})

    assert sorted(job.path for job in lost) == sorted(held[0])
    store = SqliteStore(store_path, "p")
    assert sorted(store.file_hashes()) == sorted(held[1])  # the live shard wrote its files
    assert store.get_ast(held[1][0]) is not None
    store.close()
