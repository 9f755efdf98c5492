"""The reference judge: identifiers named like a symbol that mean something else are left out,
what stays is ``exact`` or ``name-only``, and import aliases are followed."""

from __future__ import annotations

from pathlib import Path

from ipuaro.index.refs.references import judge_references
from ipuaro.store.sqlite import SqliteStore
from tests.index.conftest import make_indexer, write

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
    write(
        root, "src/make.ts", 'import { Box } from "./box";\nexport const make = () => new Box();\n'
    )
    write(
        root,
        "src/use.ts",
        'import { make } from "./make";\n'
        "export function f(b: any) {\n  return b.size() + make();\n}\n"
        "export const literal = { size: 2 };\n",
    )
    write(root, "src/far.ts", "export function g(b: any) {\n  return b.size();\n}\n")
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "size") == {
        ("src/box.ts", 2, "size"): "exact",
        ("src/use.ts", 3, "size"): "name-only",  # b may be a Box (two imports away): kept
        # far.ts reaches no file declaring a `size` member: its b.size() is another object's;
        # `{ size: 2 }` is no Box (only an interface or type could be written as a literal)
    }


def test_files_without_a_judge_are_name_only_unless_they_define_it(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "project"
    write(root, "a.rb", "def run\n  1\nend\n")
    write(root, "b.rb", "def use\n  run\nend\n")
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "run") == {("a.rb", 1, "run"): "exact", ("b.rb", 2, "run"): "name-only"}


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


RECEIVERS_TS = """export interface Sized { size(): number }
export interface Shape { size: number }
export class Box implements Sized {
  size(): number { return 1; }
}
export class Crate {
  weight = 2;
}
export class Sub extends Box {
  constructor(private inner: Box) { super(); }
  size(): number { return super.size() + this.inner.size(); }
  twice(): number { return this.size() * 2; }
}
"""
RECEIVERS_USE_TS = """import { Box, Crate, Shape, Sized } from "./box";

export function typed(b: Box, c: Crate, s: Shape, z: Sized, u: any) {
  const built = new Box();
  return b.size() + c.size() + s.size + z.size() + u.size() + built.size();
}
export const shape = { size: 3 };
/** Like {@link Box}. */
export const note = 1;
"""
RECEIVERS_LONE_TS = "/** Not imported here: {@link Box}. */\nexport const lone = 1;\n"


def test_typescript_receivers_whose_class_the_file_tells(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "project"
    write(root, "src/box.ts", RECEIVERS_TS)
    write(root, "src/use.ts", RECEIVERS_USE_TS)
    write(root, "src/lone.ts", RECEIVERS_LONE_TS)
    make_indexer(root, store).index(workers=1)
    judged = _judged(store, "size")
    judged.pop(("src/use.ts", 5, "size"))  # several on that line: by column below
    assert judged == {
        ("src/box.ts", 1, "size"): "exact",  # Sized: Box implements it
        ("src/box.ts", 4, "size"): "exact",
        ("src/box.ts", 11, "size"): "exact",  # Sub.size, super.size(), this.inner.size()
        ("src/box.ts", 12, "size"): "exact",  # this.size()
        ("src/use.ts", 7, "size"): "name-only",  # an object literal's key
    }
    lines = {
        (j.reference.line, j.reference.column, j.confidence)
        for j in judge_references(store, "size", store.find_references("size", "src/use.ts"))
    }
    columns = {column: confidence for line, column, confidence in lines if line == 5}
    # c.size() (Crate has none) and s.size (Shape is no Box) are left out
    assert sorted(columns.items()) == [
        (12, "exact"),  # b.size()
        (43, "exact"),  # z.size()
        (54, "name-only"),  # u.size()
        (69, "exact"),  # built.size()
    ]
    # a JSDoc link counts where the name is in scope (imported), not elsewhere
    boxes = _judged(store, "Box")
    assert ("src/use.ts", 8, "Box") in boxes
    assert ("src/lone.ts", 1, "Box") not in boxes


RECEIVERS_PY = """class Cache:
    def touch(self):
        return 1


class Sub(Cache):
    def touch(self):
        return super().touch() + self.helper()

    def helper(self):
        return self.touch()


class Other:
    def run(self):
        return self.touch()


class Holder:
    def __init__(self):
        self.cache = Cache()

    def go(self, given: Cache, unknown):
        made = Cache()
        return self.cache.touch() + given.touch() + made.touch() + unknown.touch()
"""


def test_python_receivers_whose_class_the_file_tells(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "project"
    write(root, "app/__init__.py", "")
    write(root, "app/cache.py", RECEIVERS_PY)
    make_indexer(root, store).index(workers=1)
    refs = store.find_references("touch")
    judged = {
        (j.reference.line, j.reference.column): j.confidence
        for j in judge_references(store, "touch", refs)
    }
    assert judged == {
        (2, 9): "exact",
        (7, 9): "exact",
        (8, 24): "exact",  # super().touch()
        (11, 21): "exact",  # self.touch() in a subclass
        # (16, 21) self.touch() in Other, which neither has nor inherits it: left out
        (25, 27): "exact",  # self.cache = Cache()
        (25, 43): "exact",  # given: Cache
        (25, 58): "exact",  # made = Cache()
        (25, 76): "name-only",  # unknown
    }


def test_renamed_exports_are_followed(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "project"
    write(
        root,
        "src/result.ts",
        "const _try = (f: () => number) => f();\nexport { _try as try, _try as attempt };\n",
    )
    write(
        root,
        "src/use.ts",
        'import * as Result from "./result";\nimport { attempt } from "./result";\n'
        "export const a = Result.try(() => 1) + attempt(() => 2);\n",
    )
    write(root, "src/other.ts", "export const o = { try: 1 }.try;\n")
    make_indexer(root, store).index(workers=1)
    judged = _judged(store, "_try")
    assert judged == {
        ("src/result.ts", 1, "_try"): "exact",
        ("src/result.ts", 2, "_try"): "exact",
        ("src/use.ts", 3, "try"): "exact",  # Result.try: the namespace's renamed export
        ("src/use.ts", 2, "attempt"): "exact",
        ("src/use.ts", 3, "attempt"): "exact",
        # other.ts's `try` is an unrelated property
    }


def test_type_variables_bound_by_infer_are_not_the_type(tmp_path: Path, store: SqliteStore) -> None:
    root = tmp_path / "project"
    write(root, "src/types.ts", "export type Success = { ok: true };\n")
    write(
        root,
        "src/use.ts",
        'import type { Success } from "./types";\n'
        "export type Of<T> = T extends Promise<infer Success> ? Success : never;\n"
        "export type Make = new <Success>(value: Success) => Success;\n"
        "export const done: Success = { ok: true };\n",
    )
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "Success") == {
        ("src/types.ts", 1, "Success"): "exact",
        ("src/use.ts", 1, "Success"): "exact",
        ("src/use.ts", 4, "Success"): "exact",
        # lines 2 (`infer Success`) and 3 (a constructor type's parameter) bind their own
    }


def test_unions_index_signatures_and_objects_exported_by_a_namespace(
    tmp_path: Path, store: SqliteStore
) -> None:
    root = tmp_path / "project"
    write(root, "src/box.ts", RECEIVERS_TS)
    write(root, "src/tags.ts", "export const tag = { size: 1 };\n")
    write(
        root,
        "src/use.ts",
        'import { Box } from "./box";\nimport * as tags from "./tags";\n'
        "export const f = (b: Box | undefined) => b!.size();\n"
        "export type Sizes = { [size: string]: number };\n"
        "export const g = () => tags.tag.size;\n",
    )
    make_indexer(root, store).index(workers=1)
    judged = _judged(store, "size")
    assert judged[("src/use.ts", 3, "size")] == "exact"  # `Box | undefined` is still a Box
    assert ("src/use.ts", 4, "size") not in judged  # an index signature's own name
    # tags.tag.size: a property of an object tags exports, not a member the namespace has
    assert judged.get(("src/use.ts", 5, "size")) != "exact"


def test_a_property_of_an_object_a_module_exports_is_not_the_function(
    tmp_path: Path, store: SqliteStore
) -> None:
    """zod's compiled ``ZodError_1.ZodIssueCode.custom``: ``custom`` is a key of the exported
    ``ZodIssueCode`` object, not the module's ``custom`` function (the TypeScript service
    agrees); through a link the index does not define (``ns.inner.custom``) it may be."""
    root = tmp_path / "project"
    write(root, "lib/codes.js", 'exports.Codes = { custom: "custom" };\nconst Codes = {};\n')
    write(
        root, "lib/types.js", "function custom(check) { return check; }\nexports.custom = custom;\n"
    )
    write(
        root,
        "lib/use.js",
        'const codes_1 = require("./codes");\nconst types_1 = require("./types");\n'
        "const a = codes_1.Codes.custom;\nconst b = types_1.custom(1);\n"
        "const c = types_1.inner.custom;\n",
    )
    make_indexer(root, store).index(workers=1)
    judged = _judged(store, "custom")
    assert ("lib/use.js", 3, "custom") not in judged
    assert judged[("lib/use.js", 4, "custom")] == "exact"
    assert judged[("lib/use.js", 5, "custom")] == "exact"


def test_python_names_from_other_packages_are_not_the_projects(
    tmp_path: Path, store: SqliteStore
) -> None:
    """requests: ``from urllib3.util import Timeout as TimeoutSauce`` is urllib3's Timeout,
    ``os.environ.get``/``pytest.main`` are other packages' attributes (jedi agrees); the
    project's own ``Timeout``/``get``/``main`` keep their uses."""
    root = tmp_path / "project"
    write(root, "pkg/__init__.py", "")
    write(
        root,
        "pkg/api.py",
        "class Timeout(Exception):\n    pass\n\n\ndef get(url):\n    return url\n\n\n"
        "def main():\n    return get('x')\n",
    )
    write(
        root,
        "pkg/adapters.py",
        "import os\nimport pytest\nfrom urllib3.util import Timeout as TimeoutSauce\n"
        "from .api import get, main\n\n\n"
        "def send():\n    t = TimeoutSauce(1)\n    pytest.main([])\n"
        "    e = os.environ.get('A')\n"
        "    return e, get('y'), main(), t\n",
    )
    write(root, "pkg/other.py", "from urllib3.util import Timeout\n\nT = Timeout(2)\n")
    make_indexer(root, store).index(workers=1)
    assert _judged(store, "Timeout") == {("pkg/api.py", 1, "Timeout"): "exact"}
    gets = _judged(store, "get")
    assert set(gets) == {
        ("pkg/api.py", 5, "get"),
        ("pkg/api.py", 10, "get"),
        ("pkg/adapters.py", 4, "get"),
        ("pkg/adapters.py", 11, "get"),  # get('y'); not os.environ.get on line 10
    }
    mains = _judged(store, "main")
    assert set(mains) == {
        ("pkg/api.py", 9, "main"),
        ("pkg/adapters.py", 4, "main"),
        ("pkg/adapters.py", 11, "main"),  # not pytest.main on line 9
    }
