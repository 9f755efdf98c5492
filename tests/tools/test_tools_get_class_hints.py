"""get_class on what is not a class: a JavaScript constructor function gets a way forward."""

from __future__ import annotations

from tests.tools.conftest import Project

ROUTER = """\
function Router(options) {
  this.stack = [];
  this.options = options || {};
}

Router.prototype.use = function use(fn) {
  this.stack.push(fn);
  return this;
};

module.exports = Router;
"""


async def test_get_class_on_a_constructor_function_points_to_get_function(
    project: Project,
) -> None:
    (project.root / "src" / "router.js").write_text(ROUTER, encoding="utf-8")
    project.indexer.update_paths(["src/router.js"], [])
    result = await project.call("get_class", path="src/router.js", name="Router")
    error = result.error or ""
    assert not result.success
    assert "is a function, not a class" in error
    assert "Did you mean: get_function(path='src/router.js', name='Router')" in error
    assert "lines 1-4" in error
    # The hint works: get_function reads it.
    read = await project.ok("get_function", path="src/router.js", name="Router")
    assert "this.stack = []" in read.data


async def test_a_misspelt_constructor_function_is_suggested(project: Project) -> None:
    (project.root / "src" / "router.js").write_text(ROUTER, encoding="utf-8")
    project.indexer.update_paths(["src/router.js"], [])
    result = await project.call("get_class", path="src/router.js", name="Routr")
    assert "Did you mean: Router" in (result.error or "")
