"""The main screen's widgets: status bar, chat log, diff panel, prompt."""
