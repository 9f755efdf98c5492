"""Where the ``ipuaro`` command starts: before click and every command are imported, so a
Ctrl+C at any moment of the start ends the way one during a run does — with ``ipuaro run
--output json|stream-json`` one result object ``reason: "aborted"`` and exit 130, otherwise
one line on stderr, never a traceback (see :mod:`ipuaro.cli.interrupted`).

Nothing but ``sys``, ``gc`` and ``atexit`` (built in) is imported here: the window before this
``try`` is the interpreter's own start. A second press while the first is reported is ignored
(:func:`hold_off_ctrl_c`), and a press while the command was already exiting keeps that exit
(:func:`_exit_under_way`): neither prints a traceback or a second result.

What no program can cover is the interpreter's start before ipuaro's first line: Python's own
``site`` (a press there is CPython's "Fatal Python error: init_import_site" with a traceback)
and, for the ``ipuaro`` script pip writes, its ``import re`` before it imports this module —
about 10–35 ms after the process starts (docs/failure-behaviour.md). ``python -m ipuaro`` skips
the second.

The cyclic garbage collector's young generation is collected every 10,000 new container
objects instead of Python's default 700: a start creates a few hundred thousand objects that
live as long as the process (modules, classes, pydantic models) and the default walked them
well over a thousand times before the first byte — ~8 % of the CPU of ``ipuaro run -p``
(bench/README.md). Reference counting frees almost everything anyway; cycles are still
collected, at most 10,000 objects later.
"""

from __future__ import annotations

import atexit
import gc
import sys
from collections.abc import Callable, Sequence

EXIT_INTERRUPTED = 130
"""128 + SIGINT, as ``headless_report.EXIT_ABORTED`` (not imported: this module stays bare)."""

YOUNG_GC_THRESHOLD = 10_000
"""``gc.set_threshold``'s first value for the ipuaro process (Python's default: 700)."""


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``ipuaro`` and ``python -m ipuaro``)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    young, older, oldest = gc.get_threshold()
    gc.set_threshold(max(YOUNG_GC_THRESHOLD, young), older, oldest)
    sys.unraisablehook = quiet_presses(sys.unraisablehook)
    # Registered first, so it runs last: Python then flushes the output and stops calling
    # Python signal handlers (a press would kill the process, status -2 instead of its code)
    # before it tears the modules down; an ignored SIGINT stays ignored through that.
    atexit.register(hold_off_ctrl_c)
    try:
        from ipuaro.cli.main import main as run_cli

        run_cli(args)
    except KeyboardInterrupt as press:
        hold_off_ctrl_c()  # for good: the press is reported once, whole
        code = report_interrupt(lambda: report_by_args(args), press)
        quit_on_press(code)
        sys.exit(code)
    except SystemExit as leaving:
        hold_off_ctrl_c()
        quit_on_press(_exit_code(leaving))
        raise
    hold_off_ctrl_c()
    quit_on_press(0)


def hold_off_ctrl_c() -> Callable[[], object]:
    """Ignore Ctrl+C from now on (the first press is being reported); returns what puts the
    previous handler back. A press while ``signal`` itself loads only starts this again."""
    while True:
        try:
            import signal

            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        except KeyboardInterrupt:
            continue
        except ValueError:  # not the main thread: there is nothing to hold off
            return lambda: None
        return lambda: signal.signal(signal.SIGINT, previous)


def quiet_presses(
    previous: Callable[[sys.UnraisableHookArgs], object],
) -> Callable[[sys.UnraisableHookArgs], None]:
    """An ``sys.unraisablehook`` for a Ctrl+C that lands in a weak-reference callback or a
    ``__del__``: Python can only print it ("Exception ignored in ...", a traceback) and carry
    on as if nobody pressed. This carries on without the traceback; the next press counts.
    (Raising it again is no way out: any signal raised from here is delivered inside the hook
    itself, which Python reports as "Exception ignored in sys.unraisablehook".)"""

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            previous(unraisable)

    return hook


def report_interrupt(report: Callable[[], int], press: BaseException) -> int:
    """``report()`` (which imports and prints the interrupted end; its exit code) with further
    presses ignored meanwhile, so a second Ctrl+C cannot cut it short with a traceback. A
    ``press`` that came while the command was already exiting reports nothing: the exit it
    interrupted stands (:func:`_exit_under_way`)."""
    restore = hold_off_ctrl_c()
    try:
        leaving = _exit_under_way(press)
        return _exit_code(leaving) if leaving is not None else report()
    finally:
        restore()


def report_by_args(args: Sequence[str]) -> int:
    """The interrupted end for a command line not parsed yet (the reporter loads only now)."""
    from ipuaro.cli.interrupted import interrupted_by_args

    return interrupted_by_args(args)


def quit_on_press(code: int) -> Callable[[], object]:
    """What is left is the process ending: closing the event loop, waiting for worker threads
    (an index run finishing in its thread), exit handlers. A press now ends it at once,
    quietly, with ``code`` — never a second report, never "Exception ignored in ..." with a
    traceback. Returns what puts the previous handler back."""
    import os
    import signal
    import warnings
    from contextlib import suppress

    if code == EXIT_INTERRUPTED:
        # A connection the press cancelled before it was awaited (httpx/anyio) is no news.
        warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)

    def quit_now(signum: int, frame: object) -> None:
        for stream in (sys.stdout, sys.stderr):
            # closed, or pressed in the middle of a write: there is nothing more to save
            with suppress(OSError, ValueError, RuntimeError):
                stream.flush()
        os._exit(code)

    try:
        previous = signal.signal(signal.SIGINT, quit_now)
    except ValueError:  # not the main thread
        return lambda: None
    return lambda: signal.signal(signal.SIGINT, previous)


def _exit_code(leaving: SystemExit) -> int:
    """The status ``leaving`` ends the process with (None is 0; a message, 1)."""
    if leaving.code is None:
        return 0
    return leaving.code if isinstance(leaving.code, int) else 1


def _exit_under_way(press: BaseException) -> SystemExit | None:
    """The exit the command was already making when this press came (it interrupted the way
    out, e.g. a ``with`` block's exit): that exit stands, with its code and its one report."""
    seen = press.__context__
    for _ in range(100):  # a chain of contexts is short; never follow a cycle for long
        if seen is None or isinstance(seen, SystemExit):
            return seen
        seen = seen.__context__
    return None
