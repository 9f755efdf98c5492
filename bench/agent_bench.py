"""Agent benchmark: the agent's own overhead per turn, and the initial context per corpus.

Not a test. Run by hand (indexes each corpus first; minutes on two cores)::

    .venv/bin/python bench/agent_bench.py
    .venv/bin/python bench/agent_bench.py --turns 40 --data-dir /tmp/ipuaro-bench-data

What is measured:

- **Initial context** (three, rxjs, django): the system prompt the first request sends — rules,
  tool list, project instructions and the ranked project summary — in estimated tokens, against
  the structure budget at a 128K window and at 32K; how many files got a full block, a one-line
  brief, or were folded into folder lines; the time to build it cold (ASTs loaded from the store)
  and warm (cached, re-ranked for a new message).
- **Per-turn overhead** (django): one request of ``--turns`` model turns through the real app
  (``build_app``: real client over HTTP, parser, registry, SQLite store, session saves) against
  the stub model server answering at once with a scripted tool call per turn. For each turn,
  wall time from ``turn_start`` to the next ``turn_start`` minus the model call (from sending the
  request to the complete reply, client included). Reported with and without the tools' own
  execution time (the tools have their own benchmark); the target is the median without it
  under 50 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpora import corpus  # noqa: E402  (bench/ is on sys.path: this runs as a script)

CORPORA = {name: corpus(name) for name in ("three", "rxjs", "django")}
MESSAGE = {
    "three": "how does WebGLRenderer render a scene with shadows?",
    "rxjs": "explain how switchMap unsubscribes from the inner observable",
    "django": "how does QuerySet.filter build the SQL where clause?",
}
DJANGO_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_structure", {"path": "django/db/models"}),
    ("find_definition", {"symbol": "QuerySet"}),
    ("get_function", {"path": "django/db/models/query.py", "name": "filter"}),
    ("get_lines", {"path": "django/db/models/query.py", "start": 1400, "end": 1480}),
    ("find_references", {"symbol": "_filter_or_exclude"}),
    ("get_class", {"path": "django/db/models/sql/where.py", "name": "WhereNode"}),
    ("get_dependencies", {"path": "django/db/models/query.py"}),
    ("grep_search", {"query": "def add_q", "include_pattern": "django/db/**"}),
    ("get_function", {"path": "django/db/models/sql/query.py", "name": "add_q"}),
    ("get_complexity", {"path": "django/db/models/sql"}),
]


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


def index(root: Path) -> tuple[float, int]:
    from ipuaro.config.schema import Config
    from ipuaro.index.pipeline.indexer import Indexer
    from ipuaro.store.factory import open_store

    config = Config()
    store = open_store(config, root)
    try:
        started = time.perf_counter()
        summary = Indexer(root, config, store).index()
        return time.perf_counter() - started, summary.files
    finally:
        store.close()


def initial_context(name: str, root: Path, window: int) -> dict[str, Any]:
    from ipuaro.agent.context.budget import ContextBudget
    from ipuaro.agent.context.history import MESSAGE_OVERHEAD_TOKENS
    from ipuaro.agent.context.manager import ContextManager
    from ipuaro.agent.context.prompt import resolve_tool_format
    from ipuaro.config.schema import Config
    from ipuaro.llm.protocol import ToolSpec
    from ipuaro.llm.tokens import estimate_tokens
    from ipuaro.store.factory import open_store
    from ipuaro.tools.registry import ToolRegistry

    config = Config()
    store = open_store(config, root)
    try:
        budget = ContextBudget.from_config(config.context, window)
        context = ContextManager(store, root, budget, estimate_tokens)
        specs = [
            ToolSpec(s["name"], s["description"], s["parameters"])
            for s in ToolRegistry.default().specs()
        ]
        mode = resolve_tool_format("auto", None)  # xml: the prompt then carries the format too
        context.set_tools(specs, "native", native=True)
        native_fixed = context.fixed_tokens
        bare = context.assemble([], None)  # no messages: what is left is the tool schemas
        native_schemas = bare.tokens - bare.system_tokens - MESSAGE_OVERHEAD_TOKENS
        context.set_tools(specs, mode, native=False)
        started = time.perf_counter()
        stats = context.prepare_request(MESSAGE[name])
        cold = time.perf_counter() - started
        warm_times = []
        for word in ("router", "cache", "signal", "template", "migration"):
            started = time.perf_counter()
            context.prepare_request(f"{MESSAGE[name]} and the {word}")
            warm_times.append(time.perf_counter() - started)
        assembled = context.assemble([], None)
        return {
            "window": window,
            "structure_budget": budget.structure_tokens,
            "summary_tokens": stats.tokens,
            "project_tokens": context.project_tokens,
            "fixed_tokens_xml": context.fixed_tokens,
            "fixed_tokens_native": native_fixed,
            "native_schema_tokens": native_schemas,
            "system_tokens": assembled.system_tokens,
            "files": stats.files_total,
            "full": stats.files_full,
            "brief": stats.files_brief,
            "folded": stats.files_folded,
            "fits": stats.tokens <= budget.structure_tokens,
            "cold_ms": cold * 1000,
            "warm_ms": median_ms(warm_times),
        }
    finally:
        store.close()


class Timeline:
    """Event listener + turn observer collecting what the overhead arithmetic needs."""

    def __init__(self) -> None:
        self.turn_starts: list[float] = []
        self.model_s: dict[int, float] = {}
        self.tool_s: dict[int, float] = {}
        self.end_at = 0.0
        self.failed: list[str] = []
        self._turn = 0

    def __call__(self, event: Any) -> None:
        if event.type == "turn_start":
            self._turn = event.turn
            self.turn_starts.append(time.perf_counter())
        elif event.type == "tool_call_end":
            self.tool_s[self._turn] = self.tool_s.get(self._turn, 0.0) + event.duration_s
            if not event.result.success:
                self.failed.append(f"{event.call.name}: {event.result.error}")
        elif event.type == "agent_end":
            self.end_at = time.perf_counter()

    def on_context(self, stats: Any) -> None:
        pass

    def on_model_request(self, info: Any) -> None:
        pass

    def on_model_response(self, info: Any) -> None:
        self.model_s[info.turn] = self.model_s.get(info.turn, 0.0) + info.duration_s

    def on_note(self, kind: str, data: dict[str, Any]) -> None:
        pass


async def turn_overhead(root: Path, turns: int) -> dict[str, Any]:
    from tests.stubs.model_server import ModelStubServer, ScriptedReply, StubToolCall

    from ipuaro.config.loader import load_config
    from ipuaro.core.wiring import build_app

    class Handlers:
        async def on_error(self, error: Any, choices: Any) -> str:
            return "skip"

        async def on_conflict(self, path: str, description: str, choices: object = ()) -> str:
            return "skip"

        async def on_loop(self, tool_name: str, repeats: int) -> str:
            return "continue"

    with ModelStubServer() as server:
        for i in range(turns - 1):
            name, arguments = DJANGO_CALLS[i % len(DJANGO_CALLS)]
            server.enqueue(ScriptedReply(tool_calls=[StubToolCall(name, dict(arguments))]))
        server.enqueue(
            ScriptedReply(text="The filter builds a Q object and adds it to the where tree.")
        )
        config = load_config(root, {"llm.baseUrl": server.url, "llm.contextWindow": 131_072})
        app = await build_app(root, config, handlers=Handlers(), confirm=None, new_session=True)  # type: ignore[arg-type]
        timeline = Timeline()
        app.agent.subscribe(timeline)
        app.agent._report.observer = timeline  # the tracer slot: no trace file, just timings
        try:
            started = time.perf_counter()
            end = await app.agent.send(MESSAGE["django"])
            total = time.perf_counter() - started
        finally:
            await app.aclose()
    marks = [*timeline.turn_starts, timeline.end_at]
    with_tools: list[float] = []
    without_tools: list[float] = []
    for index in range(len(timeline.turn_starts)):
        turn = index + 1
        wall = marks[index + 1] - marks[index]
        own = wall - timeline.model_s.get(turn, 0.0)
        with_tools.append(own)
        without_tools.append(own - timeline.tool_s.get(turn, 0.0))
    return {
        "reason": end.reason,
        "turns": len(timeline.turn_starts),
        "total_s": total,
        "model_median_ms": median_ms(list(timeline.model_s.values())),
        "overhead_median_ms": median_ms(without_tools),
        "overhead_p90_ms": sorted(without_tools)[int(len(without_tools) * 0.9) - 1] * 1000,
        "overhead_first_ms": without_tools[0] * 1000,
        "with_tools_median_ms": median_ms(with_tools),
        "failed": timeline.failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--data-dir", type=Path, help="Reuse this IPUARO_DATA_DIR (indexes kept).")
    for name, default in CORPORA.items():
        parser.add_argument(f"--{name}", type=Path, default=default)
    options = parser.parse_args()
    holder = None
    if options.data_dir is None:
        holder = tempfile.TemporaryDirectory(prefix="ipuaro-agent-bench-")
        os.environ["IPUARO_DATA_DIR"] = holder.name
    else:
        os.environ["IPUARO_DATA_DIR"] = str(options.data_dir)
    os.environ.pop("IPUARO_TRACE", None)
    roots = {name: getattr(options, name) for name in CORPORA}
    print("## Agent\n")
    print(
        "corpus | files | index s | window | budget | summary tok | system tok "
        "(fixed: xml / native + tool schemas) | full / brief / folded | fits | cold ms | warm ms"
    )
    print("--- | --- | --- | --- | --- | --- | --- | --- | --- | --- | ---")
    for name, root in roots.items():
        if not root.is_dir():
            print(f"{name} | missing: {root} (run scripts/fetch-corpora)")
            continue
        seconds, files = index(root)
        for window in (131_072, 32_768):
            row = initial_context(name, root, window)
            cells = [
                name,
                str(files),
                f"{seconds:.1f}",
                f"{window // 1024}K",
                str(row["structure_budget"]),
                str(row["summary_tokens"]),
                f"{row['system_tokens']} ({row['fixed_tokens_xml']} / "
                f"{row['fixed_tokens_native']} + {row['native_schema_tokens']} schemas)",
                f"{row['full']} / {row['brief']} / {row['folded']}",
                "yes" if row["fits"] else "NO",
                f"{row['cold_ms']:.0f}",
                f"{row['warm_ms']:.0f}",
            ]
            print(" | ".join(cells))
    django = roots["django"]
    if django.is_dir():
        result = asyncio.run(turn_overhead(django, options.turns))
        met = "met" if result["overhead_median_ms"] < 50 else "NOT met"
        print(
            f"\ndjango, {result['turns']} turns ({result['reason']}), stub model: agent overhead "
            f"per turn median {result['overhead_median_ms']:.1f} ms "
            f"(p90 {result['overhead_p90_ms']:.1f} ms, first turn "
            f"{result['overhead_first_ms']:.1f} ms); with tool execution "
            f"{result['with_tools_median_ms']:.1f} ms; model call median "
            f"{result['model_median_ms']:.1f} ms; request total {result['total_s']:.2f} s "
            f"— target median < 50 ms: {met}"
        )
        for failure in result["failed"]:
            print(f"  tool call failed: {failure[:160]}")
    if holder is not None:
        holder.cleanup()


if __name__ == "__main__":
    main()
