"""How the context window is shared: system prompt, project summary, work, compaction point.

The concept sizes everything for a 128K window (system ~2K, structure + AST ~10K, the rest for
work). Real windows differ (a 7B model under Ollama often runs with 32K), so the structure share
scales with the window while the system prompt keeps its fixed size: tool descriptions do not
shrink because the window did.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ipuaro.config.schema import ContextConfig

REFERENCE_WINDOW = 128_000
"""The window the configured budgets are written for."""

MIN_STRUCTURE_TOKENS = 400
"""Below this a summary is useless; the model is told to call ``get_structure`` instead."""

TOOL_RESULT_SHARE = 8
"""A single tool result may fill at most 1/8 of the window."""


@dataclass(frozen=True)
class ContextBudget:
    """Token budget of one session (the window is fixed per session)."""

    window: int
    system_tokens: int
    structure_tokens: int
    compress_at: float
    max_usage: float

    @classmethod
    def from_config(cls, context: ContextConfig, window: int) -> ContextBudget:
        if window <= 0:
            raise ValueError(f"context window must be positive, got {window}")
        scale = min(1.0, window / REFERENCE_WINDOW)
        structure = max(MIN_STRUCTURE_TOKENS, int(context.structure_tokens * scale))
        # Never let the fixed parts eat more than a quarter of a tiny window.
        structure = min(structure, window // 8)
        system = min(context.system_prompt_tokens, window // 8)
        return cls(
            window=window,
            system_tokens=system,
            structure_tokens=structure,
            compress_at=context.auto_compress_at,
            max_usage=context.max_context_usage,
        )

    def resized(self, window: int) -> ContextBudget:
        """The same shares for a smaller window (the server's, learnt from a refusal)."""
        return replace(
            self,
            window=window,
            system_tokens=min(self.system_tokens, window // 8),
            structure_tokens=min(self.structure_tokens, window // 8),
        )

    @property
    def compact_threshold(self) -> int:
        """Token count at which the conversation is compacted before the next model call."""
        return int(self.window * self.compress_at)

    @property
    def max_tool_result_tokens(self) -> int:
        return max(256, self.window // TOOL_RESULT_SHARE)

    @property
    def work_tokens(self) -> int:
        """What is left for the conversation once the fixed parts are in."""
        return max(0, self.window - self.system_tokens - self.structure_tokens)

    def fraction(self, tokens: int) -> float:
        return tokens / self.window if self.window else 0.0
