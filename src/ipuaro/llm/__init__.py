"""Model clients (Ollama, OpenAI-compatible), tool-call parsing, tool-format instructions and
token estimates. Import from the submodules: ``ipuaro.llm.protocol`` for the interface and
events, ``ipuaro.llm.factory.create_client`` for a client, ``ipuaro.llm.toolcalls`` for parsing.
"""
