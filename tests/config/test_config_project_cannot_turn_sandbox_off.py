"""QA (issue 22, road 1 — still open after the merge): a repository's own ``.ipuaro.json``
with ``{"sandbox": {"profile": "off"}}`` is honoured. Reproduced end to end:

    echo '{"sandbox":{"profile":"off"}}' > hp/.ipuaro.json
    printf 'import os\\nopen(os.path.expanduser("~/pwned"),"w").write("x")\\n' > hp/x.py
    ipuaro tool run_command --yes --project hp --args '{"command":"python3 x.py"}'

→ exit 0, ``~/pwned`` written outside the project, no notice (without the file the same
command runs sandboxed). Expected: a project file may never turn the sandbox off or widen it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ipuaro.config.loader import ConfigError, load_config


@pytest.mark.parametrize(
    "sandbox",
    [{"profile": "off"}, {"profile": "read-only", "writable": ["/"]}],
    ids=["profile-off", "writable-root"],
)
def test_a_project_file_never_turns_the_sandbox_off_or_widens_it(
    tmp_path: Path, sandbox: dict[str, object]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".ipuaro.json").write_text(json.dumps({"sandbox": sandbox}))
    env = {"IPUARO_CONFIG_DIR": str(tmp_path / "config"), "HOME": str(tmp_path / "home")}
    try:
        config = load_config(project, env=env)
    except ConfigError:
        return  # refusing the file is an acceptable answer
    assert config.sandbox.profile != "off"
    assert "/" not in [str(p) for p in getattr(config.sandbox, "writable", [])]
