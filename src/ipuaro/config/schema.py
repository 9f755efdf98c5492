"""Every configuration key, validated with pydantic. Field docstrings are the documentation.

Keys use the concept's camelCase names in JSON (``contextWindow``); Python code uses snake_case.
Unknown keys are errors, so a typo never silently does nothing.

Built for a fast start: the models build their validators on first use (``defer_build``; a
start served by :mod:`ipuaro.config.cache` never validates), and the field docstrings are read
from the source only when asked for (:func:`ipuaro.config.describe.field_docs`), not by pydantic
at import (``use_attribute_docstrings`` read this file once per class: ~25 ms of every start).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator
from pydantic.alias_generators import to_camel


class Section(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        validate_assignment=True,
        defer_build=True,
    )


class RedisConfig(Section):
    host: str = "localhost"
    """Redis host (only used when ``store.backend`` is ``redis``)."""
    port: int = Field(6379, ge=1, le=65535)
    """Redis TCP port."""
    db: int = Field(0, ge=0)
    """Redis logical database number."""
    password: str | None = None
    """Redis password, if the server requires one."""
    enforce_aof: bool = False
    """If true, turn on ``appendonly yes`` at connect when it is off (otherwise only warn)."""


class LlmConfig(Section):
    provider: Literal["ollama", "openai"] = "ollama"
    """``ollama`` (native /api/chat) or ``openai`` (any OpenAI-compatible /v1 server)."""
    model: str = "qwen2.5-coder:7b-instruct"
    """Model name as the server knows it."""
    base_url: str | None = None
    """Server URL; default http://localhost:11434 (ollama) or http://localhost:8080/v1 (openai)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key (openai provider)."""
    context_window: int | None = Field(None, ge=512)
    """Context window (num_ctx) fixed for a session; null means: ask the server (llama.cpp
    ``/props``, vLLM ``max_model_len``, LM Studio ``/api/v0/models``, Ollama ``/api/show`` capped
    by RAM)."""
    temperature: float = Field(0.1, ge=0.0, le=2.0)
    """Sampling temperature."""
    system_prompt_language: str = "en"
    """Language of the system prompt (answers follow the user's language)."""
    tool_format: Literal["auto", "native", "xml", "react", "json"] = "auto"
    """How tools are offered: native tool calls, or a text protocol; ``auto`` picks per model."""
    auto_retry: bool = False
    """Retry retryable model errors automatically instead of asking the user."""
    cache: bool = False
    """Reserved: cache identical model requests."""
    keep_alive: str = "30m"
    """Ollama ``keep_alive`` sent on every request so the model stays loaded."""
    timeout: float = Field(300.0, gt=0)
    """Seconds to wait for a model response (between streamed chunks)."""
    max_turns: int = Field(50, ge=1)
    """Most model turns for one user request before the agent stops."""
    max_reply_tokens: int | None = Field(4096, ge=64)
    """Most tokens of one reply in agent mode (``max_tokens`` / Ollama ``num_predict``; never
    more than the context window has left); null: no cap, the server stops when the window is
    full. A reply that repeats itself is cut earlier either way."""


class ProjectConfig(Section):
    scope: Literal["repository", "directory"] = "repository"
    """``repository``: the whole project root; ``directory``: only the folder opened."""
    ignore_patterns: list[str] = Field(
        default_factory=lambda: ["node_modules", "dist", "build", ".git", "*.min.js"]
    )
    """gitignore-style patterns never indexed (added to .gitignore rules)."""
    binary_extensions: list[str] = Field(
        default_factory=lambda: [".png", ".jpg", ".pdf", ".zip", ".woff"]
    )
    """Extensions stored as metadata only (more are detected by content)."""
    max_parse_bytes: int = Field(1_000_000, ge=0)
    """Larger source files are stored and searchable as text but not parsed (no AST or symbols):
    a 12 MB generated file would take minutes and gigabytes to parse."""
    max_file_bytes: int = Field(32_000_000, ge=0)
    """Larger files are kept as metadata only, like binaries (a 1 GB log held as lines would
    take gigabytes of memory)."""
    protected_paths: list[str] = Field(
        default_factory=lambda: [
            ".env",
            ".env.*",
            "!.env.example",
            "*.pem",
            "*.key",
            "*.p12",
            "id_rsa*",
            "**/secrets/**",
            ".git/**",
        ]
    )
    """gitignore-style patterns of files the agent may never edit, create or delete."""


class SessionConfig(Section):
    persist_indefinitely: bool = True
    """Keep sessions forever (until deleted)."""
    max_history_messages: int = Field(100, ge=1)
    """Most messages kept in a session's visible history."""
    save_input_history: bool = True
    """Persist what the user typed, for ↑/↓."""


class ContextConfig(Section):
    system_prompt_tokens: int = Field(2000, ge=100)
    """Token budget of the system prompt."""
    structure_tokens: int = Field(10_000, ge=500)
    """Token budget of structure + AST summary at a 128K window (scaled to the real window)."""
    structure_share: float = Field(0.25, gt=0, le=0.5)
    """Largest share of the window the structure + AST summary may take (an 8K or 16K window
    still leaves room to work)."""
    keep_recent: int = Field(8, ge=2, le=100)
    """Messages kept verbatim when the conversation is compacted (older ones are summarised)."""
    max_context_usage: float = Field(0.8, gt=0, le=1)
    """Fraction of the window the agent may fill."""
    auto_compress_at: float = Field(0.8, gt=0, le=1)
    """Compact the conversation when it fills this fraction of the window."""
    compression_method: Literal["llm-summary", "truncate"] = "llm-summary"
    """How to compact: summarise old turns with the model, or just drop them."""


class WatchdogConfig(Section):
    debounce_ms: int = Field(500, ge=0)
    """Longest time file changes are grouped before the index is updated, in ms
    (a 100 ms pause applies them sooner)."""
    enabled: bool = True
    """Watch the project for changes while a session runs."""


class CommandsConfig(Section):
    timeout: float | None = Field(30.0, gt=0)
    """Seconds before a command (``run_command``, ``!command``, a verify command) is killed with
    its process group; null: only ``maxTimeout`` applies."""
    test_timeout: float | None = Field(300.0, gt=0)
    """Seconds before a test runner started by ``run_tests`` is killed with its process group
    (test suites take longer); null: only ``maxTimeout`` applies."""
    max_timeout: float = Field(600.0, gt=0)
    """Hard cap for any one command, seconds."""
    output_limit_bytes: int = Field(8192, ge=256)
    """Command output kept for the model (head and tail)."""
    persistent_shell: bool = True
    """``run_command`` runs in one bash per session, so ``cd`` and ``export`` carry over
    between calls (``cd`` stays inside the project); off: a new process per call, in the
    project root."""


class SandboxConfig(Section):
    profile: Literal["workspace", "read-only", "off"] = "workspace"
    """Where commands may write: ``workspace`` (the project and a private temp folder),
    ``read-only`` (only the private temp folder), ``off`` (no sandbox; the status bar warns)."""
    network: bool = False
    """Let sandboxed commands open TCP connections without asking (``npm install`` asks
    otherwise)."""
    readable: list[str] = Field(default_factory=list)
    """More folders outside the project that commands may read (``~`` expands)."""
    writable: list[str] = Field(default_factory=list)
    """More folders outside the project that commands may write (``~/.npm`` for a cache)."""


class UndoConfig(Section):
    stack_size: int = Field(10, ge=1, le=1000)
    """How many applied changes can be undone."""


class VerifyConfig(Section):
    after_edits: Literal["off", "lint", "test", "both"] = "off"
    """After the model's last edit of a turn, run the remembered lint and/or test command
    (project.default_lint_command, project.default_test_command); failures go back to it."""
    max_fix_rounds: int = Field(2, ge=0, le=10)
    """How many times failing checks go back to the model in one request."""


class EditConfig(Section):
    always_confirm: bool = True
    """Ask before every edit unless auto-apply is on."""
    auto_apply: bool = False
    """Apply edits without asking."""
    show_diff: bool = True
    """Show a diff for every proposed edit."""
    diff_format: Literal["inline-highlights", "unified"] = "inline-highlights"
    """How diffs are drawn."""
    syntax_highlight: bool = True
    """Colour code in diffs."""
    show_description: bool = True
    """Show the one-line description of each change."""
    wrap_long_lines: bool = True
    """Wrap long lines in the diff view."""
    fuzzy_threshold: float = Field(0.9, ge=0.5, le=1.0)
    """Minimum similarity for ``replace`` to accept a fuzzy match (only when unique)."""


class DisplayConfig(Section):
    show_stats: bool = True
    """Show time, tokens and tool calls after each answer."""
    show_tool_calls: bool = True
    """Show a line per tool call in the chat."""
    theme: Literal["dark", "light"] = "dark"
    """Colour theme."""
    bell_on_complete: bool = True
    """Ring the terminal bell when a long answer completes."""
    progress_bar: bool = True
    """Show a progress bar while indexing."""


class AutocompleteConfig(Section):
    source: Literal["redis-index", "index"] = "redis-index"
    """Where Tab completion takes paths from (the store's index either way)."""


class InputConfig(Section):
    multiline: Literal["auto", "always", "never"] = "auto"
    """Multi-line input: grow when the text needs it, always, or never."""


class LimitsConfig(Section):
    max_files_warning: int = Field(10_000, ge=1)
    """Ask before indexing a project with more files than this: continue, index only one of
    its largest top-level folders this session, or cancel."""
    encoding: Literal["utf-8"] = "utf-8"
    """Text encoding of indexed files (others are skipped and counted)."""


class StoreConfig(Section):
    backend: Literal["sqlite", "redis"] = "sqlite"
    """``sqlite`` (embedded, default) or ``redis`` (external server with AOF)."""
    path: Path | None = None
    """SQLite: database file; default ``{data dir}/{project name}.db``."""


class WhitelistConfig(Section):
    user: list[str] = Field(default_factory=list)
    """Extra command names allowed without asking (added to the shipped whitelist)."""
    ask_for_unknown: bool = True
    """Ask the user about commands on neither list (refused in headless mode unless allowed)."""


class BlacklistConfig(Section):
    user: list[str] = Field(default_factory=list)
    """Extra command patterns always refused (added to the shipped blacklist)."""


class ScriptToolConfig(Section):
    """One script tool: a program the model calls like a built-in tool."""

    description: str = Field(min_length=1)
    """What the tool does and when to use it, written for the model (it sees this text)."""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    """JSON Schema of the arguments (an ``object`` schema); the model's arguments are checked
    against it. A tool whose schema is not valid JSON Schema is skipped with a warning."""
    argv: list[str] = Field(min_length=1)
    """The program and its arguments, started without a shell. An item ``{name}`` is replaced
    by that argument's value (never split or interpreted); every argument also arrives as JSON
    on stdin and as an ``IPUARO_ARG_NAME`` environment variable."""
    read_only: bool = False
    """The tool only reads: it runs with a turn's other reads, and its
    sandbox cannot write to the project."""
    timeout: float = Field(30.0, gt=0, le=3600)
    """Seconds before the tool's process group is killed."""
    cwd: str = "."
    """Working directory, relative to the project root (it must stay inside the project)."""


class HookConfig(Section):
    """One hook: a program run on an agent event, the event as JSON on stdin."""

    argv: list[str] = Field(min_length=1)
    """The program and its arguments, started without a shell in the project root."""
    timeout: float = Field(10.0, gt=0, le=600)
    """Seconds before the hook is killed and reported (the agent goes on)."""
    tools: list[str] = Field(default_factory=list)
    """``preTool`` / ``postTool`` only: tool names or globs (``edit_*``) the hook runs for;
    empty means every tool."""


class HooksConfig(Section):
    session_start: list[HookConfig] = Field(default_factory=list)
    """Run once when a session is opened (TUI start, a headless run, an ACP session)."""
    user_prompt: list[HookConfig] = Field(default_factory=list)
    """Run before each request goes to the model."""
    pre_tool: list[HookConfig] = Field(default_factory=list)
    """Run before each tool call; exit code 2 blocks the call and its stderr is handed to the
    model as the reason."""
    post_tool: list[HookConfig] = Field(default_factory=list)
    """Run after each tool call, with its result."""
    agent_end: list[HookConfig] = Field(default_factory=list)
    """Run when a request has ended (done, aborted, a limit or an error)."""


class ExtensionsConfig(Section):
    tools: dict[str, ScriptToolConfig] = Field(default_factory=dict)
    """Script tools by name (see docs/extensions.md). Declared in a project's .ipuaro.json they
    run only once the user trusts the project."""
    hooks: HooksConfig = Field(default_factory=HooksConfig)
    """Programs run on the agent's events. Declared in a project's .ipuaro.json they run only
    once the user trusts the project."""
    project_tools: dict[str, ScriptToolConfig] = Field(default_factory=dict, exclude=True)
    """Set by the loader from the project file's ``extensions.tools`` (never written by hand)."""
    project_hooks: HooksConfig = Field(default_factory=HooksConfig, exclude=True)
    """Set by the loader from the project file's ``extensions.hooks`` (never written by hand)."""


class PlanConfig(Section):
    """Plan mode (``/plan``, ``plan:``, ``ipuaro run --plan``): the one-JSON answer and the
    context the app fetches for it."""

    strict_json: bool = True
    """Send the plan's JSON schema as ``response_format`` (Ollama: ``format``); off: the schema
    is only written in the prompt and the reply is read best-effort."""
    max_context_rounds: int = Field(2, ge=0, le=5)
    """Rounds of the model's ``context_requests`` the app fulfils before the plan must stand."""
    max_blocks: int = Field(8, ge=1, le=64)
    """Most context blocks (files, searches, logs, env) sent in one round."""
    max_file_chars: int = Field(20_000, ge=1_000)
    """Longer files are cut to their head (60 %) and tail (40 %) with a marker."""
    max_total_chars: int = Field(120_000, ge=4_000)
    """All context blocks of one round together; searches and logs are dropped first."""
    traceback_lines: int = Field(80, ge=5, le=500)
    """Auto-context: lines shown before and after each traceback frame inside the project."""
    max_reply_tokens: int | None = Field(3072, ge=64)
    """Most tokens of one plan reply (a plan is one JSON object, shorter than an agent turn that
    writes a file); null: no cap."""


MCP_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${NAME}`` in an MCP server's ``env`` or ``headers`` value."""

MCP_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"
"""A server's name: it becomes part of tool names (``mcp__NAME__TOOL``), which models accept
only as letters, digits, ``_`` and ``-``."""


class IndexConfig(Section):
    language_servers: dict[str, str | bool] = Field(default_factory=dict)
    """Opt-in language servers for ``find_references`` / ``find_definition``, by language:
    ``{"python": "basedpyright-langserver --stdio"}``, or ``true`` for the known default command
    found on PATH or in ipuaro's own environment (python: basedpyright or pyright; typescript and
    javascript: typescript-language-server; go: gopls; rust: rust-analyzer). Started in the
    background once the session's index is in, for the languages the project has files of; the
    index answers while one starts and whenever it is missing, crashes or hangs. User config
    only: a project file cannot set it."""

    @field_validator("language_servers", mode="before")
    @classmethod
    def _commands(cls, value: Any) -> Any:
        if isinstance(value, dict):
            for language, command in value.items():
                if isinstance(command, bool):
                    continue
                if not isinstance(command, str) or not command.strip():
                    raise ValueError(
                        f"{language}: give the server's command as a string (such as "
                        f'"basedpyright-langserver --stdio") or true, got {command!r}'
                    )
        return value


class McpServerConfig(Section):
    """One MCP server: a command started over stdio, or a streamable HTTP URL."""

    command: str | None = None
    """Program to start (stdio transport), looked up on PATH: ``uvx``, ``npx``, ``python3``."""
    args: list[str] = Field(default_factory=list)
    """Arguments of ``command``."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment variables for the server, on top of a minimal base (HOME, PATH, LANG, USER,
    SHELL, TERM): nothing else of ipuaro's environment reaches it. ``${NAME}`` takes a value from
    ipuaro's environment — only a variable your own config names for this server: in a server
    a project declared or changed, any other ``${NAME}`` (and any secret-looking one) is empty."""
    cwd: str | None = None
    """Working directory of ``command``; relative to the project root; default the root."""
    url: str | None = None
    """Streamable HTTP endpoint (``http://127.0.0.1:8000/mcp``) instead of a command."""
    headers: dict[str, str] = Field(default_factory=dict)
    """HTTP headers sent with every request to ``url`` (``${NAME}`` expands as in ``env``)."""
    enabled: bool = True
    """False: declared but never started."""
    startup_timeout: float = Field(30.0, gt=0, le=600)
    """Seconds to start and answer the handshake and the tool list; past it the server is
    reported once and left out for the session."""
    timeout: float = Field(120.0, gt=0, le=3600)
    """Seconds one tool call or resource read may take; past it the server counts as hung: it
    is stopped, reported once, and its tools are withdrawn."""
    sandbox: bool | None = None
    """Run the server (stdio) in the kernel sandbox of ``sandbox.*``: the project writable, the
    rest read-only, secret locations unreadable, network only with ``sandbox.network``. Default:
    on for a server a project declares (a project file cannot turn it off), off for yours."""
    declared_in: Literal["user", "project"] = "user"
    """Set by the loader: ``project`` when ``.ipuaro.json`` declared or changed this server
    (it then starts only in a trusted project)."""

    _user_variables: frozenset[str] = PrivateAttr(default_factory=frozenset)

    @property
    def user_variables(self) -> frozenset[str]:
        """The ``${NAME}`` references the user's own layers (config file, variables, flags)
        wrote for this server: the only ones expanded once a project declared or changed it."""
        return self._user_variables

    def name_user_variables(self, names: frozenset[str]) -> None:
        self._user_variables = names

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if self.command is None and self.url is None:
            raise ValueError(
                'give either "command" (a program started over stdio) or "url" (a streamable '
                "HTTP endpoint)"
            )
        if self.command is not None and self.url is not None:
            raise ValueError('give "command" or "url", not both')
        if self.command is not None and not self.command.strip():
            raise ValueError('"command" is empty; name the program to start')
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f'"url" must start with http:// or https://, got {self.url!r}')
        return self


class McpConfig(Section):
    """MCP (Model Context Protocol) servers whose tools the model may call."""

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    """Servers by name (``git``, ``docs``); tools are offered as ``mcp__NAME__TOOL``. Started at
    the first request that needs tools."""
    max_tools: int = Field(16, ge=0, le=200)
    """Most MCP tools offered to the model one by one (small models get lost in long tool
    lists); the rest stay callable through the one ``mcp_call`` tool."""
    allow: list[str] = Field(default_factory=list)
    """Tools called without asking: ``mcp__git__git_status``, or a pattern ``mcp__time__*``.
    User config only (a project cannot allow its own tools)."""
    deny: list[str] = Field(default_factory=list)
    """Tools never called (not offered either); patterns as in ``allow``. Deny beats allow."""

    @field_validator("servers")
    @classmethod
    def _server_names(cls, servers: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in servers:
            if not re.match(MCP_NAME_PATTERN, name) or "__" in name:
                raise ValueError(
                    f"server name {name!r}: use 1-32 letters, digits, '_' or '-' (no '__'), "
                    "starting with a letter or digit"
                )
        return servers


class Config(Section):
    """The whole configuration. Layers: defaults < user < project < env < CLI."""

    redis: RedisConfig = Field(default_factory=RedisConfig)
    llm: LlmConfig = Field(default_factory=LlmConfig)
    project: ProjectConfig = Field(default_factory=ProjectConfig)
    session: SessionConfig = Field(default_factory=SessionConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    watchdog: WatchdogConfig = Field(default_factory=WatchdogConfig)
    commands: CommandsConfig = Field(default_factory=CommandsConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    undo: UndoConfig = Field(default_factory=UndoConfig)
    edit: EditConfig = Field(default_factory=EditConfig)
    verify: VerifyConfig = Field(default_factory=VerifyConfig)
    display: DisplayConfig = Field(default_factory=DisplayConfig)
    autocomplete: AutocompleteConfig = Field(default_factory=AutocompleteConfig)
    input: InputConfig = Field(default_factory=InputConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    store: StoreConfig = Field(default_factory=StoreConfig)
    whitelist: WhitelistConfig = Field(default_factory=WhitelistConfig)
    blacklist: BlacklistConfig = Field(default_factory=BlacklistConfig)
    extensions: ExtensionsConfig = Field(default_factory=ExtensionsConfig)
    plan: PlanConfig = Field(default_factory=PlanConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    index: IndexConfig = Field(default_factory=IndexConfig)

    _notices: list[str] = PrivateAttr(default_factory=list)

    @property
    def notices(self) -> list[str]:
        """What loading set aside, one line each (keys a project file may not set): shown when
        a session opens. Not a key: nothing in a file can write it."""
        return self._notices
