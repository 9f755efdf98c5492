"""``ipuaro run -p "…"``: one request, no UI, exit code says how it went (see ``headless``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from ipuaro.cli.common import fail, load_project
from ipuaro.cli.entry import quit_on_press, report_interrupt
from ipuaro.cli.llm_flags import llm_options, llm_overrides


@click.command(
    "run",
    help=(
        "Run the agent headless on one prompt. Never asks: edits need --auto-apply, commands "
        "the policy would ask about need --allow-commands, memory changes the model proposes "
        "need --remember. Exit codes: 0 done, 1 error (with --plan: no valid plan, or one with "
        "nothing to apply), 3 no answer "
        "because of refusals (each refusal goes back to the model), 4 a limit (max turns, loop "
        "guard), 130 interrupted by Ctrl+C (the result is still printed, reason aborted)."
    ),
)
@click.option("-p", "--prompt", help='The request; "-" reads it from standard input.')
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Project folder (default: the current directory's project root).",
)
@click.option("--auto-apply", is_flag=True, help="Apply edits without confirmation.")
@click.option(
    "--apply",
    "apply_plan",
    is_flag=True,
    help="Apply the stored plan of the most recent session (or --resume ID) instead of a "
    "prompt; -p adds a note. Writes only with --auto-apply (else prints the diff, exit 3). "
    "Exit codes: 0 applied, 1 not applied (no plan, a check failed, stale), 3 needs "
    "--auto-apply.",
)
@click.option("--allow-commands", is_flag=True, help="Run commands the policy would ask about.")
@click.option(
    "--trust-project",
    is_flag=True,
    help="Trust the project's own script tools and hooks (.ipuaro.json) and remember it; "
    "without it they stay off.",
)
@click.option(
    "--remember",
    is_flag=True,
    help="Write the memory changes the model proposes (remember tool, a plan's memory_patch); "
    "without it they are refused and listed.",
)
@click.option(
    "--output",
    type=click.Choice(["text", "json", "stream-json"]),
    default="text",
    show_default=True,
    help="text: the answer as it streams; json: one object at the end; stream-json: one "
    "event per line. JSON keys are camelCase (tool arguments stay as the model wrote them).",
)
@click.option(
    "--plan",
    "plan",
    is_flag=True,
    help="Plan mode: the model answers one JSON plan (nothing is changed); the plan is kept "
    "with the session. With --output json the validated plan object is the result's `plan`.",
)
@click.option("--max-turns", type=click.IntRange(min=1), help="Most model turns (llm.maxTurns).")
@click.option(
    "--continue",
    "continue_last",
    is_flag=True,
    help="Continue the project's most recent session (default: a new session each run).",
)
@click.option(
    "--resume",
    "--session",
    "session_id",
    metavar="ID",
    help="Continue this session (see `ipuaro sessions list`).",
)
@click.option("--new", "new_flag", is_flag=True, hidden=True, help="A new session (the default).")
@click.option("--model", help="Model name (llm.model).")
@llm_options
@click.option(
    "--eval",
    "evaluate",
    is_flag=True,
    help="Then check the answer's paths, lines and names against the index and have the model "
    "critique it (/eval). Without -p: the last answer of --resume ID (or --continue).",
)
@click.option(
    "--on-error",
    type=click.Choice(["abort", "skip", "retry"]),
    default="abort",
    show_default=True,
    help="What to do when a step fails.",
)
def command(
    prompt: str | None,
    project: Path | None,
    auto_apply: bool,
    allow_commands: bool,
    trust_project: bool,
    remember: bool,
    output: str,
    max_turns: int | None,
    continue_last: bool,
    session_id: str | None,
    new_flag: bool,
    model: str | None,
    evaluate: bool,
    on_error: str,
    plan: bool,
    apply_plan: bool = False,
) -> None:
    import asyncio

    from ipuaro.headless import HeadlessOptions, HeadlessRun, run_headless

    chosen = [name for name, on in (("--continue", continue_last), ("--resume", bool(session_id)),
              ("--new", new_flag)) if on]  # fmt: skip
    if len(chosen) > 1:
        fail(f"{' and '.join(chosen)} exclude each other: pick one")
    if plan and evaluate:
        fail("--plan and --eval exclude each other: a plan is checked when it is applied")
    if plan and prompt is None:
        fail('--plan needs the request: pass it with -p "…"')
    if apply_plan and (evaluate or new_flag or plan):
        fail("--apply applies a stored plan: it goes with neither --eval, --plan nor --new")
    if prompt is None and not evaluate and not apply_plan:
        fail('no request: pass it with -p "…" (or --eval to check the last answer)')
    if prompt is None and not apply_plan and not (session_id or continue_last):
        fail("--eval without -p checks a stored answer: name its session with --resume ID")
    if prompt == "-":
        prompt = sys.stdin.read()
    if prompt is not None and not prompt.strip() and not apply_plan:
        fail('the prompt is empty: pass the request with -p "…"')
    overrides = {"llm.maxTurns": max_turns, "llm.model": model, **llm_overrides()}
    root, config = load_project(project, overrides)
    options = HeadlessOptions(
        prompt=prompt or "",
        output=output,  # type: ignore[arg-type]
        auto_apply=auto_apply,
        allow_commands=allow_commands,
        on_error=on_error,  # type: ignore[arg-type]
        session_id=session_id,
        # like `claude -p`: a run starts afresh; --apply continues the session that planned
        new_session=not (continue_last or apply_plan),
        evaluate=evaluate,
        trust_project=trust_project,
        remember=remember,
        plan=plan,
        apply=apply_plan,
    )
    run = HeadlessRun()
    quitting: list[Callable[[], object]] = []

    async def headless() -> int:
        code = await run_headless(root, config, options, run=run)
        # The result is out; closing the loop (it waits for worker threads) is all that is
        # left: a press now ends the process with this code, it never reports again.
        quitting.append(quit_on_press(code))
        return code

    try:
        try:
            code = asyncio.run(headless())
        except KeyboardInterrupt as press:  # before run_headless handles Ctrl+C, or after
            if run.exit_code is not None:
                code = run.exit_code  # the result is out: it stands
            else:
                code = report_interrupt(lambda: _interrupted(output, config.llm.model), press)
        sys.exit(code)
    finally:
        for restore in quitting:
            restore()


def _interrupted(output: str, model: str) -> int:
    from ipuaro.cli.interrupted import interrupted

    return interrupted(output, model)
