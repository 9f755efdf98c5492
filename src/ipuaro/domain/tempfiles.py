"""ipuaro's own temporary files (atomic writes) and whether the process behind one (or behind
a pending undo entry) still runs: a temp file is never indexed, and one whose writer is gone
is stale.

A write goes to ``.{name}.ipuaro-{pid}-{12 hex}.tmp`` beside the target. The writer's process
id in the name tells a later run whether the file is still being written (the writer lives)
or was left by a kill (it does not). Names of the older form without a pid are stale too: no
writer of that version can still be running once this one indexes the project.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path

_TEMP_NAME = re.compile(r"\..+\.ipuaro-(?:(?P<pid>\d+)-)?[0-9a-f]{12}\.tmp")


def temp_path(target: Path) -> Path:
    """A fresh temp file name beside ``target``, owned by this process."""
    return target.parent / f".{target.name}.ipuaro-{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp"


def is_temp_name(name: str) -> bool:
    """Whether a file name (no folder) is one of ipuaro's temp files."""
    return _TEMP_NAME.fullmatch(name) is not None


def writer_alive(name: str) -> bool:
    """Whether the process that writes the temp file ``name`` still runs."""
    match = _TEMP_NAME.fullmatch(name)
    if match is None or match["pid"] is None:
        return False
    return process_alive(int(match["pid"]))


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (this process counts; so does one we may not signal)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's live process, or a pid we cannot ask about: leave it
    return True
