"""Analysis tools: get_dependencies, get_dependents, get_complexity, get_todos."""

from __future__ import annotations

from .conftest import Project


async def test_get_dependencies(project: Project) -> None:
    result = await project.ok("get_dependencies", path="src/index.ts")
    data = project.data(result)
    assert set(data["internal"]) == {
        "src/services/user.ts",
        "src/utils/math.ts",
        "src/utils/date.ts",
    }
    py = await project.ok("get_dependencies", path="py/app/service.py")
    assert project.data(py)["internal"] == ["py/app/models.py"]


async def test_get_dependents(project: Project) -> None:
    result = await project.ok("get_dependents", path="src/utils/math.ts")
    assert set(project.data(result)["dependents"]) == {"src/index.ts", "src/services/user.ts"}
    missing = await project.call("get_dependents", path="src/utils/mat.ts")
    assert not missing.success and "src/utils/math.ts" in (missing.error or "")


async def test_get_complexity_ranked_and_single(project: Project) -> None:
    table = await project.ok("get_complexity")
    files = project.data(table)["files"]
    scores = [f["score"] for f in files]
    assert scores == sorted(scores, reverse=True)
    assert "score" in table.data.splitlines()[1]
    one = await project.ok("get_complexity", path="src/utils/math.ts")
    assert "Longest functions" in one.data and "multiply" in one.data
    folder = await project.ok("get_complexity", path="py")
    assert all(f["path"].startswith("py/") for f in project.data(folder)["files"])


async def test_get_complexity_ranks_code_only(project: Project) -> None:
    docs = project.root / "docs"
    docs.mkdir()
    # Long and deeply indented: by lines and nesting alone they would top the table.
    guide = "".join(f"{'    ' * (i % 12)}- step {i}: see `src/index.ts`\n" for i in range(900))
    (docs / "GUIDE.md").write_text("# Guide\n" + guide, encoding="utf-8")
    (docs / "data.json").write_text(
        "[\n" + ",\n".join(f'  {{"id": {i}, "tags": [[[{i}]]]}}' for i in range(900)) + "\n]\n",
        encoding="utf-8",
    )
    project.indexer.index()
    table = await project.ok("get_complexity", limit=200)
    ranked = [f["path"] for f in project.data(table)["files"]]
    assert ranked and all(p.endswith((".ts", ".js", ".py")) for p in ranked), ranked
    assert "lib/math.js" in ranked
    assert "README.md" not in table.data and "docs/" not in table.data
    only_docs = await project.call("get_complexity", path="docs")
    assert not only_docs.success and "No code files under docs" in (only_docs.error or "")
    one = await project.ok("get_complexity", path="docs/GUIDE.md")  # asked for by name: shown
    assert one.data.startswith("docs/GUIDE.md: score")


async def test_get_todos(project: Project) -> None:
    result = await project.ok("get_todos")
    todos = {(t["path"], t["tag"]) for t in project.data(result)["todos"]}
    assert ("src/utils/math.ts", "TODO") in todos
    assert ("src/utils/date.ts", "FIXME") in todos
    assert ("py/app/models.py", "TODO") in todos
    fixme = await project.ok("get_todos", tag="FIXME")
    assert [t["path"] for t in project.data(fixme)["todos"]] == ["src/utils/date.ts"]
    scoped = await project.ok("get_todos", path="py")
    assert [t["path"] for t in project.data(scoped)["todos"]] == ["py/app/models.py"]
