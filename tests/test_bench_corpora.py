"""The benchmark corpora folder is named one way (``bench/corpora.py``: ``$IPUARO_CORPORA``, else
``~/.cache/ipuaro-corpora``), and the fetch script the docs name is in the repository."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"


def _corpora() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_corpora", BENCH / "corpora.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_corpora_folder_follows_ipuaro_corpora(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpora = _corpora()
    monkeypatch.setenv("IPUARO_CORPORA", str(tmp_path / "cache"))
    assert corpora.corpus("django") == tmp_path / "cache" / "Django-5.0.6"
    monkeypatch.delenv("IPUARO_CORPORA")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert corpora.corpus("rxjs") == tmp_path / ".cache" / "ipuaro-corpora" / "rxjs" / "package"


def test_the_fetch_script_the_docs_name_is_in_the_repository() -> None:
    script = REPO / "scripts" / "fetch-corpora"
    assert subprocess.run(["bash", "-n", str(script)], check=False).returncode == 0
    for doc in (REPO / "README.md", BENCH / "README.md"):
        text = doc.read_text(encoding="utf-8")
        assert "scripts/fetch-corpora" in text
        assert "/work/shared" not in text and "../shared/" not in text


def test_every_bench_names_the_folder_through_corpora_py() -> None:
    """No bench hard-codes another spelling (``/root/.cache/…``, ``Path.home() / …``)."""
    for path in BENCH.glob("*.py"):
        if path.name == "corpora.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "ipuaro-corpora" not in text and "/work/shared" not in text, path.name
    done = subprocess.run(
        [sys.executable, str(BENCH / "tools_bench.py"), "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
