"""run_command's persistent shell against a new sandboxed process per call (the old path).

Usage::

    .venv/bin/python bench/shell_bench.py [--rounds N] [--json FILE]

In a temp project, the same short everyday commands run, alternating, through
:func:`ipuaro.security.process.runner.run_shell` (a new ``bash -c`` per call, behind the Landlock
launcher when the kernel has it: the baseline) and through one
:class:`ipuaro.security.process.persistent_shell.PersistentShell` (started once, before timing,
inside the same sandbox). Both capture output the same way. Prints per-command medians and the ratio
baseline/persistent (above 1: the persistent shell is faster).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from ipuaro.security.process.persistent_shell import PersistentShell
from ipuaro.security.process.runner import run_shell
from ipuaro.security.sandboxing.sandbox import SandboxProfile, engine

COMMANDS = [
    "true",
    "pwd",
    "echo $HOME",
    "ls src",
    "cat src/app.py",
    "grep -n def src/app.py",
    "wc -l src/app.py",
    "git status --short",
    "python3 -c 'print(1)'",
]


async def bench(rounds: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="ipuaro-shell-bench-") as folder:
        root = Path(folder).resolve()
        (root / "src").mkdir()
        (root / "src" / "app.py").write_text("def main():\n    return 1\n" * 20)
        os.system(f"git -C {root} init -q && git -C {root} add -A")
        profile = SandboxProfile.for_project(root)
        sandbox = profile if profile.active else None
        shell = PersistentShell(root, dict(os.environ), sandbox)
        await shell.run("true", 30)  # started before timing: one start per session
        rows: list[dict[str, object]] = []
        try:
            for command in COMMANDS:
                old: list[float] = []
                new: list[float] = []
                for _ in range(rounds):
                    started = time.perf_counter()
                    one = await run_shell(command, root, 30, sandbox=sandbox)
                    old.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    kept = await shell.run(command, 30)
                    new.append(time.perf_counter() - started)
                    if one.output != kept.output or one.exit_code != kept.exit_code:
                        raise SystemExit(f"outputs differ for {command!r}: {one} vs {kept}")
                rows.append(
                    {
                        "command": command,
                        "newProcessMs": round(statistics.median(old) * 1000, 2),
                        "persistentMs": round(statistics.median(new) * 1000, 2),
                    }
                )
        finally:
            await shell.close()
    total_old = sum(float(r["newProcessMs"]) for r in rows)  # type: ignore[arg-type]
    total_new = sum(float(r["persistentMs"]) for r in rows)  # type: ignore[arg-type]
    return {
        "engine": engine() or "none",
        "rounds": rounds,
        "rows": rows,
        "ratio": round(total_old / total_new, 2),
        "loadAverage": os.getloadavg(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = asyncio.run(bench(args.rounds))
    print(f"engine: {result['engine']}, rounds: {result['rounds']}, load {result['loadAverage']}")
    print(f"{'command':<28} {'new process ms':>15} {'persistent ms':>14} {'ratio':>6}")
    for row in result["rows"]:  # type: ignore[attr-defined]
        ratio = row["newProcessMs"] / max(row["persistentMs"], 0.01)
        print(
            f"{row['command']:<28} {row['newProcessMs']:>15} {row['persistentMs']:>14} "
            f"{ratio:>6.1f}"
        )
    print(f"sum of medians, new process / persistent: {result['ratio']}x")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
