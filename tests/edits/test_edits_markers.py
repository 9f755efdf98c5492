"""edit_file marker merge: deterministic placement or a clear refusal (then the planner)."""

from __future__ import annotations

import pytest

from ipuaro.edits.markers import MergeFailed, is_marker, merge_markers

TS = [
    "import { a } from './a';",
    "",
    "export function first() {",
    "  return 1;",
    "}",
    "",
    "export function second() {",
    "  return 2;",
    "}",
    "",
    "export function third() {",
    "  return 3;",
    "}",
]


def test_marker_forms() -> None:
    for line in (
        "// ... existing code ...",
        "  // ...existing code...",
        "# ... existing code ...",
        "/* ... existing code ... */",
        "<!-- ... existing code -->",
        "// ... rest of the file unchanged ...",
        "...",
    ):
        assert is_marker(line), line
    for line in ("// existing code", "x = '...'", "# ... see below for details"):
        assert not is_marker(line), line


def test_replaces_a_function_body_between_markers() -> None:
    sketch = (
        "// ... existing code ...\n"
        "export function second() {\n"
        "  const two = 2;\n"
        "  return two;\n"
        "}\n"
        "// ... existing code ..."
    )
    out = merge_markers(TS, sketch)
    assert out[6:11] == [
        "export function second() {",
        "  const two = 2;",
        "  return two;",
        "}",
        "",
    ]
    assert out[:6] == TS[:6]
    assert out[-3:] == TS[-3:]


def test_two_chunks_in_order() -> None:
    sketch = (
        "import { a } from './a';\n"
        "import { b } from './b';\n"
        "// ... existing code ...\n"
        "export function third() {\n"
        "  return a() + b();\n"
        "}\n"
    )
    out = merge_markers(TS, sketch)
    assert out[0:2] == ["import { a } from './a';", "import { b } from './b';"]
    assert out[-3:] == ["export function third() {", "  return a() + b();", "}"]
    assert out[2:-3] == TS[1:-3]


def test_python_hash_markers() -> None:
    py = ["def a():", "    return 1", "", "def b():", "    return 2", ""]
    sketch = "# ... existing code ...\ndef b():\n    return 3\n"
    # No trailing marker: the chunk runs to the end of the file.
    out = merge_markers(py, sketch)
    assert out == ["def a():", "    return 1", "", "def b():", "    return 3"]


def test_missing_anchor_fails_with_the_line() -> None:
    sketch = "// ... existing code ...\nfunction nowhere() {\n  x();\n}\n// ... existing code ..."
    with pytest.raises(MergeFailed) as error:
        merge_markers(TS, sketch)
    assert "function nowhere() {" in str(error.value)


def test_ambiguous_head_fails() -> None:
    lines = ["x = 1", "y = 2", "x = 1", "y = 3"]
    with pytest.raises(MergeFailed) as error:
        merge_markers(lines, "# ... existing code ...\nx = 1\nz = 0\n# ... existing code ...")
    assert "appears 2 times" in str(error.value)


def test_forgotten_leading_marker_does_not_delete_the_top_of_the_file() -> None:
    sketch = "export function third() {\n  return 33;\n}"
    out = merge_markers(TS, sketch)
    assert out[:10] == TS[:10]
    assert out[10:] == ["export function third() {", "  return 33;", "}"]


def test_no_markers_and_unplaceable_fails_instead_of_overwriting() -> None:
    with pytest.raises(MergeFailed):
        merge_markers(TS, "const brandNew = true;")


def test_only_markers_is_refused() -> None:
    with pytest.raises(MergeFailed):
        merge_markers(TS, "// ... existing code ...\n// ... existing code ...")


BROKEN_TS = [
    'import { ok } from "./ok";',
    "",
    "export function before(a: number): number {",
    "  return a + 1;",
    "}",
    "",
    "export class Service {",
    "  run(): void {",
    "    const x = ;",
    "  }",
    "}",
    "",
    "function broken( {",
    "  return 1",
    "",
    'export const after = (): string => "still here";',
]


def test_closing_line_indented_against_its_context_is_not_guessed() -> None:
    # Found by the sloppy edit_file property: the sketch drops `  }` and ends its chunk with the
    # class's `}`. Read by the lines before it, `}` is line 10; read by its indentation, line 11.
    # Picking line 10 kept both braces (an extra `}` written); a mis-indented `  }` reads the
    # same, so the merge refuses instead of choosing.
    sketch = (
        "// ... existing code ...\n"
        "  run(): void {\n"
        "    const x = ;\n"
        "}\n"
        "// ... existing code ...\n"
        "function broken( {\n"
        "  return 1\n"
        "// ... existing code ..."
    )
    intended = BROKEN_TS[:9] + BROKEN_TS[10:]
    try:
        out = merge_markers(BROKEN_TS, sketch)
    except MergeFailed as failure:
        assert "'}'" in str(failure) and "line 10" in str(failure) and "line 11" in str(failure)
    else:
        assert out == intended


def test_closing_line_at_its_own_depth_still_merges() -> None:
    sketch = (
        "// ... existing code ...\n  run(): void {\n    const x = 1;\n  }\n// ... existing code ..."
    )
    out = merge_markers(BROKEN_TS, sketch)
    assert out == [*BROKEN_TS[:8], "    const x = 1;", *BROKEN_TS[9:]]


def test_closing_line_among_the_leading_context_is_not_the_tail() -> None:
    # Found by the property: ` *` closes the chunk and also stands among its unchanged leading
    # lines; the tail was taken there (the smallest region) and the old lines kept twice.
    doc = [
        "/**",
        " * Intro:",
        " *",
        " * 1. one",
        " * 2. two",
        " *",
        " * Both",
        " *",
        " * ### Next",
        " */",
    ]
    sketch = (
        "// ... existing code ...\n * Intro:\n *\n * 1. one\n changed = * 2. two\n *\n"
        " // ... existing code ...\n *\n * ### Next\n// ... existing code ..."
    )
    assert merge_markers(doc, sketch) == [*doc[:4], " changed = * 2. two", *doc[5:]]


def test_python_return_among_the_leading_context_is_not_the_tail() -> None:
    py = [
        "def f(uri, referer):",
        "    if not referer:",
        "        return True",
        "",
        "    if uri == referer:",
        "        return True",
        "",
        "    # second",
        '    if "?" in referer:',
        "        return True",
        "",
        "    # third",
        "    parsed = 1",
    ]
    sketch = (
        "# ... existing code ...\n    if uri == referer:\n        return True\n\n    # second\n"
        '    changed = if "?"\n        return True\n# ... existing code ...\n    # third\n'
        "    parsed = 1\n# ... existing code ..."
    )
    assert merge_markers(py, sketch) == [*py[:8], '    changed = if "?"', *py[9:]]


# --- a chunk at the wrong depth (issue 24): re-indented to its anchor, never re-nested --------

CART = [
    "class Cart:",
    "    def __init__(self):",
    "        self.items = []",
    "",
    "    def add(self, item):",
    "        self.items.append(item)",
    "",
    "    def total(self):",
    "        return sum(self.items)",
    "",
    "    def clear(self):",
    "        self.items = []",
]
CART_AFTER = [*CART[:6], "        self.count += 1", *CART[6:]]


def test_a_chunk_four_columns_too_far_left_is_merged_at_its_anchors_depth() -> None:
    """The class kept all its methods: add, total and clear did not fall out to column 0."""
    sketch = (
        "# ... existing code ...\ndef add(self, item):\n    self.items.append(item)\n"
        "    self.count += 1\n\ndef total(self):\n# ... existing code ...\n"
    )
    assert merge_markers(CART, sketch) == CART_AFTER


def test_a_chunk_with_no_closing_anchor_too_far_left_keeps_the_nesting() -> None:
    sketch = (
        "# ... existing code ...\ndef add(self, item):\n    self.items.append(item)\n"
        "    self.count += 1\n# ... existing code ...\n"
    )
    assert merge_markers(CART, sketch) == CART_AFTER


def test_a_chunk_too_far_right_is_moved_left_to_its_anchor() -> None:
    sketch = (
        "// ... existing code ...\n        add(item) {\n          this.items.push(item);\n"
        "          this.count++;\n        }\n// ... existing code ...\n"
    )
    ts = ["class Cart {", "  add(item) {", "    this.items.push(item);", "  }", "", "  clear() {"]
    ts += ["    this.items = [];", "  }", "}"]
    expected = [*ts[:3], "    this.count++;", *ts[3:]]
    assert merge_markers(ts, sketch) == expected


def test_a_chunk_that_cannot_move_to_its_anchors_depth_is_refused() -> None:
    sketch = (
        "# ... existing code ...\n        def add(self, item):\n"
        "            self.items.append(item)\n  # logged\n\n        def total(self):\n"
        "# ... existing code ...\n"
    )
    with pytest.raises(MergeFailed, match="change what it is nested in"):
        merge_markers(CART, sketch)
