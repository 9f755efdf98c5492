"""``ipuaro acp``: serve the Agent Client Protocol on stdin/stdout for an editor."""

from __future__ import annotations

import click

from ipuaro.cli.common import global_options
from ipuaro.cli.llm_flags import llm_options, llm_overrides


@click.command(
    "acp",
    help=(
        "Serve ipuaro as an Agent Client Protocol agent on stdin/stdout, for editors such as "
        "Zed. The client's working directory of each session is the project. Logs go to "
        "stderr; stdout carries only the protocol."
    ),
)
@click.option("--model", help="Model name (llm.model).")
@llm_options
def command(model: str | None) -> None:
    import asyncio
    import logging
    import sys

    from ipuaro.acp.channel import claim_stdout
    from ipuaro.acp.server import serve

    out = claim_stdout()  # first: nothing printed from here on can reach the protocol
    options = global_options()
    if not options.verbose:
        logging.basicConfig(
            level=logging.WARNING, stream=sys.stderr, format="ipuaro acp: %(message)s"
        )
    overrides = {"llm.model": model, **llm_overrides()}
    try:
        asyncio.run(serve(out, overrides, options.config_file))
    except KeyboardInterrupt:
        sys.exit(130)
