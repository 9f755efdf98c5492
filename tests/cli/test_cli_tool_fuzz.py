"""``ipuaro tool NAME --args JSON`` under fuzzed input: every run ends with an exit code and a
message, never a traceback; failures name what is wrong. The arguments come from the same
strategies as the dispatch fuzz (tests/tools/fuzz_arguments.py) plus raw ``--args`` text a
shell can hand over: invalid JSON, nesting deeper than Python's parser allows, bytes that are
not UTF-8 (they arrive as lone surrogates)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ipuaro.cli.main import cli
from tests.tools.conftest import make_project
from tests.tools.fuzz_arguments import EXAMPLES, FAMILIES, Deep, arguments_for, named_in

RAW_ARGS = (
    "{",
    "[]",
    '"text"',
    "null",
    '{"path": ' + "[" * 3000 + "]" * 3000 + "}",
    "[" * 3000,
    '{"path": "\udcff\udcfe"}',
    '{"\ud800": 1}',
    '{"path": "src/' + "n" * 300 + '.ts"}',
    '{"path": 1e999}',
    '{"start": 123456789012345678901234567890}',
)


@pytest.fixture(scope="module")
def tool_project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    base = tmp_path_factory.mktemp("cli-fuzz")
    monkeypatch = pytest.MonkeyPatch()
    made = make_project(base, monkeypatch)
    made.store.close()
    monkeypatch.setenv("IPUARO_DATA_DIR", str(base / "cli-data"))
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(base / "cli-config"))
    runner = CliRunner()
    first = runner.invoke(cli, ["tool", "get_structure", "--project", str(made.root)])
    assert first.exit_code == 0, first.output
    yield made.root
    monkeypatch.undo()


def _args_text(family: str) -> st.SearchStrategy[tuple[str, str]]:
    def encoded(name: str) -> st.SearchStrategy[tuple[str, str]]:
        known = name if name in FAMILIES[family] else FAMILIES[family][0]
        as_json = arguments_for(known).map(_dumps)
        return st.tuples(st.just(name), st.one_of(as_json, st.sampled_from(RAW_ARGS)))

    names = st.one_of(
        st.sampled_from(FAMILIES[family]),
        st.sampled_from(["get-lines", "READ_FILE", "nope", "\udcff", "get_lines\x00"]),
    )
    return names.flatmap(encoded)


def _dumps(arguments: dict[str, Any]) -> str:
    """JSON text of ``arguments``; Deep markers become nesting written as text (json.dumps
    itself cannot write nesting that deep)."""
    placeholders = {
        key: f"@@deep{index}@@"
        for index, (key, value) in enumerate(arguments.items())
        if isinstance(value, Deep)
    }
    text = json.dumps({k: placeholders.get(k, v) for k, v in arguments.items()})
    for key, marker in placeholders.items():
        depth = arguments[key].depth
        text = text.replace(json.dumps(marker), "[" * depth + "]" * depth, 1)
    return text


def _sent(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_tool_command_never_prints_a_traceback(tool_project: Path, family: str) -> None:
    runner = CliRunner()

    @settings(
        max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    @given(_args_text(family))
    def check(call: tuple[str, str]) -> None:
        name, text = call
        result = runner.invoke(cli, ["tool", name, "--args", text, "--project", str(tool_project)])
        output = result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{name} {text[:80]!r}: {result.exception!r}"
        )
        assert "Traceback" not in output
        assert result.exit_code in (0, 1, 2, 3), output
        if result.exit_code == 2:
            assert output.strip().startswith("ipuaro:") or "Error:" in output, output
            return
        data = json.loads(result.stdout)
        if not data["success"]:
            error = data["error"]
            assert error and named_in(error, name, _sent(text)), f"{name}: {error!r}"

    check()


def test_bytes_that_are_not_utf8_in_a_real_process(tool_project: Path) -> None:
    """argv bytes that are not UTF-8 reach Python as lone surrogates: a clear error, exit 1."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [
            os.fsencode(sys.executable),
            b"-m",
            b"ipuaro",
            b"tool",
            b"get_lines",
            b"--args",
            b'{"path": "src/\xff\xfe.ts"}',
            b"--project",
            os.fsencode(tool_project),
        ],
        capture_output=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert b"Traceback" not in done.stderr + done.stdout
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert "argument 'path'" in error and "not valid Unicode" in error
