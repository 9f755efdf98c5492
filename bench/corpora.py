"""Where the pinned benchmark corpora live, named one way for every bench: ``$IPUARO_CORPORA``,
else ``~/.cache/ipuaro-corpora`` (outside any repository), filled by ``scripts/fetch-corpora``
(rxjs, requests, three, django, attrs), ``bench/fetch-ts-corpora.sh`` and
``bench/fetch-lang-corpora.sh``.

Benches run as scripts (``python bench/NAME.py``), so this folder is on ``sys.path`` and they
``from corpora import …``."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
FETCH_SCRIPT = HERE.parent / "scripts" / "fetch-corpora"
ROOTS = {
    "three": "three/package",
    "rxjs": "rxjs/package",
    "django": "Django-5.0.6",
    "requests": "requests-2.32.3",
    "attrs": "attrs-24.2.0",
}
"""Each corpus of ``scripts/fetch-corpora`` under the cache folder (the ``name=root`` it prints)."""


def corpora_dir() -> Path:
    configured = os.environ.get("IPUARO_CORPORA")
    return Path(configured) if configured else Path.home() / ".cache" / "ipuaro-corpora"


def corpus(name: str) -> Path:
    """Where ``scripts/fetch-corpora`` puts corpus ``name``."""
    return corpora_dir() / ROOTS[name]


def fetch(script: Path = FETCH_SCRIPT) -> dict[str, Path]:
    """Run a fetch script (idempotent, checksums verified) and read its ``name=root`` lines."""
    env = {**os.environ, "IPUARO_CORPORA": str(corpora_dir())}
    done = subprocess.run(
        ["bash", str(script)], capture_output=True, text=True, check=True, env=env
    )
    roots: dict[str, Path] = {}
    for line in done.stdout.splitlines():
        name, sep, root = line.partition("=")
        if sep:
            roots[name.strip()] = Path(root.strip())
    return roots
