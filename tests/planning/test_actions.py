"""Every error code of a plan's actions, each with the message the user and the model read:
the code, the action (index, kind, path), why, and what to do. Nothing is written when a plan
fails any check."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ipuaro.domain.plan import Action
from ipuaro.planning.actions import ERROR_CODES, MAX_ACTIONS, PlanInvalid, ordered
from ipuaro.planning.apply import prepare
from tests.planning.conftest import Project, record

Case = Callable[[Project], tuple[list[Action], dict[str, str]]]


def only(*actions: Action) -> Case:
    return lambda proj: (list(actions), {})


def _stale(proj: Project) -> tuple[list[Action], dict[str, str]]:
    read = proj.read("src/app.py")
    (proj.root / "src/app.py").write_text("def main():\n    return 2\n")
    return [Action("UPDATE_FILE", "src/app.py", "def main():\n    return 3\n")], read


def _outside(proj: Project) -> tuple[list[Action], dict[str, str]]:
    outside = proj.root.parent / "elsewhere"
    outside.mkdir()
    os.symlink(outside, proj.root / "link")
    return [Action("CREATE_FILE", "link/x.txt", "x\n")], {}


def _binary_delete(proj: Project) -> tuple[list[Action], dict[str, str]]:
    (proj.root / "blob.bin").write_bytes(b"\xff\xfe\x00\x01")
    return [Action("DELETE_FILE", "blob.bin")], {}


CASES: dict[str, tuple[Case, str]] = {
    "ERR_PATH_EMPTY": (
        only(Action("CREATE_FILE", "", "x")),
        "ERR_PATH_EMPTY: action 1 (CREATE_FILE <empty path>): the path is empty; name a file "
        "or folder",
    ),
    "ERR_PATH_ABSOLUTE": (
        only(Action("UPDATE_FILE", "/etc/passwd", "x")),
        "ERR_PATH_ABSOLUTE: action 1 (UPDATE_FILE /etc/passwd): the path is absolute; give it "
        "relative to the project root",
    ),
    "ERR_PATH_DRIVE": (
        only(Action("CREATE_FILE", "C:/Windows/x.txt", "x")),
        "ERR_PATH_DRIVE: action 1 (CREATE_FILE C:/Windows/x.txt): a Windows drive path is "
        "outside the project",
    ),
    "ERR_PATH_UNC": (
        only(Action("CREATE_FILE", "//server/share/x.txt", "x")),
        "ERR_PATH_UNC: action 1 (CREATE_FILE //server/share/x.txt): a UNC/network path is "
        "outside the project",
    ),
    "ERR_PATH_HOME": (
        only(Action("CREATE_FILE", "~/notes.txt", "x")),
        "ERR_PATH_HOME: action 1 (CREATE_FILE ~/notes.txt): '~' (a home directory) is not the "
        "project",
    ),
    "ERR_PATH_DOT_SEGMENT": (
        only(Action("CREATE_FILE", "src/../../x.py", "x")),
        "ERR_PATH_DOT_SEGMENT: action 1 (CREATE_FILE src/../../x.py): '.' and '..' segments "
        "are not allowed; give the path from the project root",
    ),
    "ERR_PATH_TOO_LONG": (
        only(Action("CREATE_FILE", "d/" + "a" * 240, "x")),
        "ERR_PATH_TOO_LONG: action 1 (CREATE_FILE d/"
        + "a" * 75
        + "...): the path has 242 characters (at most 240)",
    ),
    "ERR_PATH_INVALID": (
        only(Action("CREATE_FILE", "src\\x.py", "x")),
        "ERR_PATH_INVALID: action 1 (CREATE_FILE src\\x.py): backslashes are not path "
        "separators here",
    ),
    "ERR_PATH_OUTSIDE": (
        _outside,
        "ERR_PATH_OUTSIDE: action 1 (CREATE_FILE link/x.txt): a symlink makes it point outside "
        "the project (to {outside}/x.txt)",
    ),
    "ERR_PATH_PROTECTED": (
        only(Action("CREATE_FILE", ".env", "TOKEN=1\n")),
        "ERR_PATH_PROTECTED: action 1 (CREATE_FILE .env): '.env' is a protected path "
        "(project.protectedPaths); protected files can be read but not created, changed or "
        "deleted",
    ),
    "ERR_TOO_MANY_ACTIONS": (
        only(*(Action("CREATE_DIR", f"d{i}") for i in range(MAX_ACTIONS + 1))),
        "ERR_TOO_MANY_ACTIONS: the plan has 201 actions (at most 200); split the change into "
        "smaller plans",
    ),
    "ERR_FILE_TOO_LARGE": (
        only(Action("CREATE_FILE", "big.json", "a" * (1024 * 1024 + 1))),
        "ERR_FILE_TOO_LARGE: action 1 (CREATE_FILE big.json): the content is 1,048,577 bytes "
        "(at most 1,048,576 for one file); generated or data files this big are not written "
        "from a plan",
    ),
    "ERR_CONTENT_TOO_LARGE": (
        only(
            *(Action("CREATE_FILE", f"{n}.txt", "a" * (1024 * 1024)) for n in range(5)),
            Action("CREATE_FILE", "last.txt", "b"),
        ),
        "ERR_CONTENT_TOO_LARGE: the actions' content is 5,242,881 bytes in all (at most "
        "5,242,880); split the change into smaller plans",
    ),
    "ERR_UNKNOWN_KIND": (
        only(Action("MOVE_FILE", "a.txt", "x")),  # type: ignore[arg-type]
        "ERR_UNKNOWN_KIND: action 1 (MOVE_FILE a.txt): unknown kind 'MOVE_FILE'; use one of "
        "CREATE_DIR, CREATE_FILE, UPDATE_FILE, DELETE_FILE, DELETE_DIR",
    ),
    "ERR_CONFLICTING_ACTIONS": (
        only(Action("CREATE_FILE", "new.txt", "a\n"), Action("DELETE_FILE", "new.txt")),
        "ERR_CONFLICTING_ACTIONS: action 2 (DELETE_FILE new.txt): CREATE_FILE (action 1) and "
        "DELETE_FILE on one path cannot both apply; keep one of them",
    ),
    "ERR_CONTENT_MISSING": (
        only(Action("CREATE_FILE", "new.txt")),
        "ERR_CONTENT_MISSING: action 1 (CREATE_FILE new.txt): CREATE_FILE needs `content`: the "
        "whole new text of the file",
    ),
    "ERR_CONTENT_NUL": (
        only(Action("CREATE_FILE", "new.txt", "ab\x00cd")),
        "ERR_CONTENT_NUL: action 1 (CREATE_FILE new.txt): the content holds a NUL byte (at "
        "character 2); binary data cannot be written as a plan action",
    ),
    "ERR_PSEUDO_BINARY": (
        only(Action("CREATE_FILE", "new.txt", "\x01\x02\x03" + "text" * 4)),
        "ERR_PSEUDO_BINARY: action 1 (CREATE_FILE new.txt): 3 of 19 characters (16%) are "
        "non-printable (limit 10%); this looks like binary data (more than 10% is refused)",
    ),
    "ERR_NOT_UTF8": (
        _binary_delete,
        "ERR_NOT_UTF8: action 1 (DELETE_FILE blob.bin): the file is not UTF-8 text, so undo "
        "could not bring it back; delete it yourself if you mean to",
    ),
    "ERR_UPDATE_WITHOUT_BASE": (
        only(Action("UPDATE_FILE", "src/app.py", "def main():\n    return 2\n")),
        "ERR_UPDATE_WITHOUT_BASE: action 1 (UPDATE_FILE src/app.py): the file was not read "
        "while planning, so its new content would be written blind; read it "
        "(context_requests: read_file) and plan again",
    ),
    "ERR_STALE_BASE": (
        _stale,
        "ERR_STALE_BASE: action 1 (UPDATE_FILE src/app.py): the file changed on disk after the "
        "model read it (stale plan); plan again so the change is made to the current text",
    ),
    "ERR_TARGET_MISSING": (
        only(Action("DELETE_FILE", "src/gone.py")),
        "ERR_TARGET_MISSING: action 1 (DELETE_FILE src/gone.py): the file does not exist and "
        "the plan does not create it",
    ),
    "ERR_CREATE_EXISTS": (
        only(Action("CREATE_FILE", "README.md", "# other\n")),
        "ERR_CREATE_EXISTS: action 1 (CREATE_FILE README.md): the file exists already; use "
        "UPDATE_FILE (after reading it) to change it",
    ),
    "ERR_NOT_A_FILE": (
        only(Action("DELETE_FILE", "docs")),
        "ERR_NOT_A_FILE: action 1 (DELETE_FILE docs): it is a folder, not a file",
    ),
    "ERR_NOT_A_DIR": (
        only(Action("DELETE_DIR", "README.md")),
        "ERR_NOT_A_DIR: action 1 (DELETE_DIR README.md): it is a file; use DELETE_FILE",
    ),
    "ERR_DIR_NOT_EMPTY": (
        only(Action("DELETE_DIR", "docs")),
        "ERR_DIR_NOT_EMPTY: action 1 (DELETE_DIR docs): the folder still holds docs/guide.md "
        "after the plan's deletes; add a DELETE_FILE for each file it should lose (each is "
        "shown in the diff, and undone with the rest)",
    ),
    "ERR_PATCH_INVALID": (
        lambda proj: ([], {}),
        "ERR_PATCH_INVALID: the patch has no file section ('--- a/FILE' then '+++ b/FILE'); "
        "send a unified diff",
    ),
    "ERR_PATCH_HUNK": (
        lambda proj: ([], proj.read("src/app.py")),
        "ERR_PATCH_HUNK: src/app.py: hunk 1 (@@ -1,2 +1,2 @@) does not apply: `old` was not "
        "found in the file (not exactly, not ignoring whitespace, not at 90% similarity).",
    ),
    "ERR_EMPTY_PLAN": (
        lambda proj: ([], {}),
        "ERR_EMPTY_PLAN: the plan has no actions and no patch, and its summary does not start "
        "with 'NO_CHANGES:'; ask for the change again",
    ),
}
PATCHES = {
    "ERR_PATCH_INVALID": "please rename main to start",
    "ERR_PATCH_HUNK": (
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,2 @@\n"
        "-def start_here():\n-    return 41\n+def start_here():\n+    return 42\n"
    ),
}
APPLY_ONLY = {"ERR_NO_PLAN"}
"""Said by the workspace, not by the checks (tests/core/test_plan_apply.py)."""


def test_every_code_has_a_case() -> None:
    assert set(CASES) | APPLY_ONLY == set(ERROR_CODES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_error_code_and_message(proj: Project, code: str) -> None:
    build, expected = CASES[code]
    actions, read = build(proj)
    before = proj.snapshot()
    plan = record(actions, read=read, patch=PATCHES.get(code))
    with pytest.raises(PlanInvalid) as raised:
        prepare(plan, proj.paths, proj.store)
    expected = expected.format(outside=(proj.root.parent / "elsewhere").resolve())
    messages = [error.message for error in raised.value.errors]
    assert raised.value.codes[0] == code, messages
    assert messages[0].splitlines()[0] == expected
    assert proj.snapshot() == before  # nothing written


def test_every_failure_is_listed_at_once(proj: Project) -> None:
    plan = record(
        [
            Action("CREATE_FILE", "/abs.txt", "x"),
            Action("UPDATE_FILE", "src/app.py", "y\n"),
            Action("CREATE_FILE", "ok.txt", "\x00"),
        ]
    )
    with pytest.raises(PlanInvalid) as raised:
        prepare(plan, proj.paths, proj.store)
    assert raised.value.codes == ["ERR_PATH_ABSOLUTE", "ERR_UPDATE_WITHOUT_BASE", "ERR_CONTENT_NUL"]
    assert [e.index for e in raised.value.errors] == [1, 2, 3]


def test_other_conflicts(proj: Project) -> None:
    plan = record(
        [
            Action("UPDATE_FILE", "src/app.py", "a\n"),
            Action("UPDATE_FILE", "src/app.py/", "b\n"),
            Action("DELETE_FILE", "docs/guide.md"),
            Action("DELETE_DIR", "docs"),
            Action("CREATE_FILE", "docs/new.md", "n\n"),
        ],
        read=proj.read("src/app.py"),
    )
    with pytest.raises(PlanInvalid) as raised:
        prepare(plan, proj.paths, proj.store)
    messages = [e.message for e in raised.value.errors]
    assert messages == [
        "ERR_CONFLICTING_ACTIONS: action 2 (UPDATE_FILE src/app.py/): the path appears twice "
        "as UPDATE_FILE (also action 1); merge them into one action",
        "ERR_CONFLICTING_ACTIONS: action 5 (CREATE_FILE docs/new.md): it writes inside docs, "
        "which action 4 deletes",
    ]


@pytest.mark.parametrize(
    "path", ["./src/app.py", "src/./app.py", "..", "src/..", "~root/x", "\\\\server\\x", "c:x"]
)
def test_spellings_that_leave_or_hide_the_root(proj: Project, path: str) -> None:
    with pytest.raises(PlanInvalid) as raised:
        prepare(record([Action("CREATE_FILE", path, "x")]), proj.paths, proj.store)
    assert raised.value.codes[0].startswith("ERR_PATH_")
    assert f"(CREATE_FILE {path})" in raised.value.errors[0].message


def test_protected_paths_use_the_project_policy(proj: Project) -> None:
    (proj.root / "keys").mkdir()
    (proj.root / "keys/server.pem").write_text("secret\n")
    for action in (
        Action("DELETE_FILE", "keys/server.pem"),
        Action("UPDATE_FILE", ".git/config", "x"),
        Action("CREATE_FILE", "app/secrets/token.txt", "x"),
        Action("UPDATE_FILE", ".ipuaro.json", "{}"),
    ):
        with pytest.raises(PlanInvalid) as raised:
            prepare(record([action], read={action.path: "x"}), proj.paths, proj.store)
        assert raised.value.codes == ["ERR_PATH_PROTECTED"], action


def test_order_dirs_then_files_then_deletes_then_dirs() -> None:
    actions = [
        Action("DELETE_DIR", "old"),
        Action("DELETE_FILE", "old/a.txt"),
        Action("UPDATE_FILE", "x.py", "x"),
        Action("DELETE_DIR", "old/deep/er"),
        Action("CREATE_FILE", "new/deep/f.txt", "f"),
        Action("CREATE_DIR", "new/deep"),
        Action("CREATE_DIR", "new"),
        Action("DELETE_DIR", "old/deep"),
    ]
    assert [(a.kind, a.path) for a in ordered(actions)] == [
        ("CREATE_DIR", "new"),
        ("CREATE_DIR", "new/deep"),
        ("UPDATE_FILE", "x.py"),
        ("CREATE_FILE", "new/deep/f.txt"),
        ("DELETE_FILE", "old/a.txt"),
        ("DELETE_DIR", "old/deep/er"),
        ("DELETE_DIR", "old/deep"),
        ("DELETE_DIR", "old"),
    ]


def test_a_valid_plan_keeps_each_files_line_endings(proj: Project) -> None:
    (proj.root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    plan = record([Action("UPDATE_FILE", "win.txt", "one\nTWO\nthree")], read=proj.read("win.txt"))
    prepared = prepare(plan, proj.paths, proj.store)
    (change,) = prepared.changes
    assert change.new_text == "one\r\nTWO\r\nthree\r\n"


def test_folders_the_plan_needs_are_listed(proj: Project, tmp_path: Path) -> None:
    plan = record([Action("CREATE_FILE", "a/b/c.txt", "c"), Action("CREATE_DIR", "a/z")])
    prepared = prepare(plan, proj.paths, proj.store)
    assert prepared.dirs_created == ["a", "a/z", "a/b"]
    assert prepared.summary().splitlines() == [
        "+ folder a/",
        "+ folder a/z/",
        "+ folder a/b/",
        "+ a/b/c.txt (new)",
    ]


def test_a_store_that_fails_before_the_writes_leaves_every_file(proj: Project) -> None:
    """The undo history is stored first; when it cannot be, nothing is written."""
    from tests.planning.conftest import write_plan

    prepared = prepare(record([Action("CREATE_FILE", "new/a.txt", "a")]), proj.paths, proj.store)
    before = proj.snapshot()
    proj.store.close()  # the store is gone (a deleted or unreachable database)
    done = write_plan(prepared, proj.store, lambda changed, deleted: None, "add a")
    assert not done.applied and done.status == "failed"
    assert done.message.startswith("nothing was applied: the undo history could not be stored")
    assert proj.snapshot() == before and not (proj.root / "new").exists()
