"""Engineering memory: user and project preferences with whitelisted, typed keys, the model's
``memory_patch`` checked before it is applied, and the block the model is shown."""
