"""Widgets on their own: the confirm panel with a multi-file change, the prompt's keys."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Button

from ipuaro.tools.base import ConfirmDecision, ConfirmRequest, FileChange
from ipuaro.tui.history import InputHistory
from ipuaro.tui.widgets.diffview import ConfirmPanel, DiffOptions, DiffView
from ipuaro.tui.widgets.prompt import PromptInput

TWO_FILES = ConfirmRequest(
    kind="edit",
    title="Edit src/a.ts, src/b.ts",
    description="rename the helper in both files",
    files=[
        FileChange("src/a.ts", "export const helper = 1;\n", "export const assist = 1;\n"),
        FileChange(
            "src/b.ts", "import { helper } from './a';\n", "import { assist } from './a';\n"
        ),
    ],
)


class PanelHost(App[None]):
    def __init__(self, request: ConfirmRequest) -> None:
        super().__init__()
        self.request = request
        self.future: asyncio.Future[ConfirmDecision] | None = None
        self.edit_requests: list[ConfirmPanel] = []

    def compose(self) -> ComposeResult:
        self.future = asyncio.get_running_loop().create_future()
        yield ConfirmPanel(self.request, DiffOptions(), self.future)

    def on_mount(self) -> None:
        self.query_one(ConfirmPanel).focus()

    def on_confirm_panel_edit_requested(self, message: ConfirmPanel.EditRequested) -> None:
        self.edit_requests.append(message.panel)


async def test_multi_file_change_shows_every_file_before_one_decision() -> None:
    app = PanelHost(TWO_FILES)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ConfirmPanel)
        assert [view.change.path for view in panel.query(DiffView)] == ["src/a.ts", "src/b.ts"]
        labels = [str(button.label) for button in panel.query(Button)]
        assert labels == ["[Y] Apply", "[A] Always", "[N] Reject", "[E] Edit"]
        await pilot.press("e")
        await pilot.pause()
        assert app.edit_requests == [panel] and not panel.decided
        await pilot.press("y")
        await pilot.pause()
        assert app.future is not None and app.future.result() == ConfirmDecision("apply")
        assert not panel.query(Button)  # decided once, for both files
        await pilot.press("n")
        assert app.future.result() == ConfirmDecision("apply")


async def test_a_answers_always_and_says_so() -> None:
    app = PanelHost(TWO_FILES)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ConfirmPanel)
        await pilot.press("a")
        await pilot.pause()
        assert app.future is not None and app.future.result() == ConfirmDecision("always")
        verdicts = [str(s.render()) for s in panel.query(".confirm-verdict")]
        assert verdicts == ["✓ applied (always)"]


async def test_a_plans_change_offers_no_always() -> None:
    app = PanelHost(dataclasses.replace(TWO_FILES, per_file=True))
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ConfirmPanel)
        assert "[A] Always" not in [str(b.label) for b in panel.query(Button)]
        await pilot.press("a")
        await pilot.pause()
        assert not panel.decided


async def test_delete_request_offers_delete_or_keep() -> None:
    request = ConfirmRequest(
        kind="delete",
        title="Delete src/old.ts",
        description="remove the unused module",
        files=[FileChange("src/old.ts", "export {};\n", None)],
    )
    app = PanelHost(request)
    async with app.run_test(size=(100, 30)) as pilot:
        panel = app.query_one(ConfirmPanel)
        assert [str(b.label) for b in panel.query(Button)] == [
            "[Y] Delete",
            "[A] Always",
            "[N] Keep",
        ]
        (view,) = panel.query(DiffView)
        assert view.diff.status == "deleted"
        await pilot.press("e")  # nothing to edit in a deletion
        await pilot.press("n")
        await pilot.pause()
        assert app.future is not None and app.future.result() == ConfirmDecision("reject")
        assert app.edit_requests == []


class PromptHost(App[None]):
    def __init__(self, multiline: Any = "auto") -> None:
        super().__init__()
        self.sent: list[tuple[str, bool]] = []
        self.multiline = multiline

    def compose(self) -> ComposeResult:
        yield PromptInput(InputHistory(), lambda: ["src/a.ts"], self.multiline)

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.sent.append((message.text, message.follow_up))


async def test_prompt_keys() -> None:
    app = PromptHost()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("h", "i", "\\", "enter", "x", "enter")
        assert app.sent == [("hi\nx", False)]
        await pilot.press("enter")  # nothing to send
        await pilot.press("y", "ctrl+f")
        assert app.sent[-1] == ("y", True)
        assert prompt.text == ""


async def test_prompt_never_multiline_joins_lines() -> None:
    app = PromptHost(multiline="never")
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.focus()
        await pilot.press("a", "ctrl+j", "b", "enter")
        assert app.sent == [("ab", False)]
