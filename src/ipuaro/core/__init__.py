"""The application core: one project opened for a user, below every front end.

- ``workspace.Workspace`` — every user-level operation as a typed method (send, steer,
  follow-up, abort; status; index; sessions; model; undo/redo; /eval; modes; input history).
- ``events`` — what a workspace tells its front ends (the agent's events and its own).
- ``decisions`` — every question it asks, through one ``Decider`` protocol.
- ``errors`` / ``reports`` — what operations raise and return.
- ``commands`` — the slash-command table and parser every front end shares.
- ``checks`` — ``ipuaro doctor``'s checks and the onboarding checks before opening.
- ``sessions`` — a project's stored sessions without a model (``ipuaro sessions``).
- ``project_index`` — a project's index without a model (``ipuaro index``).
- ``calls`` / ``transcript`` / ``evaluation`` — a tool call's kind and paths, a stored message
  as the user reads it, ``/eval``'s evidence.
- ``wiring`` — the only module that knows every concrete part (store, index, tools, agent).

Front ends (``tui``, ``headless``, ``cli``, ``acp``) import this package, ``config`` and
``domain`` — nothing below (an import-linter contract in pyproject.toml enforces it). Nothing
is imported here, so each front end pays only for what it uses.
"""
