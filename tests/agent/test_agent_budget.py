from __future__ import annotations

import pytest

from ipuaro.agent.context.budget import MIN_STRUCTURE_TOKENS, ContextBudget
from ipuaro.config.schema import ContextConfig


def test_reference_window_keeps_the_concept_budget() -> None:
    budget = ContextBudget.from_config(ContextConfig(), 128_000)
    assert budget.system_tokens == 2000
    assert budget.structure_tokens == 10_000
    assert budget.compact_threshold == int(128_000 * 0.8)
    assert budget.max_tool_result_tokens == 16_000
    assert budget.work_tokens == 116_000


def test_structure_scales_with_a_smaller_window_but_system_does_not() -> None:
    budget = ContextBudget.from_config(ContextConfig(), 32_768)
    assert budget.structure_tokens == int(10_000 * 32_768 / 128_000)
    assert budget.system_tokens == 2000
    assert budget.max_tool_result_tokens == 32_768 // 8


def test_larger_window_does_not_grow_the_structure_share() -> None:
    budget = ContextBudget.from_config(ContextConfig(), 1_000_000)
    assert budget.structure_tokens == 10_000


def test_tiny_window_caps_the_summary_to_its_share_and_the_prompt_to_an_eighth() -> None:
    budget = ContextBudget.from_config(ContextConfig(), 1024)
    assert budget.structure_tokens == 256  # context.structureShare: 25 %
    assert budget.system_tokens == 128
    assert budget.structure_tokens < MIN_STRUCTURE_TOKENS  # the cap beats the floor


def test_threshold_follows_config() -> None:
    budget = ContextBudget.from_config(ContextConfig(auto_compress_at=0.5), 10_000)
    assert budget.compact_threshold == 5000
    assert budget.fraction(2500) == 0.25


def test_non_positive_window_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        ContextBudget.from_config(ContextConfig(), 0)
