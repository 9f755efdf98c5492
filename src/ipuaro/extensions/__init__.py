"""Extensions a user or a project adds: custom slash commands, script tools, hooks on the
agent's events and MCP servers, and the trust that project-level ones need before they run."""
