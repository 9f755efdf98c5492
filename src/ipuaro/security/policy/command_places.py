"""``cd`` (and ``trap USR1``) in a persistent shell: the directory outlives the command, so it
stays in the project.

One-shot commands may ``cd`` anywhere (the process ends, and every path after the ``cd`` is
judged from where it leads). A persistent shell keeps its directory for the next call, so there
a ``cd`` or ``pushd`` out of the project is refused, and so are the ones whose target only run
time knows for sure: bare ``cd`` (the home folder), ``cd -`` (``$OLDPWD``), ``cd ~``. A target
that is a symlink is judged by where it leads now. A ``cd`` refused is one that leaves from every
place the shell may be in at that point; one that leaves only on some branch (``cd src || true;
cd ..``), or through a symlink the same command makes, is caught after the call: the shell is
sent back to the project root and the model is told.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ipuaro.security.policy.command_findings import Where
from ipuaro.security.shell.shell_syntax import Word

if TYPE_CHECKING:
    from ipuaro.security.policy.command_check import Analysis

__all__ = ["STACK_INDEX", "check_cd", "check_trap"]

STACK_INDEX = re.compile(r"[+-]\d+")
"""``pushd +2``: a place already on the directory stack (all checked on the way in)."""
_STOP_SIGNALS = frozenset({"USR1", "SIGUSR1", "10"})
"""The signal ipuaro stops a persistent shell's command with (its trap is ipuaro's)."""
_STAY = (
    "the shell keeps its working directory between commands, so it stays inside the project; "
    "name outside paths directly instead (`ls /etc`)"
)


def check_cd(analysis: Analysis, name: str, operands: list[Word], where: Where) -> bool:
    """False after refusing a ``cd``/``pushd`` that may leave the project."""
    if not operands:
        if name == "cd":
            analysis.add("deny", f"`cd` alone goes to the home folder; {_STAY}", where)
            return False
        return True  # pushd alone swaps the two top places of the stack
    target = operands[0]
    text = target.text
    if text == "-":
        analysis.add("deny", f"`{name} -` goes back to a place only run time knows; {_STAY}", where)
        return False
    if name == "pushd" and STACK_INDEX.fullmatch(text):
        return True
    if target.tilde or text.startswith("~"):
        analysis.add("deny", f"`{name} {text}` goes to a home folder; {_STAY}", where)
        return False
    if target.dynamic:
        return True  # judged like any run-time directory; the shell is checked after the call
    candidates = analysis.places.candidates(text)
    if all(analysis.paths.inside(candidate) is None for candidate in candidates):
        analysis.add("deny", f"`{name} {text}` leaves the project; {_STAY}", where)
        return False
    # Some branch may still leave (`cd src || true; cd ..`): what it writes is judged from
    # every place, and the shell is checked and sent home after the call.
    return True


def check_trap(analysis: Analysis, args: list[Word], where: Where) -> bool:
    """False after refusing a ``trap`` on ``USR1``: in a persistent shell that trap is how a
    timeout stops the rest of a command, so a command may not replace or ignore it."""
    signals = [w for w in args[1:] if not w.text.startswith("-")] if args else []
    if any(w.dynamic or w.text.upper() in _STOP_SIGNALS for w in signals):
        analysis.add(
            "deny",
            "`trap` on USR1: ipuaro stops commands in the persistent shell with that signal",
            where,
        )
        return False
    return True
