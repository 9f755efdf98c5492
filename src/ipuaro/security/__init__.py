"""Security policy: which paths the agent may touch, which commands may run, what text may be
written, and how commands are executed.

- :mod:`~ipuaro.security.paths` — :class:`PathPolicy` resolves paths inside the project root
  (:class:`PathRefused` otherwise) and knows protected and secret files.
- :mod:`~ipuaro.security.commands` — :class:`CommandPolicy` decides allow / ask / deny for a
  command line, segment by segment; :func:`authorize` settles ``ask`` with the user.
- :mod:`~ipuaro.security.content` — :func:`check_text` (NUL, pseudo-binary, UTF-8) and EOL
  helpers that keep a file's line endings.
- :mod:`~ipuaro.security.runner` — :func:`run_shell`: process group, timeout, cancel, capped output.
- :mod:`~ipuaro.security.sandbox` — :class:`SandboxProfile` and :func:`sandboxed_argv`: the
  Landlock sandbox (:mod:`~ipuaro.security.landlock`) every command the model runs goes through;
  the API script tools, hooks and MCP servers will reuse.

Exceptions::

    PathRefused       a path outside the project, disguised, or protected
    ContentRefused    text that is binary-like or not UTF-8
    ShellSyntaxError  (internal) a command that does not parse; surfaces as a ``deny`` decision

Names are re-exported lazily so importing the package costs nothing until one is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ipuaro.security.commands import (
        AskUser,
        CommandDecision,
        CommandPolicy,
        Verdict,
        authorize,
    )
    from ipuaro.security.content import (
        ContentRefused,
        apply_eol,
        check_text,
        conform_to,
        decode_text,
        detect_eol,
        split_lines,
    )
    from ipuaro.security.paths import PathPolicy, PathRefused, ProjectPath
    from ipuaro.security.runner import (
        CommandOutcome,
        cap_output,
        command_timeout,
        environment_without,
        run_shell,
    )

_LOCATIONS = {
    "AskUser": "commands",
    "CommandDecision": "commands",
    "CommandPolicy": "commands",
    "Verdict": "commands",
    "authorize": "commands",
    "ContentRefused": "content",
    "apply_eol": "content",
    "check_text": "content",
    "conform_to": "content",
    "decode_text": "content",
    "detect_eol": "content",
    "split_lines": "content",
    "PathPolicy": "paths",
    "PathRefused": "paths",
    "ProjectPath": "paths",
    "CommandOutcome": "runner",
    "cap_output": "runner",
    "command_timeout": "runner",
    "environment_without": "runner",
    "run_shell": "runner",
}

__all__ = [
    "AskUser",
    "CommandDecision",
    "CommandOutcome",
    "CommandPolicy",
    "ContentRefused",
    "PathPolicy",
    "PathRefused",
    "ProjectPath",
    "Verdict",
    "apply_eol",
    "authorize",
    "cap_output",
    "check_text",
    "command_timeout",
    "conform_to",
    "decode_text",
    "detect_eol",
    "environment_without",
    "run_shell",
    "split_lines",
]


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"ipuaro.security.{module}"), name)
