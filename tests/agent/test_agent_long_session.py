"""A 40-turn session through the stub model that crosses the compaction threshold many times:
old turns summarised by the model, tool results dropped, the last ``keepRecent`` messages kept,
every prompt under the window, and the summaries in the JSONL export."""

from __future__ import annotations

import json
from pathlib import Path

from ipuaro.agent.context.budget import ContextBudget
from ipuaro.agent.sessions.jsonl import export_lines
from ipuaro.config.schema import ContextConfig
from ipuaro.llm.tokens import estimate_tokens
from tests.agent.conftest import ScriptedModel, body_text, call, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply

TURNS = 40
WINDOW = 9_000
"""Small enough to compact several times with the small tool set (issue 26)."""
FILES = ("shop/catalog.py", "shop/cart.py", "shop/pricing.py", "shop/main.py", "README.md")


async def test_forty_turns_compact_several_times_and_stay_answerable(
    project: Path, model_server: ModelStubServer
) -> None:
    steps: list[ScriptedReply] = []
    for turn in range(TURNS):
        steps.append(call("get_lines", path=FILES[turn % len(FILES)], start=1, end=60))
        steps.append(ScriptedReply(text=f"answer {turn}"))
    model = ScriptedModel(list(steps))
    overrides = {"context.keepRecent": 6}
    async with open_harness(
        project, model_server, "ollama", model, window=WINDOW, overrides=overrides
    ) as h:
        answers = []
        for turn in range(TURNS):
            end = await h.app.agent.send(f"question {turn}: what does {FILES[turn % 5]} do?")
            assert end.reason == "done", (turn, end.detail)
            answers.append(end.answer)
        session = h.app.session
        exported = [json.loads(line) for line in export_lines(session, str(project))]
    assert answers == [f"answer {turn}" for turn in range(TURNS)]
    compactions = h.of_type("compaction")
    summarised = [c for c in compactions if c.summarised]  # an LLM summary of old turns
    assert len(summarised) >= 3, "the threshold should be crossed several times"
    assert model.summary_requests >= len(summarised)
    assert all(c.tokens_after < c.tokens_before for c in compactions)
    # every request the agent sent fits the window (the stub reports the body's size)
    for body in model.agent_bodies:
        size = estimate_tokens(body_text(body)) + estimate_tokens(json.dumps(body.get("tools", [])))
        assert size <= WINDOW, size
    # right after a compaction the model sees the system prompt with the summary, the pinned
    # question and the keepRecent (6) newest messages, plus the turn's new ones
    after = [b["messages"] for b in model.agent_bodies if "Conversation so far" in body_text(b)]
    assert after and min(len(messages) for messages in after) <= 1 + 1 + 6 + 2
    last = model.agent_bodies[-1]["messages"]
    assert "Conversation so far" in str(last[0]["content"])
    assert "question 39" in str(last[-3:])
    # old tool results are gone from what the model sees
    assert not any("question 0:" in str(m.get("content")) for m in last)
    entries = [e for e in exported if e["type"] == "compaction"]
    assert entries and all(e["summary"] for e in entries)
    assert entries[-1]["token_before"] > entries[-1]["token_after"]


def test_the_structure_summary_takes_at_most_its_share_of_small_windows() -> None:
    for window in (8192, 16_384):
        budget = ContextBudget.from_config(ContextConfig(structure_tokens=50_000), window)
        assert budget.structure_tokens <= window * 0.25
        assert budget.work_tokens >= window // 2
    narrow = ContextBudget.from_config(
        ContextConfig(structure_tokens=50_000, structure_share=0.1), 16_384
    )
    assert narrow.structure_tokens == 1638
    assert ContextBudget.from_config(ContextConfig(keep_recent=12), 8192).keep_recent == 12
