from __future__ import annotations

from pathlib import Path

from ipuaro.agent.context.budget import ContextBudget
from ipuaro.agent.context.manager import ContextManager, ContextMeter
from ipuaro.config.schema import ContextConfig
from ipuaro.llm.tokens import estimate_tokens
from tests.agent.synthetic import project_store


def manager(tmp_path: Path, window: int) -> ContextManager:
    store = project_store(tmp_path, 5)
    budget = ContextBudget.from_config(ContextConfig(), window)
    return ContextManager(store, tmp_path, budget, estimate_tokens, git_paths=None)


def test_a_tool_result_never_exceeds_an_eighth_of_the_window(tmp_path: Path) -> None:
    context = manager(tmp_path, 8192)
    big = "\n".join(f"{i:5d}| value_{i} = compute(value_{i - 1}, factor={i})" for i in range(3000))
    capped, cut = context.cap_result(big)
    assert cut
    assert estimate_tokens(capped) <= 8192 // 8
    assert capped.startswith("    0| value_0") and capped.rstrip().endswith("factor=2999)")
    assert "characters cut here" in capped and "narrower range" in capped
    small, cut = context.cap_result("fine")
    assert small == "fine" and not cut


def test_meter_calibrates_estimates_with_the_server_count() -> None:
    meter = ContextMeter(10_000)
    assert meter.corrected(1000) == 1000
    meter.report(estimated_prompt=1000, prompt_tokens=1200, completion_tokens=50)
    assert meter.used == 1250
    assert meter.corrected(2000) == 2400
    meter.report(estimated_prompt=1000, prompt_tokens=12, completion_tokens=1)  # nonsense
    assert meter.ratio == 0.5  # clamped: one odd report cannot zero the estimate


def test_assembled_context_counts_system_tools_and_messages(tmp_path: Path) -> None:
    from ipuaro.agent.context.history import user_message
    from ipuaro.llm.protocol import ToolSpec

    context = manager(tmp_path, 32_768)
    tool = ToolSpec("get_lines", "Read lines.", {"type": "object", "properties": {"path": {}}})
    context.set_tools([tool], "native", native=True)
    stats = context.prepare_request("explain the invoice total")
    assert stats.files_total == 5
    empty = context.assemble([], None)
    assert "# Project context" in empty.system and "get_lines" in empty.system
    with_message = context.assemble([user_message("x " * 500)], None)
    assert with_message.tokens > empty.tokens + 400
