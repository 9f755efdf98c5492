"""The MCP client: servers a user (or a trusted project) declares in ``mcp.servers``, their
tools offered to the model like built-in ones, each call asked about unless allowed.

    manager = McpManager(config.mcp, root, os.environ, project_trusted=trusted)
    registry.add_source(manager)      # tools appear at the first request, go when a server dies
    ...
    await manager.aclose()
"""

from ipuaro.extensions.mcp.manager import McpManager, ServerState, ServerStatus

__all__ = ["McpManager", "ServerState", "ServerStatus"]
