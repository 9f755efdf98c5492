"""Where the ``ipuaro`` command starts: before click and every command are imported, so a
Ctrl+C at any moment of the start ends the way one during a run does — with ``ipuaro run
--output json|stream-json`` one result object ``reason: "aborted"`` and exit 130, otherwise
one line on stderr, never a traceback (see :mod:`ipuaro.cli.interrupted`).

Nothing but ``sys`` and ``gc`` (both built in) is imported here: the window before this
``try`` is the interpreter's own start.

The cyclic garbage collector's young generation is collected every 10,000 new container
objects instead of Python's default 700: a start creates a few hundred thousand objects that
live as long as the process (modules, classes, pydantic models) and the default walked them
well over a thousand times before the first byte — ~8 % of the CPU of ``ipuaro run -p``
(bench/README.md). Reference counting frees almost everything anyway; cycles are still
collected, at most 10,000 objects later.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence

YOUNG_GC_THRESHOLD = 10_000
"""``gc.set_threshold``'s first value for the ipuaro process (Python's default: 700)."""


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``ipuaro`` and ``python -m ipuaro``)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    young, older, oldest = gc.get_threshold()
    gc.set_threshold(max(YOUNG_GC_THRESHOLD, young), older, oldest)
    try:
        from ipuaro.cli.main import main as run_cli

        run_cli(args)
    except KeyboardInterrupt:
        from ipuaro.cli.interrupted import interrupted_by_args

        sys.exit(interrupted_by_args(args))
