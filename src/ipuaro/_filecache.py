"""The small files ipuaro keeps in its data folder to start faster — the settings cache
(``config/cache.py``) and the tool cards (``tools/catalog.py``): one JSON file per key, written
atomically and readable by the owner only, the newest few kept. Deleting the folder is always
safe: the next start rebuilds what it needs."""

from __future__ import annotations

import os
from pathlib import Path


def code_stamp(folder: Path, *, recursive: bool) -> str:
    """Every ``.py`` file in ``folder`` (and below it when ``recursive``; ``__pycache__``
    skipped) with its size and modification time, one per line, sorted: an edited checkout
    changes its code in place, and a key that holds this stamp changes with it. Raises
    :class:`OSError` when a folder cannot be listed."""
    lines: list[str] = []
    pending = [str(folder)]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if recursive and entry.name != "__pycache__":
                        pending.append(entry.path)
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    lines.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")
    return "\n".join(sorted(lines))


def store_entry(folder: Path, key: str, text: str, keep: int) -> None:
    """``folder/KEY.json`` holds ``text`` (written whole or not at all, mode 0600: the user's
    config may hold a password); only the ``keep`` newest entries stay. A folder that cannot be
    written is no error: the next start builds again."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{key}.{os.getpid()}.tmp"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, folder / f"{key}.json")
        entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for stale in entries[keep:]:
            stale.unlink(missing_ok=True)
    except OSError:
        pass
