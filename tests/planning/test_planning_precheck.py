"""Apply's checks run when a plan is read (planning.precheck): every ERR_ code fires before
the user is asked "say ok to apply", a fragment is merged exactly or refused, and content that
drops most of a file's symbols without saying so is an error."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ipuaro.domain.plan import Action, PlanStep
from ipuaro.planning.actions import PlanInvalid
from ipuaro.planning.apply import prepare
from ipuaro.planning.parse import ReadPlan, plan_to_document
from ipuaro.planning.precheck import precheck
from tests.planning.conftest import Project, make_project, record
from tests.planning.test_actions import CASES, PATCHES

PARSE_TIME = sorted(CASES)
"""Every code, ``ERR_EMPTY_PLAN`` too: a plan with nothing to apply goes to the repair turn
(unless it says ``NO_CHANGES:`` or asks the user questions)."""

SHAPES = '''"""Shapes."""


def area(w, h):
    return w * h


def perimeter(w, h):
    return 2 * (w + h)


class Square:
    def __init__(self, side):
        self.side = side


def describe(shape):
    return f"shape {shape}"
'''


def reading(proj: Project, actions: list[Action], read: dict[str, str], **kw: object) -> ReadPlan:
    plan = record(actions, read=read, **kw).plan  # type: ignore[arg-type]
    return ReadPlan(plan, plan_to_document(plan), "json", False)


def check(proj: Project, read_plan: ReadPlan, read: dict[str, str]) -> ReadPlan:
    def text(path: str) -> str | None:
        target = proj.root / path
        return target.read_text() if target.is_file() else None

    return precheck(read_plan, proj.paths, read, text).read


@pytest.mark.parametrize("code", PARSE_TIME)
def test_every_apply_code_fires_when_the_plan_is_read(proj: Project, code: str) -> None:
    build, _ = CASES[code]
    actions, read = build(proj)
    read_plan = reading(proj, actions, read, patch=PATCHES.get(code))
    with pytest.raises(PlanInvalid) as raised:
        check(proj, read_plan, read)
    assert code in raised.value.codes, raised.value.codes


@pytest.mark.parametrize(
    "answer",
    [{"summary": "NO_CHANGES: the README already says it"},
     {"questions": ("Which versions should it cover?",)}],
)  # fmt: skip
def test_a_plan_without_actions_that_says_why_is_kept(
    proj: Project, answer: dict[str, object]
) -> None:
    empty = reading(proj, [], {})
    said = dataclasses.replace(empty, plan=dataclasses.replace(empty.plan, **answer))
    assert check(proj, said, {}) == said


def test_an_empty_plan_tells_the_model_what_to_send(proj: Project) -> None:
    with pytest.raises(PlanInvalid) as raised:
        check(proj, reading(proj, [], {}), {})
    [error] = raised.value.errors
    assert "proposed_changes.actions" in error.message and "NO_CHANGES:" in error.message


@pytest.fixture
def shapes(tmp_path: Path) -> Project:
    project = make_project(tmp_path / "p", {"src/shapes.py": SHAPES}, tmp_path / "s.db")
    yield project  # type: ignore[misc]
    project.store.close()


def test_a_fragment_with_an_elision_comment_is_merged_into_the_whole_file(
    shapes: Project,
) -> None:
    fragment = (
        "# ... existing code ...\ndef perimeter(w, h):\n    return 2 * w + 2 * h\n\n\n"
        "class Square:\n# ... rest of the file unchanged ...\n"
    )
    read = shapes.read("src/shapes.py")
    checked = check(shapes, reading(shapes, [Action("UPDATE_FILE", "src/shapes.py", fragment)],
                                    read), read)  # fmt: skip
    content = checked.plan.proposed_changes.actions[0].content or ""
    assert content == SHAPES.replace("return 2 * (w + h)", "return 2 * w + 2 * h")
    assert checked.document["proposed_changes"]["actions"][0]["content"] == content
    prepared = prepare(record(checked.plan.proposed_changes.actions, read=read), shapes.paths,
                       shapes.store)  # fmt: skip
    assert prepared.changes[0].new_text == content


def test_a_fragment_that_does_not_merge_exactly_is_refused_never_written(
    shapes: Project,
) -> None:
    """The shape of issue 24: only the changed function, then the elision comment."""
    fragment = (
        "def perimeter(w, h):\n    return 2 * w + 2 * h\n# ... rest of the file unchanged ...\n"
    )
    read = shapes.read("src/shapes.py")
    with pytest.raises(PlanInvalid) as raised:
        check(shapes, reading(shapes, [Action("UPDATE_FILE", "src/shapes.py", fragment)], read),
              read)  # fmt: skip
    assert raised.value.codes == ["ERR_CONTENT_FRAGMENT"]
    assert "rest of the file unchanged" in raised.value.errors[0].message
    assert (shapes.root / "src/shapes.py").read_text() == SHAPES


def test_content_dropping_most_symbols_unannounced_is_an_error(shapes: Project) -> None:
    short = '"""Shapes."""\n\n\ndef area(w, h):\n    return w * h\n'
    read = shapes.read("src/shapes.py")
    action = Action("UPDATE_FILE", "src/shapes.py", short)
    with pytest.raises(PlanInvalid) as raised:
        check(shapes, reading(shapes, [action], read), read)
    assert raised.value.codes == ["ERR_SYMBOLS_REMOVED"]
    assert "drops 3 of the file's 4" in raised.value.errors[0].message
    steps = [PlanStep("Remove perimeter, Square and describe", "they are unused")]
    checked = check(shapes, reading(shapes, [action], read, steps=steps), read)
    assert checked.plan.proposed_changes.actions[0].content == short


def test_a_file_that_holds_an_ellipsis_of_its_own_is_not_a_fragment(tmp_path: Path) -> None:
    stub = "class P:\n    def run(self):\n        ...\n"
    project = make_project(tmp_path / "p", {"src/p.py": stub}, tmp_path / "s.db")
    try:
        new = "class P:\n    def run(self):\n        ...\n\n    def stop(self):\n        ...\n"
        read = project.read("src/p.py")
        checked = check(project, reading(project, [Action("UPDATE_FILE", "src/p.py", new)],
                                         read), read)  # fmt: skip
        assert checked.plan.proposed_changes.actions[0].content == new
    finally:
        project.store.close()
