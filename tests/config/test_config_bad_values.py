"""Values no key can use — a 5,000-digit number, nesting thousands deep, a lone surrogate,
NaN — in any layer: one line naming the source, the key and what to do; ``ipuaro`` exits 2
with it, never a traceback. Then a ``hypothesis`` lane over whole config files."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.config.loader import ConfigError, load_config

REPO = Path(__file__).resolve().parents[2]

BAD_FILES = [
    ('{"llm": {"contextWindow": ' + "9" * 5000 + "}}", "unusable number"),
    ('{"llm": {"temperature": -' + "1" * 5000 + "}}", "unusable number"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a":' * 3000 + "1" + "}" * 3000, "nested too deeply"),
    ('{"llm": ' + '{"x": ' * 40 + "1" + "}" * 41, "nested more than"),
    ('{"llm": {"model": "qwen\\ud800"}}', "llm.model: the text has an invalid character"),
    ('{"llm": {"model\\udfff": "x"}}', "key 'model\\\\udfff' has an invalid character"),
    ('{"project": {"ignorePatterns": ["a", "\\udc80"]}}', "project.ignorePatterns[1]"),
    ('{"llm": {"temperature": NaN}}', "llm.temperature: nan is not a usable number"),
    ('{"commands": {"timeout": Infinity}}', "commands.timeout: inf is not a usable number"),
    ('{"llm": {"\\n": null}}', "unknown key llm.'\\n'"),  # a key that is a line break
]


def _one_line_error(root: Path, **kwargs: object) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(root, **kwargs)  # type: ignore[arg-type]
    message = str(caught.value)
    assert "\n" not in message and len(message) < 600
    message.encode("utf-8")  # printable whatever the file held
    return message


@pytest.mark.parametrize(("text", "expected"), BAD_FILES, ids=range(len(BAD_FILES)))
@pytest.mark.parametrize("layer", ["project", "user"])
def test_a_bad_value_in_a_file_is_one_line(
    tmp_path: Path, isolated_environment: Path, text: str, expected: str, layer: str
) -> None:
    path = tmp_path / ".ipuaro.json" if layer == "project" else isolated_environment / "config.json"
    path.write_text(text, encoding="utf-8")
    message = _one_line_error(tmp_path)
    assert message.startswith(f"{path}: ") and expected in message


def test_a_lone_surrogate_from_a_variable_or_a_flag_is_one_line(tmp_path: Path) -> None:
    message = _one_line_error(tmp_path, env={"IPUARO_LLM__MODEL": "qwen\udce9"})
    assert message.startswith("environment variable IPUARO_LLM__MODEL: llm.model: ")
    message = _one_line_error(tmp_path, overrides={"llm.model": "qwen\udce9"})
    assert message.startswith("the command line: llm.model: the text has an invalid character")


def test_a_deep_or_huge_variable_is_text_not_a_crash(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={"IPUARO_LLM__MODEL": "[" * 50_000})
    assert config.llm.model == "[" * 50_000
    message = _one_line_error(tmp_path, env={"IPUARO_LLM__CONTEXT_WINDOW": "9" * 5000})
    assert "llm.contextWindow" in message


@pytest.mark.parametrize("index", [0, 2, 5])
def test_ipuaro_exits_2_with_the_line_and_no_traceback(tmp_path: Path, index: int) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".ipuaro.json").write_text(BAD_FILES[index][0], encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        IPUARO_CONFIG_DIR=str(tmp_path / "cfg"),
        IPUARO_DATA_DIR=str(tmp_path / "data"),
        PYTHONPATH=str(REPO),
    )
    done = subprocess.run(
        [sys.executable, "-m", "ipuaro", "run", "--project", str(project), "-p", "hi"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert str(project / ".ipuaro.json") in line and BAD_FILES[index][1] in line


# --- the fuzz lane ----------------------------------------------------------------------------

_KEYS = st.sampled_from(
    ["llm", "model", "contextWindow", "sandbox", "profile", "extensions", "hooks", "mcp",
     "servers", "env", "project", "ignorePatterns", "projectHooks", "store", "path", "x"]
)  # fmt: skip
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**50), max_value=10**50)
    | st.floats()
    | st.text(max_size=20)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(_KEYS | st.text(), inner, max_size=4)
    ),
    max_leaves=30,
)


def _as_json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


_FILES = (
    st.dictionaries(_KEYS, _VALUES, max_size=5).map(_as_json)
    | st.text(max_size=200)
    | st.binary(max_size=200).map(lambda raw: raw.decode("utf-8", "surrogateescape"))
    | st.builds(lambda n, c: c * n, st.integers(1, 20_000), st.sampled_from(["[", '{"a":', "9"]))
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(project=_FILES, user=_FILES)
def test_fuzz_config_files_never_traceback(
    tmp_path_factory: pytest.TempPathFactory, project: str, user: str
) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    (root / ".ipuaro.json").write_bytes(project.encode("utf-8", "surrogateescape"))
    (root / "config.json").write_bytes(user.encode("utf-8", "surrogateescape"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        config = load_config(root, env={"IPUARO_CONFIG_DIR": str(root)})
    except ConfigError as error:
        message = str(error)
        assert "\n" not in message
        message.encode("utf-8")
    else:
        json.dumps(config.model_dump(mode="json"))  # every value can be written and sent
        for notice in config.notices:
            notice.encode("utf-8")
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 200_000, "bounded memory"
