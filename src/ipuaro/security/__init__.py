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
    "AskUser": "ipuaro.security.commands",
    "CommandDecision": "ipuaro.security.commands",
    "CommandPolicy": "ipuaro.security.commands",
    "Verdict": "ipuaro.security.commands",
    "authorize": "ipuaro.security.commands",
    "ContentRefused": "ipuaro.security.content",
    "apply_eol": "ipuaro.security.content",
    "check_text": "ipuaro.security.content",
    "conform_to": "ipuaro.security.content",
    "decode_text": "ipuaro.security.content",
    "detect_eol": "ipuaro.security.content",
    "split_lines": "ipuaro.security.content",
    "PathPolicy": "ipuaro.security.paths",
    "PathRefused": "ipuaro.security.paths",
    "ProjectPath": "ipuaro.security.paths",
    "CommandOutcome": "ipuaro.security.runner",
    "cap_output": "ipuaro.security.runner",
    "command_timeout": "ipuaro.security.runner",
    "environment_without": "ipuaro.security.runner",
    "run_shell": "ipuaro.security.runner",
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
    return getattr(importlib.import_module(module), name)
