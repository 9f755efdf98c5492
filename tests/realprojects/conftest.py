"""The real-projects lane: pinned public projects, fetched once into a cache outside the
repository by ``scripts/fetch-corpora`` (rxjs 7.8.1 from npm, requests 2.32.3's sdist from PyPI;
sha256 checked), copied into ``tmp_path`` for each test (tests change them) and made a git
repository there. Runs by default, in every CI run: a corpus that cannot be fetched fails the
lane, it is never skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FETCH = REPO / "scripts" / "fetch-corpora"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Lane",
    "GIT_AUTHOR_EMAIL": "lane@example.com",
    "GIT_COMMITTER_NAME": "Lane",
    "GIT_COMMITTER_EMAIL": "lane@example.com",
}
LANE = ("rxjs", "requests")

RealProject = Callable[[str], Path]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **GIT_ENV},
    )
    return done.stdout


@pytest.fixture(scope="session")
def corpora() -> dict[str, Path]:
    """name → the unpacked project in the cache (fetched on the first run)."""
    done = subprocess.run(
        [str(FETCH), *LANE],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHON": sys.executable},
    )
    if done.returncode != 0:
        pytest.fail(f"scripts/fetch-corpora {' '.join(LANE)} failed:\n{done.stderr}", False)
    roots = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return {name: Path(roots[name]) for name in LANE}


@pytest.fixture
def real_project(tmp_path: Path, corpora: dict[str, Path]) -> RealProject:
    """``real_project(name)``: a fresh copy of the corpus in tmp_path, committed on ``main``."""

    def make(name: str) -> Path:
        root = tmp_path / "projects" / name
        shutil.copytree(corpora[name], root, symlinks=True)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"{name} as published")
        return root

    return make


def lane_env(tmp_path: Path, model_url: str) -> dict[str, str]:
    """The environment of an ipuaro process of the lane: its own data and config folders."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(GIT_ENV)
    env.update(
        {
            "IPUARO_DATA_DIR": str(tmp_path / "data"),
            "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
            "IPUARO_LLM__BASE_URL": model_url,
            "IPUARO_LLM__CONTEXT_WINDOW": "32768",
            "IPUARO_LLM__TIMEOUT": "30",
            "PYTHONPATH": str(REPO),
        }
    )
    return env
