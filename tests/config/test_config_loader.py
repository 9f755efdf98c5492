"""Layered loading: precedence, environment parsing, and one-line errors naming the key."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from ipuaro.config.loader import (
    CONCEPT_KEYS,
    ConfigError,
    default_config_json,
    find_project_root,
    load_config,
)
from ipuaro.config.schema import Config

# The concept's config/default.json (seeds/000), with its two "llm" objects merged.
CONCEPT_DEFAULTS: dict[str, dict[str, Any]] = {
    "redis": {"host": "localhost", "port": 6379, "db": 0},
    "llm": {
        "provider": "ollama",
        "model": "qwen2.5-coder:7b-instruct",
        "contextWindow": 128000,
        "temperature": 0.1,
        "systemPromptLanguage": "en",
        "toolFormat": "xml",
        "autoRetry": False,
        "cache": False,
    },
    "project": {
        "scope": "repository",
        "ignorePatterns": ["node_modules", "dist", "build", ".git", "*.min.js"],
        "binaryExtensions": [".png", ".jpg", ".pdf", ".zip", ".woff"],
    },
    "session": {"persistIndefinitely": True, "maxHistoryMessages": 100, "saveInputHistory": True},
    "context": {
        "systemPromptTokens": 2000,
        "maxContextUsage": 0.8,
        "autoCompressAt": 0.8,
        "compressionMethod": "llm-summary",
    },
    "watchdog": {"debounceMs": 500},
    "commands": {"timeout": 30.0},  # issue 26: a default time-out (was null)
    "undo": {"stackSize": 10},
    "edit": {
        "alwaysConfirm": True,
        "autoApply": False,
        "showDiff": True,
        "diffFormat": "inline-highlights",
        "syntaxHighlight": True,
        "showDescription": True,
        "wrapLongLines": True,
    },
    "display": {
        "showStats": True,
        "showToolCalls": True,
        "theme": "dark",
        "bellOnComplete": True,
        "progressBar": True,
    },
    "autocomplete": {"source": "redis-index"},
    "input": {"multiline": "auto"},
    "limits": {"maxFilesWarning": 10000, "encoding": "utf-8"},
}


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def error_of(project: Path | None, **kwargs: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(project, **kwargs)
    message = str(caught.value)
    assert "\n" not in message, "a config error must be one line"
    return message


# --- defaults -------------------------------------------------------------------------------


def test_defaults_without_any_file_equal_the_schema_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()
    assert load_config(None, env={}) == Config()


def test_init_output_has_exactly_the_concept_keys_and_values() -> None:
    written = json.loads(default_config_json())
    assert {s: set(v) for s, v in written.items()} == {
        s: set(v) for s, v in CONCEPT_DEFAULTS.items()
    }
    assert {s: set(v) for s, v in CONCEPT_KEYS.items()} == {
        s: set(v) for s, v in CONCEPT_DEFAULTS.items()
    }
    for section, values in CONCEPT_DEFAULTS.items():
        for key, concept_value in values.items():
            if (section, key) == ("llm", "toolFormat"):
                # PRODUCT.md §2 decides: "auto" (native calls when supported, text otherwise).
                assert written[section][key] == "auto"
            elif (section, key) == ("llm", "contextWindow"):
                # Issue 10: 128K whatever the server serves broke every small local server;
                # null asks the server (llm/served.py, llm/window.py).
                assert written[section][key] is None
            else:
                assert written[section][key] == concept_value, f"{section}.{key}"


def test_shipped_command_lists_are_the_concepts() -> None:
    data = resources.files("ipuaro.config") / "data"
    blacklist = json.loads((data / "blacklist.json").read_text(encoding="utf-8"))
    whitelist = json.loads((data / "whitelist.json").read_text(encoding="utf-8"))
    assert "rm -rf" in blacklist["commands"] and "git push --force" in blacklist["commands"]
    assert whitelist["default"][:3] == ["npm", "pnpm", "yarn"]
    assert whitelist["askForUnknown"] is True


def test_user_extends_the_whitelist_in_config(tmp_path: Path, isolated_environment: Path) -> None:
    write_json(isolated_environment / "config.json", {"whitelist": {"user": ["make", "cargo"]}})
    assert load_config(tmp_path).whitelist.user == ["make", "cargo"]


# --- precedence -----------------------------------------------------------------------------


LAYERS = ["user", "project", "env", "config_file", "overrides"]


@pytest.mark.parametrize("top", range(len(LAYERS)))
def test_each_layer_beats_the_ones_below(
    top: int, tmp_path: Path, isolated_environment: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {"IPUARO_CONFIG_DIR": str(isolated_environment)}
    kwargs: dict[str, Any] = {"env": env}
    for layer in LAYERS[: top + 1]:
        model = {"llm": {"model": f"from-{layer}"}}
        if layer == "user":
            write_json(isolated_environment / "config.json", model)
        elif layer == "project":
            write_json(project / ".ipuaro.json", model)
        elif layer == "env":
            env["IPUARO_LLM__MODEL"] = "from-env"
        elif layer == "config_file":
            kwargs["config_file"] = write_json(tmp_path / "extra.json", model)
        else:
            kwargs["overrides"] = {"llm.model": "from-overrides"}
    assert load_config(project, **kwargs).llm.model == f"from-{LAYERS[top]}"


def test_layers_merge_key_by_key_and_lists_replace(
    tmp_path: Path, isolated_environment: Path
) -> None:
    write_json(
        isolated_environment / "config.json",
        {"llm": {"temperature": 0.3}, "project": {"ignorePatterns": ["a", "b"]}},
    )
    write_json(
        tmp_path / ".ipuaro.json",
        {"llm": {"model": "m"}, "project": {"ignorePatterns": ["c"]}},
    )
    config = load_config(tmp_path)
    assert (config.llm.temperature, config.llm.model) == (0.3, "m")
    assert config.project.ignore_patterns == ["c"]
    assert config.llm.context_window is None  # untouched keys keep their defaults


def test_camel_and_snake_case_keys_mix_across_layers(
    tmp_path: Path, isolated_environment: Path
) -> None:
    write_json(isolated_environment / "config.json", {"llm": {"tool_format": "xml"}})
    assert load_config(tmp_path).llm.tool_format == "xml"
    write_json(tmp_path / ".ipuaro.json", {"llm": {"toolFormat": "json"}})
    assert load_config(tmp_path).llm.tool_format == "json"


def test_user_config_dir_comes_from_the_given_env(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    write_json(other / "config.json", {"undo": {"stackSize": 42}})
    assert load_config(None, env={"IPUARO_CONFIG_DIR": str(other)}).undo.stack_size == 42


def test_overrides_take_dotted_or_nested_keys_and_skip_none(tmp_path: Path) -> None:
    config = load_config(
        tmp_path,
        overrides={"llm.model": "x", "edit": {"autoApply": True}, "llm.temperature": None},
    )
    assert (config.llm.model, config.edit.auto_apply, config.llm.temperature) == ("x", True, 0.1)
    assert error_of(tmp_path, overrides={"edit.auto_apply": "maybe"}) == (
        'the command line: edit.autoApply: expected true or false, got "maybe"'
    )
    message = error_of(tmp_path, overrides={"llm.modle": "x"})
    assert message.startswith("the command line: unknown key llm.modle")


def test_relative_store_path_in_a_file_is_relative_to_that_file(tmp_path: Path) -> None:
    extra = write_json(tmp_path / "settings" / "extra.json", {"store": {"path": "db/ipuaro.db"}})
    config = load_config(tmp_path, config_file=extra)
    assert config.store.path == tmp_path / "settings" / "db" / "ipuaro.db"


# --- environment ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "raw", "read", "expected"),
    [
        ("IPUARO_LLM__CONTEXT_WINDOW", "4096", lambda c: c.llm.context_window, 4096),
        ("IPUARO_LLM__CONTEXTWINDOW", "2048", lambda c: c.llm.context_window, 2048),
        ("IPUARO_LLM__CONTEXT_WINDOW", "null", lambda c: c.llm.context_window, None),
        ("IPUARO_EDIT__AUTO_APPLY", "true", lambda c: c.edit.auto_apply, True),
        ("IPUARO_EDIT__ALWAYS_CONFIRM", "false", lambda c: c.edit.always_confirm, False),
        ("IPUARO_LLM__TEMPERATURE", "0.5", lambda c: c.llm.temperature, 0.5),
        ("IPUARO_LLM__MODEL", "123", lambda c: c.llm.model, "123"),
        ("IPUARO_LLM__MODEL", '"quoted"', lambda c: c.llm.model, "quoted"),
        ("IPUARO_LLM__BASE_URL", "http://h:1/v1", lambda c: c.llm.base_url, "http://h:1/v1"),
        ("IPUARO_COMMANDS__TIMEOUT", "30", lambda c: c.commands.timeout, 30.0),
        (
            "IPUARO_PROJECT__IGNORE_PATTERNS",
            '["a", "b"]',
            lambda c: c.project.ignore_patterns,
            ["a", "b"],
        ),
        (
            "IPUARO_LLM",
            '{"model": "m", "provider": "openai"}',
            lambda c: (c.llm.model, c.llm.provider),
            ("m", "openai"),
        ),
    ],
)
def test_environment_values(name: str, raw: str, read: Any, expected: object) -> None:
    assert read(load_config(None, env={name: raw})) == expected


def test_environment_beats_files_and_non_config_vars_are_ignored(tmp_path: Path) -> None:
    write_json(tmp_path / ".ipuaro.json", {"llm": {"model": "from-file"}})
    env = {
        "IPUARO_LLM__MODEL": "from-env",
        "IPUARO_DATA_DIR": "/nowhere",
        "IPUARO_CONFIG_DIR": str(tmp_path / "none"),
        "IPUARO_TRACE": "1",
        "IPUARO_TRACE_RAW": "1",
        "OTHER__LLM__MODEL": "ignored",
    }
    assert load_config(tmp_path, env=env).llm.model == "from-env"


def test_environment_unknown_key_names_the_variable() -> None:
    message = error_of(None, env={"IPUARO_LLM__MODLE": "x"})
    assert message.startswith("environment variable IPUARO_LLM__MODLE: unknown key llm.MODLE")
    assert "did you mean llm.model?" in message
    assert "IPUARO_NOPE__X" in error_of(None, env={"IPUARO_NOPE__X": "1"})


def test_environment_wrong_type_names_variable_key_and_type() -> None:
    message = error_of(None, env={"IPUARO_REDIS__PORT": "abc"})
    assert message == (
        "environment variable IPUARO_REDIS__PORT: redis.port: expected an integer from 1 to "
        '65535, got "abc"'
    )


# --- errors in files ------------------------------------------------------------------------


def test_unknown_key_in_project_file(tmp_path: Path) -> None:
    path = write_json(tmp_path / ".ipuaro.json", {"llm": {"modle": "x"}})
    assert error_of(tmp_path) == f"{path}: unknown key llm.modle (did you mean llm.model?)"
    write_json(path, {"zzz": 1})
    message = error_of(tmp_path)
    assert message.startswith(f"{path}: unknown key zzz (known keys: redis, llm, ")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"llm": {"contextWindow": "big"}},
            'llm.contextWindow: expected an integer ≥ 512 or null, got "big"',
        ),
        ({"llm": {"provider": "x"}}, 'llm.provider: expected one of "ollama", "openai", got "x"'),
        ({"redis": {"port": 0}}, "redis.port: expected an integer from 1 to 65535, got 0"),
        (
            {"edit": {"autoApply": "sometimes"}},
            'edit.autoApply: expected true or false, got "sometimes"',
        ),
        (
            {"project": {"ignorePatterns": ["a", 3]}},
            "project.ignorePatterns[1]: expected a string, got 3",
        ),
        (
            {"project": {"ignorePatterns": "a"}},
            'project.ignorePatterns: expected a list of strings, got "a"',
        ),
        ({"llm": 5}, "llm: expected an object, got 5"),
        (
            {"commands": {"timeout": "soon"}},
            'commands.timeout: expected a number > 0 or null, got "soon"',
        ),
    ],
)
def test_wrong_type_names_key_path_and_expected_type(
    tmp_path: Path, isolated_environment: Path, content: object, expected: str
) -> None:
    path = write_json(isolated_environment / "config.json", content)
    assert error_of(tmp_path) == f"{path}: {expected}"


def test_wrong_type_in_user_file_names_the_user_file(isolated_environment: Path) -> None:
    path = write_json(isolated_environment / "config.json", {"undo": {"stackSize": "ten"}})
    assert error_of(None).startswith(f"{path}: undo.stackSize: expected an integer from 1 to")


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / ".ipuaro.json"
    path.write_text('{\n  "llm": {\n    "model": "x",,\n  }\n}\n', encoding="utf-8")
    assert error_of(tmp_path) == (
        f"{path}:3:18: invalid JSON: Expecting property name enclosed in double quotes"
    )


def test_unreadable_file_is_an_error_not_skipped(tmp_path: Path) -> None:
    # Tests run as root, where chmod 000 does not stop reading; a directory in the file's place
    # fails the same way for everyone.
    (tmp_path / ".ipuaro.json").mkdir()
    message = error_of(tmp_path)
    assert message.startswith(f"{tmp_path / '.ipuaro.json'}: not a regular file (a folder);")


def test_non_utf8_file_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / ".ipuaro.json").write_bytes(b'{"llm": {"model": "\xff"}}')
    assert "cannot read config file" in error_of(tmp_path)


@pytest.mark.parametrize(
    ("text", "kind"),
    [("[1, 2]", "a list"), ('"x"', "a string"), ("null", "null"), ("3", "a number")],
)
def test_top_level_must_be_an_object(tmp_path: Path, text: str, kind: str) -> None:
    (tmp_path / ".ipuaro.json").write_text(text, encoding="utf-8")
    assert error_of(tmp_path).endswith(f"expected a JSON object at the top level, got {kind}")


def test_duplicate_keys_are_refused(tmp_path: Path) -> None:
    # The concept's own default.json has two "llm" objects; JSON keeps only the second.
    (tmp_path / ".ipuaro.json").write_text(
        '{"llm": {"model": "a"}, "llm": {"cache": true}}', encoding="utf-8"
    )
    assert 'key "llm" appears twice' in error_of(tmp_path)


def test_missing_explicit_config_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    assert error_of(None, config_file=missing) == f"{missing}: config file not found"


def test_only_the_first_problem_is_shown_with_a_count(tmp_path: Path) -> None:
    write_json(tmp_path / ".ipuaro.json", {"llm": {"temperature": 9}, "plan": {"maxBlocks": 0}})
    assert error_of(tmp_path).endswith("(and 1 more problem)")


# --- project root ---------------------------------------------------------------------------


def test_find_project_root(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    assert find_project_root(deep) == repo
    (repo / "src" / ".ipuaro.json").write_text("{}", encoding="utf-8")
    assert find_project_root(deep) == repo / "src"
    file_inside = deep / "mod.py"
    file_inside.write_text("", encoding="utf-8")
    assert find_project_root(file_inside) == repo / "src"
    lonely = tmp_path / "lonely" / "dir"
    lonely.mkdir(parents=True)
    assert find_project_root(lonely) == lonely
