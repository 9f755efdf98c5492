"""Context assembly and token accounting for one session.

Per request: refresh the project summary from the store and rank it for the user's message.
Per turn: the system prompt plus the model's view of the history (``history.context_view``),
with its size in tokens. The local estimate plans; the server's reported prompt size calibrates
it (``ContextMeter``), so ``ctx %`` follows what the server actually counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ipuaro.agent.context.budget import ContextBudget
from ipuaro.agent.context.history import MESSAGE_OVERHEAD_TOKENS, context_view, estimate_message
from ipuaro.agent.context.instructions import ProjectInstructions, load_instructions
from ipuaro.agent.context.project import ProjectSummary, SummaryStats
from ipuaro.agent.context.prompt import SystemPrompt, fixed_part, project_part
from ipuaro.agent.context.ranking import RankSignals
from ipuaro.domain import ChatMessage
from ipuaro.llm.formats import ToolFormat
from ipuaro.llm.protocol import ToolSpec
from ipuaro.memory import EngineeringMemory, render_block
from ipuaro.security.git.git_guard import run_git_sync
from ipuaro.store.protocol import Store
from ipuaro.tools.toolsets import SMALL_WINDOW

Estimator = Callable[[str], int]

TRUNCATION_NOTE = (
    "\n[… {cut} characters cut here: a tool result may fill at most 1/8 of the context window. "
    "Ask for a narrower range or a more specific query …]\n"
)


def git_modified(root: Path) -> set[str]:
    """Paths git reports changed or untracked (empty when not a repository or git is missing).
    The hardened git (:mod:`ipuaro.security.git.git_guard`): no hook, fsmonitor or filter runs."""
    code, stdout = run_git_sync(root, "status", "--porcelain", "--untracked-files=normal",
                                "--", ".", timeout=3)  # fmt: skip
    if code != 0:
        return set()
    paths: set[str] = set()
    for line in stdout.splitlines():
        name = line[3:]
        if " -> " in name:
            name = name.split(" -> ", 1)[1]
        paths.add(name.strip().strip('"'))
    return paths


IDLE_SUMMARY_FILES = 2_000
"""Up to this many indexed files the status bar's first ``ctx`` includes the project summary."""


@dataclass(frozen=True)
class Assembled:
    system: str
    messages: list[ChatMessage]
    tokens: int
    """Estimated prompt tokens (system + messages + tool schemas)."""
    system_tokens: int


class ContextMeter:
    """Estimated vs. server-counted tokens. The ratio of the last reported prompt size to our
    estimate of that same prompt corrects later estimates (chat templates, tokenizer drift)."""

    def __init__(self, window: int) -> None:
        self.window = window
        self.ratio = 1.0
        self.used = 0

    def report(self, estimated_prompt: int, prompt_tokens: int, completion_tokens: int) -> None:
        if estimated_prompt > 0 and prompt_tokens > 0:
            self.ratio = min(2.0, max(0.5, prompt_tokens / estimated_prompt))
        if prompt_tokens > 0:
            self.used = prompt_tokens + completion_tokens

    def corrected(self, estimate: int) -> int:
        return round(estimate * self.ratio)

    def update(self, estimate: int) -> int:
        self.used = self.corrected(estimate)
        return self.used


class ContextManager:
    def __init__(
        self,
        store: Store,
        root: Path,
        budget: ContextBudget,
        estimate: Estimator,
        *,
        git_paths: Callable[[Path], set[str]] | None = git_modified,
        memory: Callable[[], EngineeringMemory] | None = None,
    ) -> None:
        self.store = store
        self.root = root
        self.budget = budget
        self.estimate = estimate
        self.meter = ContextMeter(budget.window)
        self.summary = ProjectSummary(store, estimate)
        self.instructions: ProjectInstructions = load_instructions(root)
        self._git_paths = git_paths
        self._memory = memory
        """Reads the engineering memory (both files) for each request; None: no block."""
        self._fixed = ""
        self._fixed_tokens = 0
        self._tools_tokens = 0
        self._project = ""
        self._project_tokens = 0
        self.summary_stats: SummaryStats | None = None
        self._message_cache: dict[int, tuple[str, int]] = {}
        self._request: tuple[str, tuple[str, ...]] = ("", ())

    # --- per session / tool set ----------------------------------------------------------

    def set_tools(
        self, tools: list[ToolSpec], mode: ToolFormat, *, native: bool, plan_mode: bool = False
    ) -> None:
        compact = self.budget.window < SMALL_WINDOW
        self._fixed = fixed_part(tools, mode, plan_mode, compact=compact)
        self._fixed_tokens = self.estimate(self._fixed)
        # Native tool schemas travel beside the prompt and count against the window too.
        if native:
            import json

            self._tools_tokens = sum(
                self.estimate(json.dumps(t.parameters)) + self.estimate(t.description) + 8
                for t in tools
            )
        else:
            self._tools_tokens = 0

    @property
    def fixed_tokens(self) -> int:
        return self._fixed_tokens

    # --- per request ---------------------------------------------------------------------

    def warm(self) -> int:
        """Load and summarise the index now (1-2 s on a 7K-file project), so the first request
        does not wait for it; safe to call from a worker thread before the first ``send``."""
        loaded = self.summary.refresh()
        self.summary.document_frequency()
        return loaded

    def adopt_window(self, window: int | None) -> bool:
        """Shrink the session to the window a server named when it refused a prompt; False
        (nothing changed) when it named none or no smaller one."""
        if window is None or window >= self.budget.window:
            return False
        self.budget = self.budget.resized(window)
        self.meter.window = window
        self.prepare_request(*self._request)
        return True

    def prepare_request(self, message: str, recent: Iterable[str] = ()) -> SummaryStats:
        """Refresh the project summary and rank it for this request's words."""
        self._request = (message, tuple(recent))
        self.instructions = load_instructions(self.root)
        self.summary.refresh()
        git = self._git_paths(self.root) if self._git_paths is not None else set()
        signals = RankSignals.build(
            message,
            recent,
            git,
            self.summary.document_frequency(),
            self.summary.file_count,
        )
        text, stats = self.summary.render(
            signals, self.budget.structure_tokens, self.store.project_name
        )
        memory = render_block(self._memory()) if self._memory is not None else ""
        self._project = project_part(self.instructions.render(), text, memory)
        self._project_tokens = self.estimate(self._project)
        self.summary_stats = stats
        return stats

    @property
    def project_tokens(self) -> int:
        return self._project_tokens

    # --- per turn ------------------------------------------------------------------------

    def message_tokens(self, message: ChatMessage) -> int:
        # Messages change in place only when compaction blanks them; key on content too.
        key = id(message)
        cached = self._message_cache.get(key)
        if cached is not None and cached[0] is message.content:
            return cached[1]
        tokens = estimate_message(message, self.estimate)
        self._message_cache[key] = (message.content, tokens)
        return tokens

    def messages_tokens(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self.message_tokens(m) for m in messages)

    def system_prompt(self, conversation: str | None) -> SystemPrompt:
        return SystemPrompt(self._fixed, self._project, conversation)

    def assemble(self, history: Sequence[ChatMessage], pinned: ChatMessage | None) -> Assembled:
        view = context_view(history, pinned)
        prompt = self.system_prompt(view.summary)
        system = prompt.text
        conversation_tokens = self.estimate(view.summary) if view.summary else 0
        system_tokens = self._fixed_tokens + self._project_tokens + conversation_tokens + 8
        tokens = (
            system_tokens
            + MESSAGE_OVERHEAD_TOKENS
            + self._tools_tokens
            + self.messages_tokens(view.messages)
        )
        return Assembled(system, view.messages, tokens, system_tokens)

    def idle_tokens(self, history: Sequence[ChatMessage]) -> int:
        """What the next request weighs before the server counted one: rules, tool schemas,
        the project summary (ranked for no words yet) and the history. The status bar's ``ctx``
        before the first answer, so a small window's fixed share shows at start. On a project
        past ``IDLE_SUMMARY_FILES`` the summary is left for the first request (loading it takes
        a second or more, too long for a status bar at start-up)."""
        if self.summary_stats is None and len(self.store.file_hashes()) <= IDLE_SUMMARY_FILES:
            self.prepare_request("")
        return self.meter.corrected(self.assemble(history, None).tokens)

    def forget(self) -> None:
        """Drop cached per-message estimates (after loading another session)."""
        self._message_cache.clear()

    # --- tool results --------------------------------------------------------------------

    def cap_result(self, content: str) -> tuple[str, bool]:
        """Cut a tool result to 1/8 of the window (head and tail kept), with a note."""
        limit = self.budget.max_tool_result_tokens
        if len(content) <= limit * 2 or self.estimate(content) <= limit:
            return content, False
        # ~3 characters per token for code; re-check once and tighten if needed.
        chars = limit * 3
        for _ in range(3):
            head = int(chars * 0.6)
            tail = chars - head
            cut = len(content) - head - tail
            text = content[:head] + TRUNCATION_NOTE.format(cut=cut) + content[-tail:]
            if self.estimate(text) <= limit:
                return text, True
            chars = int(chars * 0.7)
        return text, True
