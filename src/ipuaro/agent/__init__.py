"""The agent: the loop, its context, sessions and the user's decisions.

Nothing is imported here, so ``ipuaro.agent.events`` stays cheap for the UI. The parts:

- ``loop.Agent`` — one request to completion: model turns, tool calls, steer / follow-up /
  abort, the error matrix, per-answer stats; emits ``events``.
- ``context`` / ``project_context`` / ``summary`` / ``ranking`` / ``budget`` / ``prompt`` /
  ``instructions`` — what the model sees: the system prompt, the ranked AST summary within the
  structure budget, token accounting (``ContextMeter``).
- ``compaction`` (policy) and ``compactor`` (the summary call) — what happens at 80 %.
- ``history`` — the session history and the model's view of it.
- ``dispatch`` — running one turn's calls (reads concurrently, edits in order).
- ``turn`` / ``streamfilter`` — one streamed model call.
- ``bookkeeping`` — the session a request writes into: opening, closing, saving, switching.
- ``sessions`` / ``jsonl`` — persistence in the store and the JSONL export format.
- ``guard`` / ``queues`` / ``stats`` / ``observer`` / ``reporting`` — small helpers.
"""
