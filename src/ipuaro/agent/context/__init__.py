"""What the model sees: system prompt, project structure, AST summary, history, token budget."""
