"""Edit tools through the engine, with the real indexer as the re-index hook."""

from __future__ import annotations

from ipuaro.edits.undo import UndoManager
from ipuaro.tools.base import LineEdit

from .conftest import Project


class ScriptedPlanner:
    """A fixed plan at our own EditPlanner boundary (what the model would have answered)."""

    def __init__(self, plan: list[LineEdit]) -> None:
        self.plan_to_return = plan
        self.calls: list[tuple[str, str, str]] = []

    async def plan(self, file_text: str, instructions: str, code_edit: str) -> list[LineEdit]:
        self.calls.append((file_text, instructions, code_edit))
        return self.plan_to_return


async def test_edit_lines_writes_shows_region_and_reindexes(project: Project) -> None:
    await project.ok("get_lines", path="src/utils/math.ts")
    result = await project.ok(
        "edit_lines",
        path="src/utils/math.ts",
        start=1,
        end=3,
        content="export function add(a: number, b: number): number {\n  return b + a;\n}",
    )
    assert "2|   return b + a;" in result.data
    assert (project.root / "src/utils/math.ts").read_text().splitlines()[1] == "  return b + a;"
    stored = project.store.get_file("src/utils/math.ts")
    assert stored is not None and stored.lines[1] == "  return b + a;"
    again = await project.ok("get_lines", path="src/utils/math.ts", start=2, end=2)
    assert "return b + a" in again.data


async def test_edit_lines_insert_and_delete_keep_crlf_and_no_final_newline(
    project: Project,
) -> None:
    (project.root / "win.txt").write_bytes(b"one\r\ntwo\r\nthree")
    project.indexer.update_paths(["win.txt"], [])
    await project.ok("edit_lines", path="win.txt", start=2, end=1, content="one-and-a-half\n")
    assert (project.root / "win.txt").read_bytes() == b"one\r\none-and-a-half\r\ntwo\r\nthree"
    await project.ok("edit_lines", path="win.txt", start=3, end=3, content="")
    assert (project.root / "win.txt").read_bytes() == b"one\r\none-and-a-half\r\nthree"


async def test_edit_lines_conflict_when_file_changed_since_read(project: Project) -> None:
    await project.ok("get_lines", path="src/utils/date.ts")
    path = project.root / "src/utils/date.ts"
    path.write_text("// header added by someone else\n" + path.read_text())
    project.indexer.update_paths(["src/utils/date.ts"], [])
    outcome = await project.registry.call_outcome(
        "edit_lines",
        {"path": "src/utils/date.ts", "start": 3, "end": 3, "content": "  return 'x';"},
        project.ctx,
    )
    assert not outcome.success and outcome.conflict is not None
    assert "changed since you read it" in outcome.content
    assert outcome.conflict.rebased is not None  # only lines above moved: "apply" is possible
    before = path.read_text()
    assert "return 'x'" not in before
    applied = await project.registry.apply_conflict(outcome.conflict, project.ctx)
    assert applied.success, applied.content
    assert path.read_text().splitlines()[3] == "  return 'x';"  # moved down by one line


async def test_conflict_refreshes_a_stale_store_so_rereading_helps(project: Project) -> None:
    await project.ok("get_lines", path="README.md")
    (project.root / "README.md").write_text("# renamed\n\nnew body\n")  # no re-index
    conflict = await project.call("edit_lines", path="README.md", start=1, end=1, content="# x")
    assert not conflict.success and conflict.details and "conflict" in conflict.details
    reread = await project.ok("get_lines", path="README.md")
    assert "# renamed" in reread.data
    assert (
        await project.call("edit_lines", path="README.md", start=1, end=1, content="# x")
    ).success


async def test_edit_lines_conflict_on_a_stale_expected_hash(project: Project) -> None:
    result = await project.call(
        "edit_lines", path="README.md", start=1, end=1, content="# x", expected_hash="0123456789ab"
    )
    assert not result.success and result.details and "conflict" in result.details
    current = project.store.get_file("README.md")
    assert current is not None
    ok = await project.call(
        "edit_lines",
        path="README.md",
        start=1,
        end=1,
        content="# x",
        expected_hash=current.hash[:12],
    )
    assert ok.success, ok.error


async def test_replace_exact_whitespace_and_errors(project: Project) -> None:
    await project.ok("replace", path="src/utils/math.ts", old="return a - b;", new="return b - a;")
    assert "return b - a;" in (project.root / "src/utils/math.ts").read_text()
    twice = await project.call("replace", path="src/utils/math.ts", old="number", new="bigint")
    assert not twice.success and "times" in (twice.error or "")
    every = await project.ok(
        "replace", path="src/utils/math.ts", old="number", new="bigint", replace_all=True
    )
    assert "occurrences" in every.data
    tolerant = await project.ok(
        "replace",
        path="py/app/models.py",
        old="def total(self) -> float:\n# TODO: apply discounts",
        new="def total(self) -> float:\n# discounts are applied upstream",
    )
    assert "ignoring indentation" in tolerant.data
    assert (
        "        # discounts are applied upstream"
        in (project.root / "py/app/models.py").read_text()
    )
    missing = await project.call("replace", path="src/utils/math.ts", old="return a * b;", new="x")
    assert not missing.success and "Closest lines" in (missing.error or "")


async def test_replace_fuzzy_uses_the_configured_threshold(project: Project) -> None:
    old = (
        "  create(name: string, emial: string): User {\n"
        "    const user: User = { id: this.nextId, name, emial };"
    )
    new = (
        "  create(name: string, email: string): User {\n"
        "    const user: User = { id: this.nextId, name, email: email.toLowerCase() };"
    )
    project.ctx.config.edit.fuzzy_threshold = 0.99
    strict = await project.call("replace", path="src/services/user.ts", old=old, new=new)
    assert not strict.success and "Closest lines" in (strict.error or "")
    project.ctx.config.edit.fuzzy_threshold = 0.9
    loose = await project.ok("replace", path="src/services/user.ts", old=old, new=new)
    assert "fuzzy" in loose.data
    assert "email.toLowerCase()" in (project.root / "src/services/user.ts").read_text()


async def test_edit_file_markers_merge(project: Project) -> None:
    sketch = (
        "// ... existing code ...\n"
        "export function subtract(a: number, b: number): number {\n"
        "  const difference = a - b;\n"
        "  return difference;\n"
        "}\n"
        "// ... existing code ...\n"
    )
    result = await project.ok(
        "edit_file",
        target_file="src/utils/math.ts",
        instructions="name the difference",
        code_edit=sketch,
    )
    text = (project.root / "src/utils/math.ts").read_text()
    assert "const difference = a - b;" in text and "export function multiply" in text
    assert "markers merged" in result.data


async def test_edit_file_falls_back_to_the_planner(project: Project) -> None:
    planner = ScriptedPlanner([LineEdit(2, 2, "  return (a + b) | 0;")])
    project.ctx = project.ctx.replace(planner=planner)
    result = await project.ok(
        "edit_file",
        target_file="src/utils/math.ts",
        instructions="truncate the sum",
        code_edit="return (a + b) | 0;",
    )
    assert "planned as 1 line edit" in result.data
    assert (project.root / "src/utils/math.ts").read_text().splitlines()[
        1
    ] == "  return (a + b) | 0;"
    assert planner.calls[0][1] == "truncate the sum"


async def test_edit_file_planner_with_overlapping_plan_is_refused(project: Project) -> None:
    project.ctx = project.ctx.replace(
        planner=ScriptedPlanner([LineEdit(1, 3, "a"), LineEdit(2, 4, "b")])
    )
    before = (project.root / "src/utils/math.ts").read_bytes()
    result = await project.call(
        "edit_file", target_file="src/utils/math.ts", instructions="x", code_edit="nowhere();"
    )
    assert not result.success and "overlap" in (result.error or "")
    assert (project.root / "src/utils/math.ts").read_bytes() == before


async def test_edit_file_without_planner_explains(project: Project) -> None:
    result = await project.call(
        "edit_file", target_file="src/utils/math.ts", instructions="x", code_edit="nowhere();"
    )
    assert not result.success and "replace" in (result.error or "")


async def test_create_file_and_overwrite_rules(project: Project) -> None:
    result = await project.ok(
        "create_file", path="src/new/thing.ts", content="export const thing = 1;"
    )
    assert (project.root / "src/new/thing.ts").read_text() == "export const thing = 1;\n"
    assert "created" in result.data
    found = await project.ok("find_definition", symbol="thing")
    assert project.data(found)["definitions"][0]["path"] == "src/new/thing.ts"
    exists = await project.call("create_file", path="src/new/thing.ts", content="x")
    assert not exists.success and "overwrite=true" in (exists.error or "")
    (project.root / "win.txt").write_bytes(b"a\r\nb\r\n")
    await project.ok("create_file", path="win.txt", content="c\nd\n", overwrite=True)
    assert (project.root / "win.txt").read_bytes() == b"c\r\nd\r\n"


async def test_protected_and_outside_paths_are_refused(project: Project) -> None:
    for path in (".env", ".git/config", "../escape.txt", "/etc/passwd", "~/x"):
        result = await project.call("create_file", path=path, content="x", overwrite=True)
        assert not result.success, path
    assert (project.root / ".env").read_text().startswith("API_KEY=fixture")


async def test_delete_file_then_undo(project: Project) -> None:
    before = (project.root / "src/utils/date.ts").read_bytes()
    await project.ok("delete_file", path="src/utils/date.ts")
    assert not (project.root / "src/utils/date.ts").exists()
    assert project.store.get_file("src/utils/date.ts") is None
    manager = UndoManager(project.store, "test", project.root, project.ctx.reindex)
    assert manager.undo().done
    assert (project.root / "src/utils/date.ts").read_bytes() == before
    assert project.store.get_file("src/utils/date.ts") is not None
    folder = await project.call("delete_file", path="src/utils")
    assert not folder.success and "directory" in (folder.error or "")


async def test_edit_needs_confirmation_in_headless_mode(project: Project) -> None:
    project.ctx.grants.set_auto_apply(False)
    result = await project.call("create_file", path="x.txt", content="x")
    assert not result.success and result.details and result.details["refused"]
    assert not (project.root / "x.txt").exists()
