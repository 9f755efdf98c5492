"""Where the pinned benchmark corpora live, named one way for every bench: ``$IPUARO_CORPORA``,
else ``~/.cache/ipuaro-corpora`` (outside any repository), filled by ``bench/fetch-corpora.sh``
(three, rxjs, django), ``bench/fetch-ts-corpora.sh`` and ``bench/fetch-lang-corpora.sh``.

Benches run as scripts (``python bench/NAME.py``), so this folder is on ``sys.path`` and they
``from corpora import …``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
FETCH_SCRIPT = HERE / "fetch-corpora.sh"
ROOTS = {"three": "three/package", "rxjs": "rxjs/package", "django": "Django-5.0.6"}
"""Each corpus of ``fetch-corpora.sh`` under the cache folder (the ``name=root`` it prints)."""


def corpora_dir() -> Path:
    configured = os.environ.get("IPUARO_CORPORA")
    return Path(configured) if configured else Path.home() / ".cache" / "ipuaro-corpora"


def corpus(name: str) -> Path:
    """Where ``fetch-corpora.sh`` puts corpus ``name`` (three, rxjs, django)."""
    return corpora_dir() / ROOTS[name]


def fetch(script: Path = FETCH_SCRIPT) -> dict[str, Path]:
    """Run a fetch script (idempotent, checksums verified) and read its ``name=root`` lines."""
    done = subprocess.run(
        ["bash", str(script), str(corpora_dir())], capture_output=True, text=True, check=True
    )
    roots: dict[str, Path] = {}
    for line in done.stdout.splitlines():
        name, sep, root = line.partition("=")
        if sep:
            roots[name.strip()] = Path(root.strip())
    return roots
