"""The terminal UI (``ipuaro [PATH]``): a Textual app drawing the agent's event stream.

Start with :mod:`ipuaro.tui.app` (the app), :mod:`ipuaro.tui.bridge` (events in, questions
out) and :mod:`ipuaro.tui.events_view` (what each event draws). Nothing here decides what the
agent does; the agent lives in :mod:`ipuaro.agent` behind :func:`ipuaro.core.wiring.build_app`.
"""
