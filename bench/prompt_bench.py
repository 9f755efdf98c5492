"""Prompt benchmark: where the first request's tokens go, before and after, in one command.

Not a test. Run by hand (indexes django twice; a minute or two on two cores)::

    .venv/bin/python bench/prompt_bench.py
    .venv/bin/python bench/prompt_bench.py --baseline 7c70c6d --windows 8192

Each "after/before" line also prints the after side's share of the window and, for 4K and 8K,
whether it meets issue 26's goal (≤ 40 % of 4K, ≤ 25 % of 8K).

What is measured: ``ipuaro run -p "say hi"`` as a user runs it (a fresh process, a fresh data
folder, the project indexed by the run) against the stub model server (``tests/stubs``), which
records the first chat request. That request is split into its parts — rules, the tool section
of the system prompt, project instructions, the project summary (structure and AST), the native
tool schemas sent beside the prompt, the user's message — and each part is counted with
``ipuaro.llm.tokens.estimate_tokens`` (within a few per cent of Qwen's tokenizer over a whole
prompt; the same estimator counts both sides). Twice per case: once with ``src/`` of the
baseline commit (``git archive``; default: the commit before the prompt cuts) and once with this
checkout's ``src/``; the ratio is after / before.

Cases: a generated 11-line project, the agent tests' fixture (``tests/fixtures/projects/agent_app``)
and Django 5.0.6 (``scripts/fetch-corpora``),
each with a model the server says supports tools (native calls: schemas travel in ``tools``) and
one that does not (XML calls: the format and tool list are in the prompt), at each window.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "src"))

from corpora import corpus  # noqa: E402  (bench/ is on sys.path: this runs as a script)
from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubModel  # noqa: E402

from ipuaro.llm.tokens import estimate_tokens  # noqa: E402

BASELINE = "7c70c6d"
"""main before the prompt cuts (issue 10, item 7)."""
DJANGO = corpus("django")
AGENT_FIXTURE = REPO / "tests/fixtures/projects/agent_app"
MODEL = "qwen2.5-coder:7b-instruct"
GOALS = {4096: 0.40, 8192: 0.25}
"""Issue 26: the first request at most 40 % of a 4K window and 25 % of an 8K one."""
PARTS = ("rules", "tool section", "instructions", "project summary", "tool schemas", "message")
TOOL_SECTION_MARKERS = ("# Tools", "Tools (", "To use a tool", "Work in steps", "Reply with")

TINY_FILES = {
    "hello.py": (
        '"""Greets people."""\n'
        "\n"
        "\n"
        "def greet(name: str) -> str:\n"
        '    return f"hello, {name}"\n'
        "\n"
        "\n"
        "def main() -> None:\n"
        '    print(greet("world"))\n'
        "\n"
        "\n"
    ),
    "pyproject.toml": '[project]\nname = "hello"\nversion = "0.1.0"\n',
}


@dataclass(frozen=True)
class Case:
    project: str
    root: Path
    native: bool
    window: int


def split_system(text: str) -> dict[str, str]:
    """Rules | tool section | project instructions | project summary, by their headings."""
    parts = dict.fromkeys(("rules", "tool section", "instructions", "project summary"), "")
    rest = text
    summary_at = rest.find("# Project context")
    if summary_at >= 0:
        rest, parts["project summary"] = rest[:summary_at], rest[summary_at:]
    instructions_at = rest.find("# Project instructions")
    if instructions_at >= 0:
        rest, parts["instructions"] = rest[:instructions_at], rest[instructions_at:]
    starts = [rest.find(m) for m in TOOL_SECTION_MARKERS if rest.find(m) >= 0]
    if starts:
        parts["rules"], parts["tool section"] = rest[: min(starts)], rest[min(starts) :]
    else:
        parts["rules"] = rest
    return parts


def ipuaro_env(src: Path, data: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("IPUARO_")}
    env.update(
        {
            "PYTHONPATH": str(src),
            "IPUARO_DATA_DIR": str(data / "data"),
            "IPUARO_CONFIG_DIR": str(data / "config"),
        }
    )
    env.update(extra or {})
    return env


def index_once(root: Path, src: Path, data: Path) -> Path:
    """Index with ``ipuaro index`` into ``data``; each run starts from a copy of it (a fresh
    process, no earlier session to resume, no second index of django)."""
    out = subprocess.run(
        [sys.executable, "-m", "ipuaro", "index", "--yes", str(root)],
        env=ipuaro_env(src, data),
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"ipuaro index failed with {src}:\n{out.stdout}\n{out.stderr}")
    return data


def first_request(case: Case, src: Path, indexed: Path, data: Path) -> dict[str, Any]:
    shutil.copytree(indexed, data)
    model = StubModel(MODEL, capabilities=("completion", "tools") if case.native else ())
    with ModelStubServer(models=[model]) as server:
        server.enqueue(ScriptedReply(text="Hi! What would you like to do?"))
        env = ipuaro_env(
            src,
            data,
            {
                "IPUARO_LLM__PROVIDER": "ollama",
                "IPUARO_LLM__BASE_URL": server.url,
                "IPUARO_LLM__MODEL": MODEL,
                "IPUARO_LLM__CONTEXT_WINDOW": str(case.window),
            },
        )
        out = subprocess.run(
            [sys.executable, "-m", "ipuaro", "run", "-p", "say hi", "--project", str(case.root)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if out.returncode != 0 or not server.chat_requests():
            raise SystemExit(
                f"ipuaro run failed with {src} (exit {out.returncode}):\n{out.stdout}\n{out.stderr}"
            )
        return server.chat_requests()[0]


def count(body: dict[str, Any]) -> dict[str, int]:
    messages = body.get("messages", [])
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    tokens = {name: estimate_tokens(text) for name, text in split_system(system).items()}
    tools = body.get("tools")
    tokens["tool schemas"] = estimate_tokens(json.dumps(tools)) if tools else 0
    tokens["message"] = estimate_tokens(user)
    tokens["total"] = sum(tokens[p] for p in PARTS)
    return tokens


def extract(ref: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", ref, "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def make_tiny(into: Path) -> Path:
    root = into / "hello"
    root.mkdir()
    for name, text in TINY_FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="git ref measured as 'before'")
    parser.add_argument(
        "--windows", default="4096,8192,32768", help="context windows, comma-separated"
    )
    parser.add_argument("--skip-django", action="store_true")
    parser.add_argument("--dump", type=Path, help="write each first request as JSON here")
    args = parser.parse_args()
    windows = [int(w) for w in args.windows.split(",")]
    with tempfile.TemporaryDirectory(prefix="ipuaro-prompt-bench-") as tmp:
        work = Path(tmp)
        sources = {"before": extract(args.baseline, work / "baseline"), "after": REPO / "src"}
        projects = {"tiny (11 lines)": make_tiny(work), "agent fixture": AGENT_FIXTURE}
        if not args.skip_django:
            if not DJANGO.is_dir():
                raise SystemExit(f"{DJANGO} missing: run scripts/fetch-corpora")
            projects["django"] = DJANGO
        print(f"baseline {args.baseline}; estimated tokens of the first request of `say hi`")
        header = ["project", "calls", "window", "side", *PARTS, "total"]
        print(" | ".join(header))
        print(" | ".join("---" for _ in header))
        run = 0
        for project, root in projects.items():
            indexed = {
                side: index_once(root, src, work / f"{root.name}-{side}")
                for side, src in sources.items()
            }
            for native in (True, False):
                calls = "native" if native else "xml"
                for window in windows:
                    case = Case(project, root, native, window)
                    totals = {}
                    for side, src in sources.items():
                        run += 1
                        body = first_request(case, src, indexed[side], work / f"run{run}")
                        tokens = count(body)
                        totals[side] = tokens["total"]
                        if args.dump:
                            args.dump.mkdir(parents=True, exist_ok=True)
                            name = f"{root.name}-{calls}-{window}-{side}.json"
                            (args.dump / name).write_text(json.dumps(body, indent=1), "utf-8")
                        cells = [str(tokens[p]) for p in (*PARTS, "total")]
                        print(" | ".join([project, calls, str(window), side, *cells]), flush=True)
                    ratio = totals["after"] / totals["before"]
                    share = totals["after"] / window
                    goal = GOALS.get(window)
                    verdict = "" if goal is None else (" ok" if share <= goal else " OVER")
                    print(
                        f"{project} | {calls} | {window} | after/before | {ratio:.2f}× | "
                        f"after = {share:.0%} of the window{verdict}"
                    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
