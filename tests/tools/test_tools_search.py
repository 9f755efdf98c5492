"""Search tools: find_references, find_definition, grep_search, find_files."""

from __future__ import annotations

from .conftest import Project


async def test_find_references_with_path_line_column(project: Project) -> None:
    result = await project.ok("find_references", symbol="add")
    refs = project.data(result)["references"]
    places = {(r["path"], r["line"]) for r in refs}
    assert ("src/services/user.ts", 15) in places  # this.nextId = add(this.nextId, 1)
    assert ("src/index.ts", 8) in places
    first = next(r for r in refs if r["path"] == "src/services/user.ts" and r["line"] == 15)
    line = (project.root / "src/services/user.ts").read_text().splitlines()[14]
    assert line[first["column"] - 1 :].startswith("add")
    assert "src/services/user.ts:15:" in result.data


async def test_find_references_limited_to_a_folder(project: Project) -> None:
    result = await project.ok("find_references", symbol="add", path="src/services")
    assert {r["path"] for r in project.data(result)["references"]} == {"src/services/user.ts"}


async def test_find_references_unknown_symbol_suggests(project: Project) -> None:
    result = await project.ok("find_references", symbol="multiplyy")
    assert "No references" in result.data and "multiply" in result.data


async def test_find_definition(project: Project) -> None:
    result = await project.ok("find_definition", symbol="UserService")
    defs = project.data(result)["definitions"]
    assert defs[0]["path"] == "src/services/user.ts" and defs[0]["kind"] == "class"
    method = await project.ok("find_definition", symbol="Order.total")
    assert project.data(method)["definitions"][0]["path"] == "py/app/models.py"
    missing = await project.ok("find_definition", symbol="UserServise")
    assert "Did you mean: UserService" in missing.data


async def test_grep_search_literal_and_globs(project: Project) -> None:
    result = await project.ok("grep_search", query="return a", include_pattern="*.ts")
    matches = project.data(result)["matches"]
    assert {m["path"] for m in matches} == {"src/utils/math.ts"}
    assert [m["line"] for m in matches] == [2, 6]
    excluded = await project.ok("grep_search", query="return a", exclude_pattern="src/**")
    assert {m["path"] for m in project.data(excluded)["matches"]} == {"lib/math.js"}


async def test_grep_search_regex_and_case(project: Project) -> None:
    regex = await project.ok("grep_search", query=r"def \w+\(self", regex=True)
    assert {m["line"] for m in project.data(regex)["matches"]} == {15, 18}
    upper = await project.ok("grep_search", query="USERSERVICE", case_sensitive=True)
    assert "No matches" in upper.data
    literal = await project.ok("grep_search", query="a + b")
    assert project.data(literal)["matches"], "the + is searched literally by default"
    bad = await project.call("grep_search", query="(unclosed", regex=True)
    assert not bad.success and "regular expression" in (bad.error or "")


async def test_grep_search_finds_text_the_store_keeps_escaped(project: Project) -> None:
    (project.root / "notes.txt").write_text(
        'say "hi"\npath C:\\temp\ncolumns\ta\tb\nCafé Crème\n', encoding="utf-8"
    )
    project.indexer.update_paths(["notes.txt"], [])
    for query, line in (('say "hi"', 1), ("C:\\temp", 2), ("columns\ta", 3), ("café crème", 4)):
        result = await project.ok("grep_search", query=query)
        assert [(m["path"], m["line"]) for m in project.data(result)["matches"]] == [
            ("notes.txt", line)
        ], query
    total = len(project.indexer.store.file_hashes())
    missing = await project.ok("grep_search", query="no such text anywhere")
    assert f"in {total} file(s)" in missing.data  # files searched, not files pre-selected


async def test_grep_search_caps_at_50_and_skips_secrets(project: Project) -> None:
    (project.root / "many.txt").write_text("needle\n" * 80)
    project.indexer.update_paths(["many.txt"], [])
    result = await project.ok("grep_search", query="needle")
    assert len(project.data(result)["matches"]) == 50
    assert project.data(result)["truncated"] is True and "limit 50" in result.data
    secret = await project.ok("grep_search", query="API_KEY")
    assert "No matches" in secret.data


async def test_find_files(project: Project) -> None:
    ts = await project.ok("find_files", pattern="*.ts")
    assert set(project.data(ts)["files"]) == {
        "src/index.ts",
        "src/services/user.ts",
        "src/utils/date.ts",
        "src/utils/math.ts",
    }
    braces = await project.ok("find_files", pattern="**/*.{js,py}")
    assert "lib/math.js" in project.data(braces)["files"]
    assert "py/app/models.py" in project.data(braces)["files"]
    plain = await project.ok("find_files", pattern="math")
    assert set(project.data(plain)["files"]) == {
        "src/utils/math.ts",
        "lib/math.js",
        "test/math.test.js",
    }
    none = await project.ok("find_files", pattern="*.rs")
    assert "No indexed file" in none.data


async def test_a_bad_glob_is_an_error_naming_it_not_a_crash(project: Project) -> None:
    found = await project.call("find_files", pattern="src/[z-a]*.ts")
    assert not found.success
    assert found.error == "glob 'src/[z-a]*.ts' is not valid (bad character range z-a); fix it"
    grep = await project.call("grep_search", query="add", include_pattern="*.ts, [b-a]")
    assert not grep.success and "glob '[b-a]' is not valid" in (grep.error or "")
