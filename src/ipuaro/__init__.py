"""ipuaro: a local-first AI coding agent for the terminal.

Nothing is imported here on purpose: ``ipuaro --version`` must start fast, so heavy modules
(pydantic, tree-sitter, textual) load only where they are used.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
