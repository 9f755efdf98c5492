"""Start-up (issue 27): a piped ``ipuaro index`` imports nothing it does not draw with, and
re-indexing an unchanged project loads no parser. Each run is a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

CHILD = """
import json, sys
from ipuaro.cli.main import main
sys.argv = ["ipuaro", "index", sys.argv[1]]
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
loaded = sorted(sys.modules)
print(json.dumps({
    "code": code,
    "rich": [m for m in loaded if m.startswith("rich")],
    "parsers": [m for m in loaded if m.startswith(("tree_sitter", "ipuaro.index.parsers"))],
}))
"""


def _index(project: Path, data: Path) -> dict[str, Any]:
    env = {**os.environ, "IPUARO_DATA_DIR": str(data)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(project)],
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
    again = _index(project, tmp_path / "data")
    assert again["parsers"] == []  # nothing changed: no grammar is loaded
    (project / "app.py").write_text("def greet():\n    return 2\n", encoding="utf-8")
    assert _index(project, tmp_path / "data")["parsers"]
