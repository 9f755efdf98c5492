"""Arguments repaired from the index: one close match is used and reported, two are listed."""

from __future__ import annotations

import pytest

from ipuaro.tools.repair import path_candidates
from tests.tools.conftest import Project

INDEXED = ["src/cart.ts", "src/utils/math.ts", "lib/math.js", "py/app/models.py", "README.md"]


@pytest.mark.parametrize(
    ("wanted", "meant"),
    [
        ("src/Cart.ts", ["src/cart.ts"]),  # case
        ("src/cart.js", ["src/cart.ts"]),  # .js for .ts
        ("cart.ts", ["src/cart.ts"]),  # missing src/
        ("src/py/app/models.py", ["py/app/models.py"]),  # extra src/
        ("models.py", ["py/app/models.py"]),  # a unique basename
        ("readme.md", ["README.md"]),
        ("math.ts", ["src/utils/math.ts"]),
        ("utils/math.js", ["src/utils/math.ts"]),
        ("src/nothing.ts", []),
    ],
)
def test_path_candidates(wanted: str, meant: list[str]) -> None:
    assert path_candidates(INDEXED, wanted) == meant


async def test_one_close_path_is_used_and_the_result_names_it(project: Project) -> None:
    result = await project.ok("get_lines", path="src/utils/Math.js", start=1, end=2)
    assert "used src/utils/math.ts" in (result.data or "")
    assert "export function add" in (result.data or "")


async def test_an_edit_through_a_repaired_path_changes_the_one_file(project: Project) -> None:
    before = (project.root / "src/utils/math.ts").read_text()
    result = await project.ok(
        "replace", path="utils/math.js", old="return a + b;", new="return b + a;"
    )
    assert "used src/utils/math.ts" in (result.data or "")
    after = (project.root / "src/utils/math.ts").read_text()
    assert after == before.replace("return a + b;", "return b + a;")


async def test_two_candidates_are_listed_and_nothing_is_guessed(project: Project) -> None:
    for folder in ("a", "b"):
        (project.root / "src" / folder).mkdir()
        (project.root / "src" / folder / "cart.ts").write_text("export const x = 1;\n")
    project.indexer.update_paths(["src/a/cart.ts", "src/b/cart.ts"], [])
    result = await project.call("replace", path="cart.ts", old="x = 1", new="x = 2")
    assert not result.success
    assert "src/a/cart.ts, src/b/cart.ts" in (result.error or "")
    assert "Not guessing" in (result.error or "")
    for folder in ("a", "b"):
        assert (project.root / "src" / folder / "cart.ts").read_text() == "export const x = 1;\n"


async def test_create_and_delete_are_never_repaired(project: Project) -> None:
    await project.ok("create_file", path="src/utils/Math.js", content="export {};\n")
    assert (project.root / "src/utils/Math.js").exists()
    missing = await project.call("delete_file", path="src/utils/date.js")
    assert not missing.success
    assert (project.root / "src/utils/date.ts").exists()


async def test_a_symbol_with_one_close_match_is_used_and_reported(project: Project) -> None:
    result = await project.ok(
        "edit_symbol", symbol="UserService.cuont", action="replace_body", content="return 7;"
    )
    assert "used UserService.count" in (result.data or "")
    assert "return 7;" in (project.root / "src/services/user.ts").read_text()


async def test_a_symbol_with_two_close_matches_is_refused_with_both(project: Project) -> None:
    (project.root / "src/shapes.ts").write_text(
        "export function computeTotalA(): number {\n  return 1;\n}\n\n"
        "export function computeTotalB(): number {\n  return 2;\n}\n"
    )
    project.indexer.update_paths(["src/shapes.ts"], [])
    before = (project.root / "src/shapes.ts").read_text()
    result = await project.call(
        "edit_symbol", path="src/shapes.ts", symbol="computeTotalC", action="delete"
    )
    assert not result.success
    assert "computeTotalA (function) in src/shapes.ts:1-3" in (result.error or "")
    assert "computeTotalB (function) in src/shapes.ts:5-7" in (result.error or "")
    assert (project.root / "src/shapes.ts").read_text() == before
