"""Start-up (issue 27): a piped ``ipuaro index`` imports nothing it does not draw with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
print(json.dumps({"code": code, "rich": sorted(m for m in sys.modules if m.startswith("rich"))}))
"""


def test_a_piped_index_run_does_not_import_rich(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def greet():\n    return 1\n", encoding="utf-8")
    env = {**os.environ, "IPUARO_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(project)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    assert "Indexed" in done.stdout
    assert report["rich"] == []  # the progress bar draws only on a terminal
