"""``ipuaro index`` and ``ipuaro inspect`` end to end: real click group, real SQLite store."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from ipuaro.cli.main import cli

from .conftest import write


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No IPUARO_* from the caller; user config and store data live in tmp_path."""
    for name in list(os.environ):
        if name.startswith("IPUARO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("IPUARO_CONFIG_DIR", str(tmp_path / "user-config"))
    monkeypatch.setenv("IPUARO_DATA_DIR", str(tmp_path / "data"))


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def index_json(project: Path, *extra: str) -> dict[str, Any]:
    result = invoke("index", str(project), "--json", *extra)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_index_json_summary(ts_project: Path, tmp_path: Path) -> None:
    first = index_json(ts_project, "--workers", "1")

    assert first["root"] == str(ts_project.resolve())
    assert first["files"] == 21 and first["parsed"] == 20
    assert first["parseErrors"] == 0 and first["unchanged"] == 0
    assert first["symbols"] > 0 and first["references"] > 0
    assert set(first) >= {
        "files",
        "parsed",
        "unchanged",
        "parseErrors",
        "skippedNonUtf8",
        "binary",
        "symlinks",
        "deleted",
        "symbols",
        "references",
        "seconds",
    }
    assert list((tmp_path / "data").glob("*.db"))  # the real store under IPUARO_DATA_DIR

    again = index_json(ts_project)
    assert again["parsed"] == 0 and again["unchanged"] == first["files"]
    rebuilt = index_json(ts_project, "--rebuild")
    assert rebuilt["parsed"] == first["parsed"]


def test_index_human_summary(py_project: Path) -> None:
    result = invoke("index", str(py_project))
    assert result.exit_code == 0, result.output
    assert f"Indexed {py_project.resolve()}" in result.stdout
    assert "parsed 9" in result.stdout and "symbols" in result.stdout


def test_index_refuses_large_project_without_tty(ts_project: Path) -> None:
    write(ts_project, ".ipuaro.json", json.dumps({"limits": {"maxFilesWarning": 5}}))
    refused = invoke("index", str(ts_project), "--json")
    assert refused.exit_code == 2
    assert "more than limits.maxFilesWarning (5)" in refused.stderr
    assert "--yes" in refused.stderr
    accepted = invoke("index", str(ts_project), "--json", "--yes")
    assert accepted.exit_code == 0
    assert json.loads(accepted.stdout)["files"] > 5


def test_index_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    result = invoke("index", str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "nope" in result.stderr


def test_inspect_ts_file_with_exact_lines(ts_project: Path) -> None:
    index_json(ts_project, "--workers", "1")
    result = invoke("inspect", "packages/app/src/service.ts", "--project", str(ts_project))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)

    assert data["path"] == "packages/app/src/service.ts" and data["kind"] == "text"
    ast = data["ast"]
    (interface,) = ast["types"]
    assert (interface["name"], interface["kind"]) == ("ServiceOptions", "interface")
    assert (interface["lineStart"], interface["lineEnd"], interface["isExported"]) == (3, 6, True)
    (cls,) = ast["classes"]
    assert (cls["name"], cls["lineStart"], cls["lineEnd"], cls["isExported"]) == (
        "UserService",
        8,
        24,
        True,
    )
    methods = {m["name"]: m for m in cls["methods"]}
    assert (methods["load"]["lineStart"], methods["load"]["lineEnd"]) == (13, 19)
    assert methods["load"]["isAsync"] and methods["create"]["isStatic"]
    assert (methods["create"]["lineStart"], methods["create"]["lineEnd"]) == (21, 23)
    (arrow,) = ast["functions"]
    assert (arrow["name"], arrow["lineStart"], arrow["lineEnd"]) == ("formatUser", 26, 26)
    assert arrow["params"] == ["id", "name"] and arrow["returnType"] == "string"
    assert arrow["isExported"]
    assert {"name": "formatUser", "type": "function", "line": 26} in ast["exports"]
    helper = next(i for i in ast["imports"] if i["from"] == "./util")
    assert helper["resolved"] == "packages/app/src/util.ts" and helper["type"] == "internal"
    meta = data["meta"]
    assert meta["dependencies"] == ["packages/app/src/util.ts"]
    assert meta["fileType"] == "typescript" and "isHub" in meta and "isEntryPoint" in meta
    assert set(meta["complexity"]) == {"loc", "nesting", "imports", "score"}


def test_inspect_finds_the_indexed_project_from_a_file_on_disk(py_project: Path) -> None:
    index_json(py_project)
    result = invoke("inspect", str(py_project / "src" / "acme" / "core.py"))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["path"] == "src/acme/core.py"
    assert [f["name"] for f in data["ast"]["functions"]] == ["run"]


def test_inspect_deleted_absolute_path_suggests_and_missing_one_says_so(
    py_project: Path, tmp_path: Path
) -> None:
    index_json(py_project)
    gone = invoke("inspect", str(py_project / "src" / "acme" / "cores.py"))
    assert gone.exit_code == 2
    assert "src/acme/cores.py is not in the index; did you mean: src/acme/core.py" in gone.stderr
    nowhere = invoke("inspect", str(tmp_path / "no-such-folder" / "x.py"))
    assert nowhere.exit_code == 2
    assert f"no such file: {tmp_path / 'no-such-folder' / 'x.py'}" in nowhere.stderr
    assert "outside the project" not in nowhere.stderr


def test_inspect_unknown_file_suggests_close_paths(ts_project: Path) -> None:
    index_json(ts_project)
    result = invoke("inspect", "packages/app/src/servise.ts", "--project", str(ts_project))
    assert result.exit_code == 2
    assert "packages/app/src/servise.ts is not in the index" in result.stderr
    assert "did you mean: packages/app/src/service.ts" in result.stderr


def test_inspect_before_indexing_says_to_index(ts_project: Path, tmp_path: Path) -> None:
    result = invoke("inspect", "lib/format.ts", "--project", str(ts_project))
    assert result.exit_code == 2
    assert "not indexed yet" in result.stderr and "ipuaro index" in result.stderr
    assert not list((tmp_path / "data").glob("*.db"))  # inspecting created no store
