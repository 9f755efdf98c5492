"""JSON and YAML: top-level keys, package.json sections, comments, invalid files."""

from __future__ import annotations

from ipuaro.index.parsers import parse_source

from .support import parse_fixture


def test_package_json_keys_include_scripts_and_dependencies() -> None:
    parsed = parse_fixture("package.json")
    ast = parsed.ast
    assert ast.language == "json" and not ast.parse_error
    assert ast.keys == [
        "name",
        "version",
        "private",
        "scripts",
        "dependencies",
        "devDependencies",
        "workspaces",
        "scripts.build",
        "scripts.test",
        "scripts.lint",
        "dependencies.react",
        "dependencies.react-dom",
        "devDependencies.typescript",
        "devDependencies.vitest",
    ]
    assert parsed.references() == [] and parsed.indexes.symbols == []
    assert parsed.nesting == 0


def test_other_json_files_list_only_top_level_keys() -> None:
    text = '{"scripts": {"build": "x"}, "nested": {"deep": {"a": 1}}}'
    assert parse_source("config/app.json", text).ast.keys == ["scripts", "nested"]


def test_tsconfig_comments_and_trailing_commas_are_not_errors() -> None:
    ast = parse_fixture("tsconfig.json").ast
    assert ast.keys == ["compilerOptions", "include"]
    assert ast.parse_error is False


def test_trailing_comma_is_an_error_in_plain_json() -> None:
    ast = parse_source("data/list.json", '{"a": 1,}').ast
    assert ast.parse_error is True
    assert ast.keys == ["a"]


def test_invalid_json_sets_parse_error_and_keeps_what_parsed() -> None:
    ast = parse_fixture("broken.json").ast
    assert ast.parse_error is True
    assert ast.keys[:2] == ["name", "version"]


def test_json_that_is_not_an_object() -> None:
    for text in ("[1, 2, 3]", '"just a string"', ""):
        ast = parse_source("data/x.json", text).ast
        assert ast.keys == []


def test_yaml_keys_across_documents_and_comment_todos() -> None:
    ast = parse_fixture("deploy.yaml").ast
    assert ast.language == "yaml" and not ast.parse_error
    assert ast.keys == ["apiVersion", "kind", "metadata", "spec", "data"]
    assert [(t.line, t.tag, t.text) for t in ast.todos] == [
        (2, "TODO", "move the image tag to CI"),
        (9, "FIXME", "autoscale instead"),
    ]


def test_yaml_flow_mapping_and_yml_extension() -> None:
    assert parse_source("ci/config.yml", "{a: 1, 'b': 2}\n").ast.keys == ["a", "b"]


def test_yaml_sequence_document_has_no_keys() -> None:
    ast = parse_source("list.yaml", "- a\n- b\n")
    assert ast.ast.keys == []


def test_invalid_yaml_sets_parse_error() -> None:
    ast = parse_source("bad.yaml", "key: [unclosed\nother: {\n").ast
    assert ast.parse_error is True
