"""The ``ipuaro`` command line (``main.cli``); subcommands load lazily from ``main.COMMANDS``."""
