"""``ipuaro run -p "…"``: one request, no UI, exit code says how it went (see ``headless``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ipuaro.cli.common import fail, load_project


@click.command(
    "run",
    help=(
        "Run the agent headless on one prompt. Never asks: edits need --auto-apply, commands "
        "the policy would ask about need --allow-commands. Exit codes: 0 done, 1 error, "
        "3 no answer because of refusals (each refusal goes back to the model), 4 a limit "
        "(max turns, loop guard)."
    ),
)
@click.option(
    "-p", "--prompt", required=True, help='The request; "-" reads it from standard input.'
)
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Project folder (default: the current directory's project root).",
)
@click.option("--auto-apply", is_flag=True, help="Apply edits without confirmation.")
@click.option("--allow-commands", is_flag=True, help="Run commands the policy would ask about.")
@click.option(
    "--output",
    type=click.Choice(["text", "json", "stream-json"]),
    default="text",
    show_default=True,
    help="text: the answer as it streams; json: one object at the end; stream-json: one "
    "event per line. JSON keys are camelCase (tool arguments stay as the model wrote them).",
)
@click.option("--max-turns", type=click.IntRange(min=1), help="Most model turns (llm.maxTurns).")
@click.option("--new", "new_session", is_flag=True, help="Start a new session.")
@click.option("--session", "session_id", help="Continue this session (see `ipuaro sessions`).")
@click.option("--model", help="Model name (llm.model).")
@click.option(
    "--on-error",
    type=click.Choice(["abort", "skip", "retry"]),
    default="abort",
    show_default=True,
    help="What to do when a step fails.",
)
def command(
    prompt: str,
    project: Path | None,
    auto_apply: bool,
    allow_commands: bool,
    output: str,
    max_turns: int | None,
    new_session: bool,
    session_id: str | None,
    model: str | None,
    on_error: str,
) -> None:
    import asyncio

    from ipuaro.headless import HeadlessOptions, run_headless

    if new_session and session_id:
        fail("--new and --session exclude each other: pick one")
    if prompt == "-":
        prompt = sys.stdin.read()
    if not prompt.strip():
        fail('the prompt is empty: pass the request with -p "…"')
    root, config = load_project(project, {"llm.maxTurns": max_turns, "llm.model": model})
    options = HeadlessOptions(
        prompt=prompt,
        output=output,  # type: ignore[arg-type]
        auto_apply=auto_apply,
        allow_commands=allow_commands,
        on_error=on_error,  # type: ignore[arg-type]
        session_id=session_id,
        new_session=new_session,
    )
    sys.exit(asyncio.run(run_headless(root, config, options)))
