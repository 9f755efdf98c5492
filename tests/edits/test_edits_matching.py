"""replace matching: exact, whitespace-tolerant, fuzzy — and never a guess."""

from __future__ import annotations

import pytest

from ipuaro.edits.matching import MatchError, find_and_replace

FILE = [
    "function add(a, b) {",
    "  return a + b;",
    "}",
    "",
    "function sub(a, b) {",
    "  return a - b;",
    "}",
]


def test_exact_unique_match_replaces_once() -> None:
    result = find_and_replace(FILE, "return a - b;", "return b - a;")
    assert result.strategy == "exact"
    assert result.lines[5] == "  return b - a;"
    assert result.lines[:5] == FILE[:5]


def test_exact_duplicate_is_refused_with_line_numbers() -> None:
    with pytest.raises(MatchError) as error:
        find_and_replace(FILE, "(a, b) {", "(x, y) {")
    assert "2 times" in str(error.value)
    assert "lines 1, 5" in str(error.value)


def test_replace_all_changes_every_occurrence() -> None:
    result = find_and_replace(FILE, "(a, b)", "(x, y)", replace_all=True)
    assert result.count == 2
    assert result.lines[0] == "function add(x, y) {"
    assert result.lines[4] == "function sub(x, y) {"


def test_indentation_differences_match_and_new_text_is_reindented() -> None:
    nested = ["class A {", "    run() {", "        go();", "        stop();", "    }", "}"]
    result = find_and_replace(nested, "go();\nstop();", "go();\npause();\nstop();")
    assert result.strategy == "whitespace"
    assert result.lines == [
        "class A {",
        "    run() {",
        "        go();",
        "        pause();",
        "        stop();",
        "    }",
        "}",
    ]


def test_trailing_whitespace_is_ignored() -> None:
    lines = ["a = 1   ", "b = 2"]
    result = find_and_replace(lines, "a = 1\nb = 2", "a = 3\nb = 4")
    assert result.strategy == "whitespace"
    assert result.lines == ["a = 3", "b = 4"]


def test_fuzzy_unique_match_applies_above_threshold() -> None:
    lines = [
        "def total(items):",
        "    result = 0",
        "    for item in items:",
        "        result += item.price * item.quantity",
        "    return result",
        "",
        "def other():",
        "    pass",
    ]
    old = (
        "def total(items):\n    result = 0\n    for item in items:\n"
        "        result += item.price * item.qty\n    return result"
    )
    result = find_and_replace(
        lines, old, "def total(items):\n    return sum(i.price for i in items)", threshold=0.9
    )
    assert result.strategy == "fuzzy"
    assert result.similarity >= 0.9
    assert result.lines[:2] == ["def total(items):", "    return sum(i.price for i in items)"]
    assert result.lines[2:] == ["", "def other():", "    pass"]


def test_fuzzy_refuses_to_choose_between_two_similar_places() -> None:
    lines = [
        "if (user.isAdmin) {",
        "  grantAccess(user, 'admin');",
        "}",
        "if (user.isEditor) {",
        "  grantAccess(user, 'editor');",
        "}",
    ]
    with pytest.raises(MatchError) as error:
        find_and_replace(
            lines, "if (user.isAdmn) {\n  grantAccess(user, 'admn');\n}", "x", threshold=0.8
        )
    assert "Not guessing" in str(error.value)


def test_not_found_shows_closest_lines_and_the_line_that_matched_nothing() -> None:
    with pytest.raises(MatchError) as error:
        find_and_replace(FILE, "function mul(x) {\n  return x * x * x;\n}", "x")
    message = str(error.value)
    assert "'function mul(x) {'" in message
    assert "Closest lines" in message
    assert "5| function sub(a, b) {" in message


def test_a_runner_up_almost_as_similar_makes_fuzzy_refuse() -> None:
    # `mul` is 92 % like `sub` but 89 % like `add`: picking one would be a guess.
    with pytest.raises(MatchError, match="Not guessing"):
        find_and_replace(FILE, "function mul(a, b) {\n  return a * b;\n}", "x")


def test_empty_and_identical_old_are_refused() -> None:
    with pytest.raises(MatchError):
        find_and_replace(FILE, "   ", "x")
    with pytest.raises(MatchError):
        find_and_replace(FILE, "return a + b;", "return a + b;")


def test_crlf_in_old_matches_lf_lines() -> None:
    result = find_and_replace(
        FILE, "function add(a, b) {\r\n  return a + b;", "function add(a, b) {\r\n  return 0;"
    )
    assert result.lines[1] == "  return 0;"


def test_fuzzy_search_in_a_40k_line_file_finds_the_block() -> None:
    """How long it takes is measured in bench/hot_paths_bench.py (a wall-clock bound here failed
    on a loaded machine)."""
    import random
    import string

    rng = random.Random(7)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 10)))

    lines = [
        f"    {word()} = {word()}({word()}, {word()}={rng.randint(0, 999)})" for _ in range(40_000)
    ]
    target = lines[20_000:20_002]
    old = target[0] + "\n" + target[1].replace("=", "= ", 1)  # one typo-level difference
    result = find_and_replace(lines, old, "    merged = 0", threshold=0.9)
    assert result.strategy == "fuzzy"
    assert result.lines[20_000] == "    merged = 0"
    assert result.lines[20_001] == lines[20_002]
    assert len(result.lines) == 40_000 - 1
