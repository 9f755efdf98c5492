"""Running one request: the agent loop, one model call, one turn's tool calls, compaction."""
