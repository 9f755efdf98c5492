"""The agent: the loop, what the model sees, and the sessions it writes into.

Nothing is imported here, so ``ipuaro.agent.events`` stays cheap. Three sub-packages, one
concern each (none imports a package listed above it):

- ``run`` — one request to completion: ``loop.Agent`` (model turns, tool calls, steer /
  follow-up / abort, the error matrix), ``turn`` / ``streamfilter`` (one streamed model call),
  ``dispatch`` (one turn's tool calls: reads concurrently, edits in order), ``compaction``
  (carrying out a compaction: the summary call), ``bookkeeping`` (the session a request writes
  into), ``guard`` / ``queues`` / ``stats`` / ``observer`` / ``reporting`` (small helpers).
- ``context`` — what the model sees: ``manager.ContextManager`` (the system prompt and token
  accounting), ``project`` (the project structure and ``ast_summary``, the ranked AST summary
  of the code), ``ranking``, ``budget``, ``prompt``, ``instructions`` (AGENTS.md and friends),
  ``history`` (the model's view of the session history), ``compaction_policy`` (what to cut
  when the window fills).
- ``sessions`` — persistence: ``keeper.SessionKeeper`` (create, load, resume, save in the
  store) and ``jsonl`` (the export format).
- ``events`` — the typed event stream and the questions the agent asks.
"""
