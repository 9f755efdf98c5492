"""The writer against a real process that swaps a folder for a symlink in a loop.

``d/`` flips between a plain folder and ``d -> ../outside`` while the model's tools create,
overwrite and delete ``d/secret.txt`` hundreds of times: whatever the timing, nothing outside
the project is written or deleted and no temp file lands there (issue 22, road 4).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ipuaro.tools.registry import ToolRegistry

from .conftest import EditEnv

FLIPPER = """
import os, sys
os.chdir(sys.argv[1])
print("ready", flush=True)
while True:
    try:
        os.rename("d", "d.real")
        os.symlink("../outside", "d")
        os.unlink("d")
        os.rename("d.real", "d")
    except OSError:
        pass
"""
ROUNDS = 300


async def test_tools_never_write_or_delete_through_a_flipping_symlink(
    env: EditEnv, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("the user's own file\n")
    (env.root / "d").mkdir()
    registry = ToolRegistry.default()
    flipper = subprocess.Popen(
        [sys.executable, "-c", FLIPPER, str(env.root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert flipper.stdout is not None and flipper.stdout.readline() == "ready\n"
        for n in range(ROUNDS):
            for tool, arguments in (
                ("create_file", {"path": "d/secret.txt", "content": f"model text {n}\n"}),
                ("delete_file", {"path": "d/secret.txt"}),
            ):
                await registry.call(tool, arguments, env.ctx, call_id=f"c{n}")
            assert flipper.poll() is None, "the flipping process died"
    finally:
        flipper.kill()
        flipper.wait()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert secret.read_text() == "the user's own file\n"
