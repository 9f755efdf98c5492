"""Where the ``ipuaro`` command starts: before click and every command are imported, so a
Ctrl+C at any moment of the start ends the way one during a run does — with ``ipuaro run
--output json|stream-json`` one result object ``reason: "aborted"`` and exit 130, otherwise
one line on stderr, never a traceback (see :mod:`ipuaro.cli.interrupted`).

Nothing but ``sys`` is imported here: the window before this ``try`` is the interpreter's own
start.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``ipuaro`` and ``python -m ipuaro``)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    try:
        from ipuaro.cli.main import main as run_cli

        run_cli(args)
    except KeyboardInterrupt:
        from ipuaro.cli.interrupted import interrupted_by_args

        sys.exit(interrupted_by_args(args))
