"""The persistent shell's wire protocol: the line it is sent per call, and the status report
it writes back on its FIFO (see :mod:`ipuaro.security.process.persistent_shell`).

Wire protocol, one line per call on the shell's stdin::

    { eval $'COMMAND\\n'
    } </dev/null; __ipuaro_rc=$?; { builtin printf 'TOKEN:rc\\0$PWD\\0physical\\0' ...; } >FIFO

- the command reads ``/dev/null``, never the pipe the shell reads its commands from;
- its output (stdout and stderr, merged) arrives on the shell's stdout pipe, capped like
  :func:`~ipuaro.security.process.runner.run_shell`'s;
- its end, exit code and the shell's directory arrive on a private FIFO, tagged with a token
  made for this call (split in two in the line, so even ``set -v`` never shows it whole): output
  that looks like the protocol is only output. When the tag arrives, the output pipe is read
  empty — everything the command wrote is in it by then.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ABORT_TRAP = "'(( ${#FUNCNAME[@]} )) && exit 130; break 999 2>/dev/null || exit 130'"
"""The shell's ``USR1`` trap while a command runs. A timeout or an interrupt sends ``USR1``,
then kills the running job: when the job is gone bash runs the trap before the next command of
the list, and ``break`` leaves the loop the command runs in — the rest of the list never runs
(``sleep 100; rm x`` does not go on to ``rm``). Inside a function ``break`` cannot leave it, so
the shell exits instead (and is replaced)."""


@dataclass
class Status:
    """What the shell reported after a command: its exit code and the shell's directory."""

    exit_code: int
    logical: str
    physical: str


def bash_quote(text: str) -> str:
    """``text`` as one bash ``$'...'`` word on one line (newlines and controls escaped)."""
    out = ["$'"]
    for char in text:
        code = ord(char)
        if char in "\\'":
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(char)
    out.append("'")
    return "".join(out)


def command_line(command: str, token: str, fifo: Path | None, home: Path | None) -> str:
    """The one line that runs ``command`` and reports, tagged with ``token``, on ``fifo``;
    with ``home``, the shell first goes back there."""
    half = len(token) // 2
    cd = "" if home is None else f"builtin cd -- {bash_quote(str(home))} 2>/dev/null; "
    code = bash_quote(command + "\n")
    report = (
        f"{{ builtin printf '%s%s:%s\\0%s\\0%s\\0' {token[:half]} {token[half:]} "
        '"$__ipuaro_rc" "$PWD" "$(builtin pwd -P 2>/dev/null)"; '
        f"}} >{bash_quote(str(fifo))} 2>/dev/null"
    )
    # `jobs` first: it takes the notices of jobs stopped after the last call, which bash
    # would print into this command's output. The one-turn loop is what a stop breaks out
    # of (see ABORT_TRAP).
    return (
        f"{cd}{{ builtin jobs; }} >/dev/null 2>&1; builtin trap {ABORT_TRAP} USR1; "
        f"for __ipuaro_once in 1; do eval {code}; done </dev/null; __ipuaro_rc=$?; "
        f"builtin trap - USR1; {report}\n"
    )


def take_status(buffer: bytearray, tag: bytes) -> Status | None:
    """The report tagged ``tag`` once ``buffer`` holds all of it (the buffer is then
    emptied); None while it has not arrived whole."""
    at = buffer.find(tag)
    if at < 0:
        return None
    fields = bytes(buffer[at + len(tag) :]).split(b"\0")
    if len(fields) < 4:
        return None
    del buffer[:]
    code, logical, physical = (f.decode("utf-8", "surrogateescape") for f in fields[:3])
    return Status(int(code) if code.isdigit() else 1, logical, physical)
