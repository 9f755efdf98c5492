"""memory_patch checking: every key lands in exactly one bucket, only whitelisted keys with
values of the right type become changes, and what is written reads back as the same value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ipuaro.memory import (
    KEYS,
    InvalidValue,
    apply_changes,
    check_patch,
    load_memory,
    parse_text,
    spec_for,
)
from ipuaro.memory.keys import KeySpec, check_value

WHITELIST = {spec.key for spec in KEYS}

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=10),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
any_key = st.one_of(st.sampled_from(sorted(WHITELIST)), st.text(max_size=30))


def valid_value(spec: KeySpec) -> st.SearchStrategy[Any]:
    """Values a careful writer would send for ``spec`` (the checks must accept every one)."""
    word = st.from_regex(r"[a-z][a-z0-9_.-]{0,15}", fullmatch=True)
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    if spec.kind == "count":
        return st.integers(spec.low, spec.high)
    if spec.kind == "command":
        return st.lists(word, min_size=1, max_size=4).map(" ".join)
    if spec.kind == "name":
        return word
    if spec.kind == "folders":
        return st.lists(st.lists(word, min_size=1, max_size=3).map("/".join), max_size=5)
    return st.text(
        st.characters(blacklist_categories=("Cs", "Cc")) | st.just("\n"), min_size=1
    ).filter(lambda t: t.strip() != "")


def patches_of_valid_values() -> st.SearchStrategy[dict[str, Any]]:
    return st.lists(st.sampled_from(KEYS), unique=True, max_size=len(KEYS)).flatmap(
        lambda specs: st.fixed_dictionaries({s.key: valid_value(s) for s in specs})
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patch=st.dictionaries(any_key, json_value, max_size=12))
def test_any_patch_is_sorted_without_raising(patch: dict[str, Any], tmp_path: Path) -> None:
    assume(not any(k.strip().lower() in ("user", "project") for k in patch))  # nested: below
    memory = load_memory(tmp_path)
    check = check_patch(patch, memory)
    changed = [c.key for c in check.changes]
    invalid = [key for key, _ in check.invalid]
    buckets = changed + list(check.unchanged) + invalid
    assert len(buckets) == len(set(buckets)), "a key in two buckets"
    assert set(buckets) <= WHITELIST
    whitelisted = {spec_for(k).key for k in patch if spec_for(k) is not None}  # type: ignore[union-attr]
    assert set(buckets) == whitelisted
    assert len(check.dropped) == sum(1 for k in patch if spec_for(k) is None)
    for change in check.changes:  # a stored value is a fixed point of the checks
        if change.new is not None:
            spec = spec_for(change.key)
            assert spec is not None
            assert check_value(spec, change.new) == change.new


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patch=patches_of_valid_values())
def test_valid_values_are_accepted_and_read_back_after_writing(
    patch: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("project")
    env = {"IPUARO_CONFIG_DIR": str(tmp_path_factory.mktemp("config"))}
    check = check_patch(patch, load_memory(root, env))
    assert not check.invalid and not check.dropped
    after = apply_changes(root, check.changes, env)
    assert after.problems == ()
    for change in check.changes:
        assert after.get(change.key) == change.new
    again = check_patch(patch, after)  # the same patch again changes nothing
    assert again.changes == () and set(again.unchanged) == set(patch)


@pytest.mark.parametrize(
    ("key", "value", "expects"),
    [
        ("user.ask_budget", 3, "a whole number 0..2"),
        ("user.ask_budget", True, "a whole number 0..2"),
        ("user.ask_budget", "two", "a whole number 0..2"),
        ("user.preferred_style", "terse", "one of brief | normal | verbose"),
        ("user.output_format", 1, "one of patch_first | plan_first"),
        ("project.src_roots", ["../outside"], "leaves the project"),
        ("project.src_roots", ["/etc"], "not a project-relative folder"),
        ("project.test_roots", {"a": 1}, "a list of project-relative folders"),
        ("project.default_test_command", "pytest\nrm -rf /", "line break"),
        ("project.default_test_command", "", "empty"),
        ("project.default_test_command", ["pytest"], "a one-line shell command"),
        ("project.package_manager", "npm; curl x", "a short name"),
        ("project.ci_notes", "x" * 2001, "2001 characters"),
    ],
)
def test_a_wrong_value_names_the_key_and_what_it_expects(
    key: str, value: Any, expects: str, tmp_path: Path
) -> None:
    check = check_patch({key: value}, load_memory(tmp_path))
    assert check.changes == ()
    [(bad_key, message)] = check.invalid
    assert bad_key == key and message.startswith(f"{key} must be") and expects in message


def test_lenient_spelling_from_small_models(tmp_path: Path) -> None:
    patch = {
        " User.Ask_Budget ": "1",
        "user.output_format": "Plan-First",
        "project": {"src_roots": "src, lib/", "test_roots": ["./tests", "tests"]},
    }
    check = check_patch(patch, load_memory(tmp_path))
    assert {c.key: c.new for c in check.changes} == {
        "user.ask_budget": 1,
        "user.output_format": "plan_first",
        "project.src_roots": ("src", "lib"),
        "project.test_roots": ("tests",),
    }


def test_null_forgets_and_unknown_keys_are_dropped_and_listed(tmp_path: Path) -> None:
    (tmp_path / ".ipuaro").mkdir()
    (tmp_path / ".ipuaro" / "project.json").write_text('{"ci_notes": "GitHub Actions"}')
    check = check_patch(
        {"project.ci_notes": None, "permissions.allow": "rm", "user.secret": 1},
        load_memory(tmp_path),
    )
    assert [(c.key, c.old, c.new) for c in check.changes] == [
        ("project.ci_notes", "GitHub Actions", None)
    ]
    assert check.dropped == ("permissions.allow", "user.secret")
    lines = check.lines()
    assert "project.ci_notes: 'GitHub Actions' → (not set)" in lines
    assert "permissions.allow: dropped (not a memory key)" in lines
    assert any(line.startswith("the memory keys are: user.preferred_style") for line in lines)


@pytest.mark.parametrize("patch", [[{"a": 1}], "remember pytest", 7])
def test_a_patch_that_is_not_an_object_is_one_clear_refusal(patch: Any, tmp_path: Path) -> None:
    check = check_patch(patch, load_memory(tmp_path))
    assert check.invalid == (("memory_patch", "must be an object of memory keys and values"),)


def test_command_line_values(tmp_path: Path) -> None:
    folders = spec_for("project.src_roots")
    count = spec_for("user.ask_budget")
    assert folders is not None and count is not None
    assert parse_text(folders, '["src", "lib"]') == ("src", "lib")
    assert parse_text(folders, "src, lib") == ("src", "lib")
    assert parse_text(count, " 2 ") == 2
    with pytest.raises(InvalidValue, match=r"user\.ask_budget must be a whole number 0\.\.2"):
        parse_text(count, "9")


def test_written_files_are_plain_json_with_short_names(tmp_path: Path) -> None:
    env = {"IPUARO_CONFIG_DIR": str(tmp_path / "cfg")}
    patch = {"user.preferred_style": "brief", "project.src_roots": ["src"]}
    apply_changes(tmp_path, check_patch(patch, load_memory(tmp_path, env)).changes, env)
    assert json.loads((tmp_path / "cfg" / "preferences.json").read_text()) == {
        "preferred_style": "brief"
    }
    assert json.loads((tmp_path / ".ipuaro" / "project.json").read_text()) == {"src_roots": ["src"]}
