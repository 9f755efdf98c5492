"""edit_symbol on the TypeScript and Python fixtures: located by the index's syntax tree,
re-indented, confirmed, undoable, re-indexed; ambiguous names list their candidates."""

from __future__ import annotations

from ipuaro.edits.undo import UndoManager
from tests.tools.conftest import Project

USER_TS = "src/services/user.ts"
MODELS_PY = "py/app/models.py"


async def test_replace_body_of_a_ts_method_keeps_its_signature(project: Project) -> None:
    before = (project.root / USER_TS).read_text()
    result = await project.ok(
        "edit_symbol",
        symbol="UserService.count",
        action="replace_body",
        content="return this.users.filter((u) => u.id > 0).length;",
    )
    after = (project.root / USER_TS).read_text()
    assert "  count(): number {\n    return this.users.filter((u) => u.id > 0).length;\n  }\n" in (
        after
    )
    assert "return this.users.length;" not in after
    assert (
        after.replace(
            "return this.users.filter((u) => u.id > 0).length;", "return this.users.length;"
        )
        == before
    )
    assert "UserService.count" in (result.data or "")
    # re-indexed: the store holds the new text
    stored = project.store.get_file(USER_TS)
    assert stored is not None and "filter((u)" in "\n".join(stored.lines)
    manager = UndoManager(project.store, "test", project.root, project.ctx.reindex)
    assert manager.undo().done
    assert (project.root / USER_TS).read_text() == before


async def test_insert_after_a_ts_method_at_the_method_depth(project: Project) -> None:
    await project.ok(
        "edit_symbol",
        symbol="UserService.find",
        action="insert_after",
        content="isEmpty(): boolean {\n  return this.users.length === 0;\n}",
    )
    text = (project.root / USER_TS).read_text()
    assert (
        "    return this.users.find((user) => user.id === id);\n  }\n\n"
        "  isEmpty(): boolean {\n    return this.users.length === 0;\n  }\n\n  count(): number {"
    ) in text


async def test_delete_a_ts_function_and_its_blank_gap(project: Project) -> None:
    before = (project.root / USER_TS).read_text()
    await project.ok("edit_symbol", symbol="createUser", action="delete")
    after = (project.root / USER_TS).read_text()
    assert "createUser" not in after
    assert after == before[: before.index("\nexport function createUser")]
    assert project.store.find_definitions("createUser") == []


async def test_replace_a_python_method_with_code_sent_unindented(project: Project) -> None:
    await project.ok(
        "edit_symbol",
        path=MODELS_PY,
        symbol="Order.total",
        content="def total(self) -> float:\n    return sum(i.price for i in self.items)",
    )
    text = (project.root / MODELS_PY).read_text()
    assert (
        "        self.items.append(item)\n\n    def total(self) -> float:\n"
        "        return sum(i.price for i in self.items)\n\n\ndef empty_order()"
    ) in text
    assert "TODO: apply discounts" not in text


async def test_replace_body_and_insert_after_in_python(project: Project) -> None:
    await project.ok(
        "edit_symbol",
        symbol="models.empty_order",
        action="replace_body",
        content="        order = Order()\n        return order",
    )
    await project.ok(
        "edit_symbol",
        symbol="empty_order",
        action="insert_after",
        content="def full_order() -> Order:\n    return Order(items=[Item('a', 1.0)])",
    )
    text = (project.root / MODELS_PY).read_text()
    assert text.endswith(
        "def empty_order() -> Order:\n    order = Order()\n    return order\n\n\n"
        "def full_order() -> Order:\n    return Order(items=[Item('a', 1.0)])\n"
    )


async def test_delete_a_python_class_with_its_decorator(project: Project) -> None:
    await project.ok("edit_symbol", path=MODELS_PY, symbol="Item", action="remove")
    text = (project.root / MODELS_PY).read_text()
    assert "class Item" not in text
    assert text.startswith("from dataclasses import dataclass, field\n\n\n@dataclass\nclass Order:")


async def test_an_ambiguous_name_lists_every_candidate_with_file_and_lines(
    project: Project,
) -> None:
    (project.root / "src/cart.ts").write_text(
        "export class Cart {\n  count(): number {\n    return 0;\n  }\n}\n"
    )
    project.indexer.update_paths(["src/cart.ts"], [])
    before = (project.root / USER_TS).read_text()
    result = await project.call("edit_symbol", symbol="count", action="delete")
    assert not result.success
    error = result.error or ""
    assert "2 symbols" in error
    assert "UserService.count (method) in src/services/user.ts:" in error
    assert "Cart.count (method) in src/cart.ts:2-4" in error
    assert (project.root / USER_TS).read_text() == before
    await project.ok("edit_symbol", symbol="Cart.count", action="delete")
    assert "count" not in (project.root / "src/cart.ts").read_text()


async def test_a_file_changed_since_the_model_read_it_is_refused(project: Project) -> None:
    await project.ok("get_function", path=USER_TS, name="UserService.count")
    path = project.root / USER_TS
    path.write_text(path.read_text().replace("private nextId = 1;", "private nextId = 2;"))
    before = path.read_text()
    result = await project.call(
        "edit_symbol", symbol="UserService.count", action="delete", path=USER_TS
    )
    assert not result.success and "changed since you read it" in (result.error or "")
    assert path.read_text() == before


async def test_aliases_small_models_use(project: Project) -> None:
    await project.ok(
        "replace_function",
        name="UserService.count",
        mode="body",
        code="return 42;",
    )
    assert "  count(): number {\n    return 42;\n  }" in (project.root / USER_TS).read_text()


async def test_unknown_symbol_and_wrong_language_are_clear_errors(project: Project) -> None:
    missing = await project.call("edit_symbol", symbol="UserService.frobnicate", action="delete")
    assert not missing.success and "No function, method or class" in (missing.error or "")
    other = await project.call(
        "edit_symbol", path="config/settings.yaml", symbol="x", action="delete"
    )
    assert not other.success and "TypeScript, JavaScript and Python" in (other.error or "")
    empty = await project.call("edit_symbol", symbol="createUser", action="replace")
    assert not empty.success and "`content` is empty" in (empty.error or "")
