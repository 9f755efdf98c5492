"""Security policy: which paths the agent may touch, which commands may run, what text may be
written, and how commands are executed.

- :mod:`~ipuaro.security.policy.paths` — :class:`PathPolicy` resolves paths inside the project root
  (:class:`PathRefused` otherwise) and knows protected and secret files.
- :mod:`~ipuaro.security.policy.commands` — :class:`CommandPolicy` decides allow / ask / deny for a
  command line, segment by segment; :func:`authorize` settles ``ask`` with the user.
- :mod:`~ipuaro.security.policy.content` — :func:`check_text` (NUL, pseudo-binary, UTF-8) and EOL
  helpers that keep a file's line endings.
- :mod:`~ipuaro.security.process.runner` — :func:`run_shell`: process group, timeout, cancel, capped
  output.
- :mod:`~ipuaro.security.sandboxing.sandbox` — :class:`SandboxProfile` and :func:`sandboxed_argv`:
  the Landlock sandbox (:mod:`~ipuaro.security.sandboxing.landlock`) every command the model runs
  goes through; the API script tools, hooks and MCP servers will reuse.

Exceptions::

    PathRefused       a path outside the project, disguised, or protected
    ContentRefused    text that is binary-like or not UTF-8
    ShellSyntaxError  (internal) a command that does not parse; surfaces as a ``deny`` decision

Names are re-exported lazily so importing the package costs nothing until one is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro._lazy import lazy_exports

if TYPE_CHECKING:
    from ipuaro.security.policy.commands import (
        AskUser,
        CommandDecision,
        CommandPolicy,
        Verdict,
        authorize,
    )
    from ipuaro.security.policy.content import (
        ContentRefused,
        apply_eol,
        check_text,
        conform_to,
        decode_text,
        detect_eol,
        split_lines,
    )
    from ipuaro.security.policy.paths import PathPolicy, PathRefused, ProjectPath
    from ipuaro.security.process.runner import (
        CommandOutcome,
        cap_output,
        command_timeout,
        environment_without,
        run_shell,
    )

_LOCATIONS = {
    "AskUser": "ipuaro.security.policy.commands",
    "CommandDecision": "ipuaro.security.policy.commands",
    "CommandPolicy": "ipuaro.security.policy.commands",
    "Verdict": "ipuaro.security.policy.commands",
    "authorize": "ipuaro.security.policy.commands",
    "ContentRefused": "ipuaro.security.policy.content",
    "apply_eol": "ipuaro.security.policy.content",
    "check_text": "ipuaro.security.policy.content",
    "conform_to": "ipuaro.security.policy.content",
    "decode_text": "ipuaro.security.policy.content",
    "detect_eol": "ipuaro.security.policy.content",
    "split_lines": "ipuaro.security.policy.content",
    "PathPolicy": "ipuaro.security.policy.paths",
    "PathRefused": "ipuaro.security.policy.paths",
    "ProjectPath": "ipuaro.security.policy.paths",
    "CommandOutcome": "ipuaro.security.process.runner",
    "cap_output": "ipuaro.security.process.runner",
    "command_timeout": "ipuaro.security.process.runner",
    "environment_without": "ipuaro.security.process.runner",
    "run_shell": "ipuaro.security.process.runner",
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


__getattr__ = lazy_exports(__name__, _LOCATIONS)
