"""A symbol is its whole declaration (issue 24): for ``edit_symbol`` insert_before and delete,
a TypeScript function's overload signatures, its decorators and the JSDoc right above it belong
to it. Spans come from the real index parser; the ``corpora`` lane lets ``tsc`` judge that an
edit which type-checks before still type-checks after."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ipuaro.edits.symbols import Action, Span, edit_symbol_lines
from ipuaro.index.parsers import parse_source

HERE = Path(__file__).resolve().parent
TS = """/** Parse a value. */
export function parse(x: string): number;
export function parse(x: number): number;
export function parse(x: string | number): number {
  return typeof x === "string" ? 1 : x;
}

/**
 * Boxes.
 */
class Box {
  /** Open it. */
  @tag
  open(): void {}

  /** Close it. */
  close(a: number): void;
  close(a: string): void;
  close(a: number | string): void {}
}

function tag(target: any, key: string, d: any): any {
  return d;
}
"""
JS = """/**
 * Return a stat, maybe.
 * @private
 */
function tryStat(path) {
  return path;
}

module.exports = tryStat;
"""
NEW_TS = "export function helper(): number {\n  return 1;\n}"


def span(path: str, text: str, name: str) -> Span:
    ast = parse_source(path, text).ast
    found = {f.name: (f.line_start, f.line_end) for f in ast.functions}
    for cls in ast.classes:
        found[cls.name] = (cls.line_start, cls.line_end)
        for method in cls.methods:
            found[f"{cls.name}.{method.name}"] = (method.line_start, method.line_end)
    start, end = found[name]
    language = "typescript" if path.endswith(".ts") else "javascript"
    return Span(start, end, language)


def edit(path: str, text: str, name: str, action: Action, code: str = "") -> str:
    lines = text.split("\n")
    return "\n".join(edit_symbol_lines(lines, span(path, text, name), action, code))


def test_insert_before_an_overloaded_function_lands_above_its_jsdoc_and_overloads() -> None:
    after = edit("a.ts", TS, "parse", "insert_before", NEW_TS)
    assert after.startswith(NEW_TS + "\n\n/** Parse a value. */\nexport function parse(x: string)")


def test_delete_takes_the_overloads_and_the_jsdoc_with_the_function() -> None:
    after = edit("a.ts", TS, "parse", "delete")
    assert "parse" not in after and "Parse a value" not in after
    assert after.startswith("/**\n * Boxes.\n */\nclass Box {")


def test_a_method_goes_with_its_overloads_decorators_and_doc_comment() -> None:
    after = edit("a.ts", TS, "Box.close", "delete")
    assert "close" not in after and "Close it" not in after
    after = edit("a.ts", TS, "Box.open", "insert_before", "shut(): void {}")
    assert "  shut(): void {}\n\n  /** Open it. */\n  @tag\n  open(): void {}" in after


def test_javascript_insert_before_keeps_the_jsdoc_on_its_function() -> None:
    """express lib/view.js: an insert before tryStat slid between it and its JSDoc."""
    after = edit("view.js", JS, "tryStat", "insert_before", "function other() {\n  return 1;\n}")
    assert after.startswith("function other() {\n  return 1;\n}\n\n/**\n * Return a stat")
    assert "@private\n */\nfunction tryStat(path) {" in after


# --- tsc as the judge (opt-in: pytest -m corpora) -------------------------------------------

TYPESCRIPT_SHA256 = "6826f763112d55de0093fd94a4257cabadf1f40b387757e7c68485fc971e886b"


@pytest.fixture(scope="module")
def typescript() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("the corpora lane needs node and npm (apt-get install -y nodejs npm)")
    cache = Path.home() / ".cache" / "ipuaro-corpora" / "ts15"
    package = cache / "typescript-5.7.2" / "package"
    if not package.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        tgz = cache / "typescript-5.7.2.tgz"
        if not tgz.is_file():
            subprocess.run(["npm", "pack", "-q", "typescript@5.7.2"], cwd=cache, check=True)
        assert hashlib.sha256(tgz.read_bytes()).hexdigest() == TYPESCRIPT_SHA256
        (cache / "typescript-5.7.2").mkdir(exist_ok=True)
        subprocess.run(["tar", "xzf", str(tgz), "-C", str(cache / "typescript-5.7.2")], check=True)
    return package


def judge(typescript: Path, files: list[Path]) -> dict[str, list[int]]:
    done = subprocess.run(
        ["node", str(HERE / "ts_check_judge.cjs"), str(typescript)],
        input=json.dumps([str(f) for f in files]),
        capture_output=True,
        text=True,
        check=True,
    )
    verdicts: dict[str, list[int]] = json.loads(done.stdout)
    return verdicts


@pytest.mark.corpora
@pytest.mark.parametrize(
    ("name", "action", "code"),
    [
        ("parse", "insert_before", NEW_TS),
        ("parse", "delete", ""),
        ("Box.close", "insert_before", "shut(): void {}"),
        ("Box.close", "delete", ""),
        ("Box.open", "delete", ""),
    ],
)
def test_an_edit_that_type_checks_before_still_type_checks_after(
    typescript: Path, tmp_path: Path, name: str, action: Action, code: str
) -> None:
    before, after = tmp_path / "before.ts", tmp_path / "after.ts"
    before.write_text(TS)
    after.write_text(edit("a.ts", TS, name, action, code))
    verdicts = judge(typescript, [before, after])
    assert verdicts[str(before)] == []
    assert verdicts[str(after)] == [], after.read_text()
