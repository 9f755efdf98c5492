"""Applying a stored plan in the TUI: "ok" shows ONE panel with every file of the change,
numbered; 1…9 turn a file down, Y applies the rest as one transaction, and Ctrl+Z undoes all
of it at once."""

from __future__ import annotations

from pathlib import Path

from ipuaro.domain.plan import Action
from ipuaro.planning.actions import file_sha256
from ipuaro.tui.widgets.diffview import DiffView
from tests.planning.conftest import record
from tests.stubs.model_server import ModelStubServer
from tests.tui.conftest import MakeApp, chat_text, ready, settle, submit, until, wait_for_panel

LOGIN = "src/auth/login.ts"


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
        if ".git" not in p.relative_to(root).parts and ".ipuaro" not in p.relative_to(root).parts
    }


async def test_ok_shows_one_panel_per_file_rejects_and_one_undo(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    login = (project / LOGIN).read_text()
    plan = record(
        [
            Action("UPDATE_FILE", LOGIN, login + "// checked\n"),
            Action("CREATE_FILE", "docs/plan.md", "# notes\n"),
            Action("CREATE_FILE", "CHANGES.md", "changed\n"),
        ],
        read={LOGIN: file_sha256(login)},
        summary="Mark login as checked and write notes",
    )
    before = snapshot(project)
    app = make_app()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        assert app.workspace is not None
        app.workspace.store_plan(plan)
        await submit(pilot, "ok")
        panel = await wait_for_panel(pilot)
        assert [v.change.path for v in panel.query(DiffView)] == [
            LOGIN,
            "docs/plan.md",
            "CHANGES.md",
        ]
        labels = [str(label.content) for label in panel.query(".confirm-file")]
        assert labels == [f"[1] ✓ {LOGIN}", "[2] ✓ docs/plan.md", "[3] ✓ CHANGES.md"]
        await pilot.press("3")
        await pilot.press("2", "2")  # turned down and taken back
        await pilot.pause()
        assert panel.rejected == {"CHANGES.md"}
        assert "(rejected; 3 takes it back)" in str(list(panel.query(".confirm-file"))[2].content)
        await pilot.press("y")
        await settle(pilot)
        assert (project / LOGIN).read_text().endswith("// checked\n")
        assert (project / "docs/plan.md").read_text() == "# notes\n"
        assert not (project / "CHANGES.md").exists()
        text = chat_text(app)
        assert "✓ applied (2 of 3 files)" in text
        assert "Applied the plan as one change" in text
        assert "rejected by the user: CHANGES.md" in text
        await pilot.press("ctrl+z")
        await until(pilot, lambda: snapshot(project) == before)


async def test_plan_with_two_context_rounds_then_ok_then_ctrl_z(
    make_app: MakeApp, stub: ModelStubServer, project: Path
) -> None:
    """Typed as a user would: a plan request, two context rounds, the plan drawn, "ok", the one
    panel, Y, and Ctrl+Z restoring every file byte for byte."""
    import json

    from tests.tui.conftest import play, reply

    login = (project / LOGIN).read_text()
    rounds = [
        {
            "mode": "fix-plan",
            "summary": "Need login.ts.",
            "context_requests": [{"type": "read_file", "path": LOGIN}],
        },
        {
            "mode": "fix-plan",
            "summary": "Need the token code.",
            "context_requests": [{"type": "search", "query": "verifyToken"}],
        },
    ]
    final = {
        "mode": "fix-plan",
        "summary": "Log failed logins and document it",
        "questions": [],
        "context_requests": [],
        "plan": [{"step": "Add a log line", "details": "in login.ts"}],
        "proposed_changes": {
            "actions": [
                {"kind": "UPDATE_FILE", "path": LOGIN, "content": login + "// logged\n"},
                {"kind": "CREATE_FILE", "path": "docs/login.md", "content": "# Login\n"},
            ],
            "commands_to_run": [],
        },
        "risks": [],
        "memory_patch": {},
    }
    script = play(stub, *(reply(json.dumps(d)) for d in [*rounds, final]))
    before = snapshot(project)
    app = make_app()
    async with app.run_test(size=(110, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "plan: log failed logins")
        await settle(pilot)
        assert len(script.bodies) == 3
        assert "Log failed logins and document it" in chat_text(app)
        assert snapshot(project) == before
        await submit(pilot, "ok")
        panel = await wait_for_panel(pilot)
        assert [v.change.path for v in panel.query(DiffView)] == [LOGIN, "docs/login.md"]
        await pilot.press("y")
        await settle(pilot)
        assert (project / LOGIN).read_text().endswith("// logged\n")
        assert (project / "docs/login.md").exists()
        await pilot.press("ctrl+z")
        await until(pilot, lambda: snapshot(project) == before)


def test_only_a_plans_change_offers_per_file_reject() -> None:
    import asyncio

    from ipuaro.domain.edits import ConfirmRequest, FileChange
    from ipuaro.tui.widgets.diffview import ConfirmPanel, DiffOptions

    files = [FileChange("a.py", "a\n", "b\n"), FileChange("c.py", None, "c\n")]
    loop = asyncio.new_event_loop()
    try:
        future = loop.create_future()
        edit = ConfirmRequest(kind="edit", title="Edit a.py, c.py", description="", files=files)
        plan = ConfirmRequest(kind="edit", title="A", description="", files=files, per_file=True)
        assert not ConfirmPanel(edit, DiffOptions(), future).per_file
        assert ConfirmPanel(plan, DiffOptions(), future).per_file
    finally:
        loop.close()
