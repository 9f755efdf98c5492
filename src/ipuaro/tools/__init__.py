"""Tools the model calls: a declarative ``Tool`` model (``base``), the registry that never
raises (``registry``), and one module per tool under ``builtin``.

Import the pieces from their modules; this package imports nothing on purpose (the CLI starts
fast and ``ipuaro.tools.base`` stays importable by ``ipuaro.edits``).
"""
