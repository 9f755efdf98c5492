"""Start-up (issue 27): a piped ``ipuaro index`` imports nothing it does not draw with,
re-indexing an unchanged project loads no parser, the second start of a command takes its
configuration from the cache without building a validator, and ``ipuaro run -p`` on a project
without script tools or command files loads neither jsonschema, nor YAML, nor the regex
engine of grep_search, nor httpx's own command line, and writes its first byte before loading
what only a command, a hook, a script tool or an edit needs. Each run is a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.stubs.model_server import ModelStubServer, ScriptedReply

CHILD = """
import json, sys
from ipuaro.cli.main import main
sys.argv = ["ipuaro", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
loaded = sorted(sys.modules)
schema = sys.modules.get("ipuaro.config.schema")
print(json.dumps({
    "validated": bool(schema and schema.Config.__pydantic_complete__),
    "code": code,
    "rich": [m for m in loaded if m.startswith("rich")],
    "parsers": [m for m in loaded if m.startswith(("tree_sitter", "ipuaro.index.parsers"))],
    "jsonschema": [m for m in loaded if m.startswith("jsonschema")],
    "yaml": [m for m in loaded if m.startswith("yaml")],
    "regex": [m for m in loaded if m.startswith("regex")],
    "httpx_cli": [m for m in loaded if m.startswith(("httpx._main", "pygments"))],
}))
"""


def _index(project: Path, data: Path) -> dict[str, Any]:
    env = {**os.environ, "IPUARO_DATA_DIR": str(data)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, "index", str(project)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    report: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    assert "Indexed" in done.stdout
    return report


def test_a_piped_index_run_does_not_import_rich(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def greet():\n    return 1\n", encoding="utf-8")
    first = _index(project, tmp_path / "data")
    assert first["rich"] == []  # the progress bar draws only on a terminal
    assert first["parsers"]  # the file was parsed
    assert first["validated"]  # the first start validates the configuration
    again = _index(project, tmp_path / "data")
    assert again["parsers"] == []  # nothing changed: no grammar is loaded
    assert not again["validated"]  # the same settings: served from the config cache
    (project / "app.py").write_text("def greet():\n    return 2\n", encoding="utf-8")
    assert _index(project, tmp_path / "data")["parsers"]


def _run_env(tmp_path: Path, model_url: str) -> dict[str, str]:
    """A child ``ipuaro run``'s environment: this machine's, without its IPUARO_* settings, with
    the test's data and config folders and the stub model server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        {
            "IPUARO_DATA_DIR": str(tmp_path / "data"),
            "IPUARO_CONFIG_DIR": str(tmp_path / "config"),
            "IPUARO_LLM__BASE_URL": model_url,
            "IPUARO_LLM__CONTEXT_WINDOW": "32768",
        }
    )
    return env


def test_a_headless_run_loads_no_jsonschema_yaml_httpx_cli_or_ca_bundle(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def greet():\n    return 1\n", encoding="utf-8")
    with ModelStubServer() as stub:
        stub.responder = lambda _request: ScriptedReply(text="hello there")
        env = _run_env(tmp_path, stub.url)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, "run", "-p", "say hi"],
            env=env,
            cwd=project,
            capture_output=True,
            text=True,
            check=True,
            stdin=subprocess.DEVNULL,
        )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    assert "hello there" in done.stdout
    assert report["jsonschema"] == []
    assert report["yaml"] == []
    assert report["regex"] == []  # grep_search's engine, loaded by the first search
    assert report["httpx_cli"] == []


FIRST_BYTE_CHILD = """
import json, os, sys
seen = []
class Stdout:
    def __init__(self, inner):
        self.inner = inner
    def write(self, text):
        if text and not seen:
            seen.append(sorted(sys.modules))
        return self.inner.write(text)
    def __getattr__(self, name):
        return getattr(self.inner, name)
sys.stdout = Stdout(sys.stdout)
from ipuaro.cli.main import main
sys.argv = ["ipuaro", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
with open(os.environ["FIRST_BYTE_REPORT"], "w", encoding="utf-8") as report:
    json.dump(seen[0] if seen else None, report)
"""

# Loaded by the first command, hook, script tool, edit or reply holding a call, never by the
# first byte of an answer (issue 27): the command checker (git, make, package scripts,
# reads), the persistent shell and the process runner, the sandbox, the edit engine and its
# merger/matcher, the prose-framing patterns of the tool-call parser.
NOT_BEFORE_FIRST_BYTE = (
    "ipuaro.security.policy.command_check",
    "ipuaro.security.policy.command_git",
    "ipuaro.security.process.persistent_shell",
    "ipuaro.security.process.runner",
    "ipuaro.security.sandboxing.sandbox",
    "ipuaro.extensions.process",
    "ipuaro.tools.shell",
    "ipuaro.edits.engine",
    "ipuaro.edits.markers",
    "ipuaro.edits.matching",
    "ipuaro.llm.framing",
)


def test_a_headless_run_writes_its_first_byte_before_loading_what_only_tools_need(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def greet():\n    return 1\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    report_path = tmp_path / "first-byte.json"
    with ModelStubServer() as stub:
        stub.responder = lambda _request: ScriptedReply(text="hello there")
        env = {**_run_env(tmp_path, stub.url), "FIRST_BYTE_REPORT": str(report_path)}
        # the first start builds the tools and stores their cards (tools/catalog.py), which
        # loads every tool's module; the second is the start a user has every day
        for _ in range(2):
            done = subprocess.run(
                [sys.executable, "-c", FIRST_BYTE_CHILD, "run", "-p", "say hi"],
                env=env,
                cwd=project,
                capture_output=True,
                text=True,
                check=True,
                stdin=subprocess.DEVNULL,
            )
            assert "hello there" in done.stdout, done.stderr
    loaded = json.loads(report_path.read_text(encoding="utf-8"))
    assert loaded is not None, done.stderr
    assert "ipuaro.core.workspace" in loaded  # the snapshot is of a real start
    assert [m for m in NOT_BEFORE_FIRST_BYTE if m in loaded] == []


def test_the_command_collects_young_garbage_less_often() -> None:
    """The start's long-lived objects are not walked every 700 allocations (cli/entry.py);
    the older generations keep Python's own setting."""
    probe = (
        "import gc\n"
        "before = gc.get_threshold()\n"
        "from ipuaro.cli.entry import main\n"
        "try:\n"
        "    main(['--version'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(before[1:] == gc.get_threshold()[1:], gc.get_threshold()[0])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split()[-2:] == ["True", "10000"]
