"""httpx without its command-line client: ``from ipuaro.llm.lean_httpx import httpx``.

``httpx/__init__`` imports ``httpx._main`` (its ``httpx`` command: click, rich, pygments) on
every import when those are installed — ~30 ms of each ipuaro start that talks to a model,
for a command line ipuaro never runs. httpx itself falls back to a stub ``httpx.main`` when
that import fails, which is what it does here: the first import of httpx in this process
runs with ``httpx._main`` marked missing, and the mark is removed right after, so an explicit
``import httpx._main`` later still works. If httpx is already imported (the MCP or ACP SDKs
got there first), nothing changes; if a future httpx needs ``_main`` to import, it is
imported the ordinary way.
"""

from __future__ import annotations

import sys

__all__ = ["httpx"]

_CLI = "httpx._main"
_block = "httpx" not in sys.modules and _CLI not in sys.modules
if _block:
    sys.modules[_CLI] = None  # type: ignore[assignment]  # the documented "not importable"
try:
    import httpx
except ImportError:  # an httpx that cannot do without its CLI module
    if sys.modules.get(_CLI, 0) is None:
        del sys.modules[_CLI]
    _block = False
    import httpx
finally:
    if _block and sys.modules.get(_CLI, 0) is None:
        del sys.modules[_CLI]
