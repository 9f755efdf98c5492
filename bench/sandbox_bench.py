"""The sandbox on everyday commands: does each run unchanged, and what does confinement cost?

Usage::

    .venv/bin/python bench/sandbox_bench.py [--runs N] [--json FILE]

Builds a small real project twice (a Python package with pytest tests, a Node script with
``node --test`` tests and npm scripts, a Makefile, a git repository with fixed dates so commit
hashes agree) and runs the same list of benign commands in the same order in both copies: one
copy through ipuaro's runner without a sandbox (the baseline), the other through the same runner
confined by the ``workspace`` profile (``HOME`` is the real one, so tool settings under dot
folders are read as in daily use). A command *runs unchanged* when its exit code and its output
(the copy's path, the temp folder, durations and clock times normalised) are equal.

Timing: after the pass that checks equality, each read-only command runs ``--runs`` more times
in both modes, alternating; the per-command medians give the median ratio (sandbox/baseline)
and the median added milliseconds. Commands that change the project are timed once, in the
equality pass. Also printed: how many of the commands the policy allows without asking.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from ipuaro.config.schema import Config
from ipuaro.security.policy.command_needs import only_reads
from ipuaro.security.policy.commands import CommandPolicy
from ipuaro.security.process.runner import run_shell
from ipuaro.security.sandboxing.sandbox import SandboxProfile, engine

FILES = {
    "README.md": "# demo\n\nA small project.\nSecond line.\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n'
    'testpaths = ["tests"]\n',
    "pkg/__init__.py": "",
    "pkg/__main__.py": "from pkg.core import add\n\nprint(add(2, 3))\n",
    "pkg/core.py": "import os\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\n"
    "def home() -> str:\n    return os.getcwd()\n",
    "tests/test_core.py": "from pkg.core import add\n\n\ndef test_add() -> None:\n"
    "    assert add(1, 2) == 3\n\n\ndef test_add_zero() -> None:\n    assert add(0, 0) == 0\n",
    "package.json": json.dumps(
        {
            "name": "demo",
            "version": "1.0.0",
            "private": True,
            "scripts": {
                "test": "node --test test/",
                "build": "node build.js",
                "lint": "node -e \"console.log('lint ok')\"",
            },
        }
    ),
    "script.js": "console.log('script', process.argv.slice(2).join(' '));\n",
    "build.js": "const fs = require('fs');\nfs.mkdirSync('dist', {recursive: true});\n"
    "fs.writeFileSync('dist/out.js', '// built\\n');\nconsole.log('built');\n",
    "test/a.test.js": "const test = require('node:test');\nconst assert = require('assert');\n"
    "test('adds', () => assert.equal(1 + 1, 2));\n",
    "Makefile": "build:\n\tmkdir -p out && echo built > out/x.txt\n\ncheck:\n\t@echo check ok\n",
}

GIT_ENV = {
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@e",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@e",
}

COMMANDS = """
ls
ls -la pkg
ls -1 tests
pwd
cat README.md
head -2 README.md
tail -1 pkg/core.py
wc -l pkg/core.py tests/test_core.py
grep -n def pkg/core.py
grep -rn import pkg
grep -c line README.md
rg def pkg
rg -l import
rg --files
rg -n add tests
find . -name '*.py' -not -path './.git/*'
find pkg -type f
stat -c %s README.md
file README.md
du -s pkg
sort README.md
sort -r README.md | uniq
cut -c1-5 README.md
tr a-z A-Z < README.md
sed -n 1,2p README.md
awk '{print $1}' README.md
diff pkg/core.py pkg/core.py
cmp README.md README.md
echo hello
printf '%s\\n' a b
seq 1 5
seq 1 100 | paste -sd+ | bc
expr 2 + 3
date +%Y
uname -s
id -u
basename pkg/core.py
dirname pkg/core.py
realpath --relative-to=. pkg/core.py
which python3
python3 --version
python3 -m pkg
python3 -c 'print(1 + 1)'
python3 -m pytest -q -p no:cacheprovider
python3 -m pytest -q -p no:cacheprovider tests/test_core.py
python3 -m pytest -q -p no:cacheprovider -k zero
python3 -m pytest -q
python3 -m compileall -q pkg
python3 -m json.tool package.json
python3 -c 'import tempfile; print(tempfile.gettempdir())'
python3 - <<'EOF'
print('heredoc')
EOF
ruff check .
ruff check pkg
ruff format --check .
ruff format pkg
node script.js one two
node -e 'console.log(40 + 2)'
node --version
node --test test/
npm --version
npm test
npm run build
npm run lint
npm run --silent lint
git status
git status --short
git diff
git diff --stat
git log --oneline
git log -1 --format=%s
git branch
git show --stat HEAD
git rev-parse HEAD
git ls-files
git blame README.md
git grep -n add
git stash list
echo '# note' >> README.md
git diff --stat
git add -A
git commit -qm 'note'
git log --oneline
git checkout -q -b feature
git switch -q main
git branch -d feature
git tag v1
git describe --tags
mkdir -p build/a
touch build/a/f
cp README.md build/
mv build/README.md build/R.md
ls build
rm build/R.md
rm -r build
echo x > out.txt
echo y >> out.txt
cat out.txt
echo z | tee -a out.txt
ln -s README.md link.md
cat link.md
chmod +x script.js
test -x script.js && echo executable
tar czf pkg.tgz pkg
tar tzf pkg.tgz | sort
gzip -k README.md
ls README.md.gz
zip -q -r pkg.zip pkg
sha256sum README.md
md5sum README.md
base64 README.md | head -1
jq .name package.json
jq -r '.scripts | keys[]' package.json
cat package.json | jq .version
make build
cat out/x.txt
make check
bash -c 'echo nested'
sh -c 'echo $((6 * 7))'
for f in pkg/*.py; do echo $f; done
x=3; echo $((x * 2))
mktemp -d > /dev/null && echo made-temp
echo t > "$TMPDIR/t.txt" && cat "$TMPDIR/t.txt"
cat /etc/os-release | head -1
ls /usr/bin | head -3
env | grep -c '^PATH='
git clean -n
git stash
git stash pop
""".strip()


def commands() -> list[str]:
    found: list[str] = []
    lines = COMMANDS.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<'EOF'" in line:
            end = lines.index("EOF", index)
            found.append("\n".join(lines[index : end + 1]))
            index = end + 1
            continue
        found.append(line)
        index += 1
    return found


def make_project(root: Path) -> None:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git = ["git", "-c", "init.defaultBranch=main"]
    env = {**os.environ, **GIT_ENV}
    subprocess.run([*git, "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=root, check=True, env=env)


def normalise(text: str, root: Path, temp: str) -> str:
    text = text.replace(str(root), "<root>").replace(temp, "<tmp>")
    text = re.sub(r"/tmp/tmp[\w]+", "<tmp>", text)
    text = re.sub(r"\d+(\.\d+)?m?s\b", "<t>", text)
    text = re.sub(r"duration_ms:? [\d.]+", "duration_ms <t>", text)
    text = re.sub(r"\d\d:\d\d(:\d\d)?", "<clock>", text)
    # npm warns about settings it read from ~/.npmrc, which the sandbox keeps unreadable
    text = re.sub(r"(?m)^npm warn.*\n", "", text)
    return text


async def run(command: str, root: Path, env: dict[str, str], sandbox: SandboxProfile | None):  # type: ignore[no-untyped-def]
    return await run_shell(command, root, 120, 1 << 20, env=env, sandbox=sandbox)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed repeats of read-only commands")
    parser.add_argument("--json", type=Path, help="write the per-command figures here")
    args = parser.parse_args()
    if engine() is None:
        sys.exit("this kernel has no Landlock: nothing to measure")
    work = Path(tempfile.mkdtemp(prefix="ipuaro-sandbox-bench-"))
    base_env = {**os.environ, **GIT_ENV, "NO_COLOR": "1"}
    plain_temp = Path(tempfile.mkdtemp(prefix="ipuaro-bench-plain-"))
    try:
        plain_root, boxed_root = work / "plain", work / "boxed"
        for root in (plain_root, boxed_root):
            root.mkdir()
            make_project(root)
        sandbox = SandboxProfile.for_project(boxed_root)
        plain_env = {**base_env, "TMPDIR": str(plain_temp)}
        boxed_env = sandbox.environment(base_env)
        policy = CommandPolicy.from_config(plain_root, Config())
        rows = []
        for command in commands():
            verdict = policy.decide(command).verdict
            plain = await run(command, plain_root, plain_env, None)
            boxed = await run(command, boxed_root, boxed_env, sandbox)
            same = plain.exit_code == boxed.exit_code and normalise(
                plain.output, plain_root, str(plain_temp)
            ) == normalise(boxed.output, boxed_root, str(sandbox.private_temp()))
            rows.append(
                {
                    "command": command,
                    "same": same,
                    "policy": verdict,
                    "plain_s": [plain.duration_s],
                    "boxed_s": [boxed.duration_s],
                    "exit": [plain.exit_code, boxed.exit_code],
                    "plain_out": plain.output[-300:],
                    "boxed_out": boxed.output[-300:],
                }
            )
        for row in rows:
            command = str(row["command"])
            decision = policy.decide(command)
            if not only_reads(command, decision.segments):
                continue
            for _ in range(args.runs):
                plain = await run(command, plain_root, plain_env, None)
                boxed = await run(command, boxed_root, boxed_env, sandbox)
                row["plain_s"].append(plain.duration_s)  # type: ignore[attr-defined]
                row["boxed_s"].append(boxed.duration_s)  # type: ignore[attr-defined]
        report(rows)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(plain_temp, ignore_errors=True)


def report(rows: list[dict[str, object]]) -> None:
    total = len(rows)
    same = sum(bool(r["same"]) for r in rows)
    print(f"engine: {engine()}; {total} benign commands")
    print(f"run unchanged in the sandbox: {same}/{total} ({100 * same / total:.1f} %)")
    for row in rows:
        if not row["same"]:
            print(f"  differs: {row['command']!r} exit {row['exit']}")
            print(f"    plain: {str(row['plain_out'])[-200:]!r}")
            print(f"    boxed: {str(row['boxed_out'])[-200:]!r}")
    verdicts = [str(r["policy"]) for r in rows]
    print("policy: " + ", ".join(f"{v} {verdicts.count(v)}" for v in ("allow", "ask", "deny")))
    for row in rows:
        if row["policy"] != "allow":
            print(f"  {row['policy']}: {row['command']!r}")
    ratios, added = [], []
    for row in rows:
        plain = statistics.median(row["plain_s"])  # type: ignore[arg-type]
        boxed = statistics.median(row["boxed_s"])  # type: ignore[arg-type]
        ratios.append(boxed / plain)
        added.append((boxed - plain) * 1000)
    print(f"per-command median ratio sandbox/baseline: {statistics.median(ratios):.2f}x "
          f"(p90 {statistics.quantiles(ratios, n=10)[-1]:.2f}x)")  # fmt: skip
    print(f"per-command median added time: {statistics.median(added):.1f} ms "
          f"(p90 {statistics.quantiles(added, n=10)[-1]:.1f} ms)")  # fmt: skip
    quick = [r for r in rows if statistics.median(r["plain_s"]) < 0.05]  # type: ignore[arg-type]
    if quick:
        base = statistics.median(statistics.median(r["plain_s"]) for r in quick)  # type: ignore[arg-type]
        boxed = statistics.median(statistics.median(r["boxed_s"]) for r in quick)  # type: ignore[arg-type]
        print(f"quick commands (<50 ms unsandboxed, {len(quick)}): median {base * 1000:.1f} ms "
              f"-> {boxed * 1000:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
