"""Sessions in the store (create, load, resume, save) and the JSONL export format."""
