"""The terminal UI (``ipuaro [PATH]``): a Textual view over a ``core.workspace.Workspace``.

Start with :mod:`ipuaro.tui.app` (the app), :mod:`ipuaro.tui.bridge` (events in, questions
out: the TUI's decider) and :mod:`ipuaro.tui.events_view` (what each event draws);
:mod:`ipuaro.tui.command_runner` maps slash commands to workspace methods. Nothing here decides
what the agent does, and nothing here imports below :mod:`ipuaro.core` (import-linter checks).
"""
