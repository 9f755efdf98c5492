"""What the TUI checks before it opens a session, and small facts it shows (git branch).

The checks are ``ipuaro doctor``'s own (store, model server, model), run in a thread. When
they fail the onboarding screen shows each result with its fix; when only the model is missing
on an Ollama server it offers to pull it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipuaro.cli.checks import CheckResult
    from ipuaro.config.schema import Config


@dataclass(frozen=True)
class LaunchOptions:
    """The command line's choices for this run."""

    auto_apply: bool = False
    new_session: bool = False
    session_id: str | None = None


@dataclass(frozen=True)
class Onboarding:
    results: list[CheckResult] = field(default_factory=list)
    server_down: bool = False
    can_pull: bool = False
    """The Ollama server answers but lacks the model: offer ``[P] Pull``."""

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.results)


def run_checks(root: Path, config: Config) -> Onboarding:
    """Store, model server, model — the same checks as ``ipuaro doctor`` (blocking)."""
    from ipuaro.cli.checks import check_model_server, check_store

    store = check_store(root, config)
    server, model = check_model_server(config)
    results = [store, server] if not server.ok else [store, server, model]
    return Onboarding(
        results,
        server_down=not server.ok,
        can_pull=server.ok and not model.ok and config.llm.provider == "ollama",
    )


def start_instructions(config: Config) -> str:
    """How to get a model server running, for the onboarding screen."""
    from ipuaro.cli.server_advice import configured_url, start_commands

    kind = "Ollama" if config.llm.provider == "ollama" else "OpenAI-compatible"
    return "\n".join(
        [
            f"No {kind} server answered at {configured_url(config.llm)}. Start one:",
            "",
            *(f"    {command}" for command in start_commands(config.llm)),
            "",
            "or set llm.provider and llm.baseUrl to where your server runs,",
            "then press R to retry.",
        ]
    )


def git_branch(root: Path) -> str | None:
    """The checked-out branch (or short commit when detached), read from ``.git`` directly:
    no subprocess on the start-up path."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            try:
                pointer = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if not pointer.startswith("gitdir:"):
                return None
            git_dir = (folder / pointer.removeprefix("gitdir:").strip()).resolve()
        elif dot_git.is_dir():
            git_dir = dot_git
        else:
            continue
        try:
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if head.startswith("ref:"):
            return head.removeprefix("ref:").strip().removeprefix("refs/heads/")
        return head[:8] or None
    return None
