"""The reference judge: identifiers named like a symbol that mean something else are left out,
what stays is ``exact`` or ``name-only``, and import aliases are followed."""

from __future__ import annotations

from pathlib import Path

from ipuaro.index.references import judge_references
from ipuaro.store.sqlite import SqliteStore

from .conftest import make_indexer, write

FORMAT_TS = """export function format(value: string): string { return value.trim(); }
export const name = "lib";
"""
USE_TS = """import { format } from "./format";
import { format as fmt } from "./format";
import * as lib from "./format";

export function render(name: string, options: { name: string }): string {
  const format = (x: string) => x;
  return format(name) + options.name;
}
export function show(): string {
  return fmt(lib.name) + format("x");
}
export function twice<format>(value: format): format {
  for (const name of [1]) { void name; }
  return value;
}
export const more = fmt("again");
"""
UTIL_PY = """def slug(text):
    return text.lower()


def total(items):
    return sum(items)
"""
VIEWS_PY = """from app.util import slug
from app.util import total as add_up
import app.util as util_module


def page(slug):
    return slug.upper()


def other(request):
    text = slug(request.title)
    request.slug = 1
    dict(slug=2)
    return add_up([1]) + util_module.total([2]) + len(text)


def rows(items):
    return [slug for slug in items]


def nested():
    def slug():
        return 1
    return slug()
"""


def _project(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "project"
    write(root, "src/format.ts", FORMAT_TS)
    write(root, "src/use.ts", USE_TS)
    write(root, "app/__init__.py", "")
    write(root, "app/util.py", UTIL_PY)
    write(root, "app/views.py", VIEWS_PY)
    make_indexer(root, store).index(workers=1)


def _judged(store: SqliteStore, name: str) -> dict[tuple[str, int, str], str]:
    refs = store.find_references(name)
    return {
        (j.reference.path, j.reference.line, j.reference.name): j.confidence
        for j in judge_references(store, name, refs)
    }


def test_typescript_locals_parameters_and_properties_are_left_out(
    tmp_path: Path, store: SqliteStore
) -> None:
    _project(tmp_path, store)
    judged = _judged(store, "format")
    assert judged == {
        ("src/format.ts", 1, "format"): "exact",  # the definition
        ("src/use.ts", 1, "format"): "exact",  # imports
        ("src/use.ts", 2, "format"): "exact",
        ("src/use.ts", 2, "fmt"): "exact",  # the alias it binds
        ("src/use.ts", 10, "format"): "exact",  # format("x")
        ("src/use.ts", 10, "fmt"): "exact",  # the alias, followed
        ("src/use.ts", 16, "fmt"): "exact",
        # lines 6-7 (a local const), 12 (a type parameter) are not the function
    }
    names = _judged(store, "name")
    assert names == {
        ("src/format.ts", 2, "name"): "exact",
        ("src/use.ts", 10, "name"): "exact",  # lib.name: a member of the imported namespace
        # the parameter, the property signature, options.name and the loop's const are not
    }


def test_python_locals_attributes_keywords_and_aliases(tmp_path: Path, store: SqliteStore) -> None:
    _project(tmp_path, store)
    assert _judged(store, "slug") == {
        ("app/util.py", 1, "slug"): "exact",
        ("app/views.py", 1, "slug"): "exact",
        ("app/views.py", 11, "slug"): "exact",
        # page's parameter (6-7), request.slug (12), slug=2 (13), the comprehension (18) and
        # the nested def (22-24) are not app.util.slug
    }
    assert _judged(store, "total") == {
        ("app/util.py", 5, "total"): "exact",
        ("app/views.py", 2, "total"): "exact",
        ("app/views.py", 2, "add_up"): "exact",
        ("app/views.py", 14, "total"): "exact",  # util_module.total: a module's attribute
        ("app/views.py", 14, "add_up"): "exact",  # the alias, followed
    }


def test_a_member_keeps_other_objects_properties_as_name_only(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "project"
    write(root, "src/box.ts", "export class Box {\n  size(): number { return 1; }\n}\n")
    write(root, "src/use.ts", "export function f(b: any) {\n  return b.size();\n}\n")
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "size") == {
        ("src/box.ts", 2, "size"): "exact",
        ("src/use.ts", 2, "size"): "name-only",  # b may be a Box: kept, marked uncertain
    }


def test_files_without_a_judge_are_name_only_unless_they_define_it(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "project"
    write(root, "a.go", "package a\n\nfunc Run() {}\n")
    write(root, "b.go", "package a\n\nfunc use() { Run() }\n")
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "Run") == {("a.go", 3, "Run"): "exact", ("b.go", 3, "Run"): "name-only"}


def test_namespace_members_in_types(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "project"
    write(root, "src/Time.ts", "export interface Time { at: number }\nexport type Input = Time;\n")
    write(
        root,
        "src/use.ts",
        'import * as Time from "./Time";\n'
        "export const f = (t: Time.Time, u: Outer.Time.Input): Time.Input => t;\n",
    )
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "Time") == {
        ("src/Time.ts", 1, "Time"): "exact",
        ("src/Time.ts", 2, "Time"): "exact",
        ("src/use.ts", 2, "Time"): "exact",  # Time.Time: the interface through the namespace
    }
