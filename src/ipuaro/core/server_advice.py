"""How to start the model server the configuration names: its provider, host and port.

One source for ``ipuaro doctor``, the TUI's onboarding screen and ``ipuaro run``: with
``llm.provider=openai`` nobody should be told to run ``ollama serve``, and a server expected on
port 1234 is started on port 1234.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ipuaro.config.schema import LlmConfig

DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434", "openai": "http://localhost:8080/v1"}
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", ""}


def configured_url(llm: LlmConfig) -> str:
    return (llm.base_url or DEFAULT_BASE_URLS[llm.provider]).rstrip("/")


def start_commands(llm: LlmConfig) -> list[str]:
    """Shell commands (or one sentence for a GUI server) that start a matching server."""
    url = urlsplit(configured_url(llm))
    host = url.hostname or "localhost"
    local = host in _LOCAL_HOSTS
    if llm.provider == "ollama":
        port = url.port or 11434
        listen = "" if local and port == 11434 else f"OLLAMA_HOST={host}:{port} "
        return [f"{listen}ollama serve", f"ollama pull {llm.model}"]
    port = url.port or (443 if url.scheme == "https" else 80)
    bind = "" if local else f" --host {host}"
    return [
        f"llama-server -m MODEL.gguf{bind} --port {port}   (llama.cpp)",
        f"vllm serve {llm.model}{bind} --port {port}   (vLLM)",
        f"LM Studio: load {llm.model} and start its local server on port {port}",
    ]


def start_advice(llm: LlmConfig) -> str:
    """One line: which server, where, and how to start it."""
    url = configured_url(llm)
    commands = start_commands(llm)
    if llm.provider == "ollama":
        return (
            f"start Ollama at {url}: `{commands[0]}`, then `{commands[1]}` "
            "(or set llm.baseUrl to where it runs)"
        )
    return (
        f"start an OpenAI-compatible server at {url}, e.g. `{commands[0].split('   ')[0]}` "
        f"(llama.cpp), `{commands[1].split('   ')[0]}` (vLLM) or LM Studio's local server on "
        "that port (or set llm.baseUrl to where it runs)"
    )


def cannot_reach(llm: LlmConfig) -> str:
    """The one-line 'not reachable' message of ``ipuaro run``: which server, where, and how to
    start it on the user's host and port (not a default's)."""
    name = "Ollama server" if llm.provider == "ollama" else "OpenAI-compatible server"
    return f"cannot reach the {name} at {configured_url(llm)}: {start_advice(llm)}."
