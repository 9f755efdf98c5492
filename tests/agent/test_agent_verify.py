"""``verify.afterEdits=test``: after the model's last edit of a turn the project's remembered
test command runs (a real unittest process through the command policy); its failure goes back
to the model, the model's fix is applied, the tests pass and the run ends — and when the model
cannot fix it the run still ends, after ``verify.maxFixRounds`` rounds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.agent.conftest import ScriptedModel, call, open_harness
from tests.stubs.model_server import ModelStubServer, ScriptedReply

CAP = "MAX_DISCOUNT_PERCENT = {}"
PRICING = "shop/pricing.py"


def set_cap(old: int, new: int) -> Any:
    return call("replace", path=PRICING, old=CAP.format(old), new=CAP.format(new))


def failures_told(model: ScriptedModel) -> list[str]:
    """The verify messages the model was sent (user-side), in order, without repeats."""
    seen: list[str] = []
    for body in model.bodies:
        for message in body.get("messages", []):
            content = str(message.get("content") or "")
            told = message.get("role") == "user" and "checks after your edits failed" in content
            if told and content not in seen:
                seen.append(content)
    return seen


async def test_a_failing_test_goes_back_to_the_model_and_its_fix_ends_the_run(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [
            set_cap(50, 60),
            ScriptedReply(text="Raised the cap."),
            set_cap(60, 50),
            ScriptedReply(text="Put the cap back; the tests pass."),
        ]
    )
    overrides = {"verify.afterEdits": "test", "edit.autoApply": True}
    async with open_harness(project, model_server, "openai", model, overrides=overrides) as h:
        end = await h.app.agent.send("raise the discount cap to 60")
    assert end.reason == "done" and end.detail is None, end.detail
    assert end.answer == "Put the cap back; the tests pass."
    (told,) = failures_told(model)
    assert "fix round 1 of 2" in told and "test_discount_is_capped" in told
    assert "FAILED (failures=1)" in told
    assert CAP.format(50) in (project / PRICING).read_text()
    assert not model.steps  # every scripted reply was used: no extra round after the pass


async def test_a_model_that_cannot_fix_it_is_stopped_after_the_rounds(
    project: Path, model_server: ModelStubServer
) -> None:
    model = ScriptedModel(
        [
            set_cap(50, 60),
            ScriptedReply(text="Raised."),
            set_cap(60, 70),
            ScriptedReply(text="Tried 70."),
            set_cap(70, 80),
            ScriptedReply(text="Tried 80."),
            ScriptedReply(text="never asked"),
        ]
    )
    overrides = {"verify.afterEdits": "test", "edit.autoApply": True}
    async with open_harness(project, model_server, "openai", model, overrides=overrides) as h:
        end = await h.app.agent.send("raise the discount cap")
    assert end.answer == "Tried 80."
    assert end.detail is not None and "still fail after 2 fix round(s)" in end.detail
    assert "verify.maxFixRounds" in end.detail
    assert [m.split("(")[1].split(")")[0] for m in failures_told(model)] == [
        "verify.afterEdits, fix round 1 of 2",
        "verify.afterEdits, fix round 2 of 2",
    ]
    assert [s.text for s in model.steps] == ["never asked"]  # type: ignore[union-attr]


async def test_off_by_default_runs_nothing(project: Path, model_server: ModelStubServer) -> None:
    model = ScriptedModel([set_cap(50, 60), ScriptedReply(text="Raised.")])
    async with open_harness(
        project, model_server, "openai", model, overrides={"edit.autoApply": True}
    ) as h:
        end = await h.app.agent.send("raise the discount cap")
    assert end.answer == "Raised." and end.detail is None and not failures_told(model)
