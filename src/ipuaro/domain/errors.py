"""The root of every exception ipuaro raises, and a map of the tree below it.

``except IpuaroError`` catches anything ipuaro itself raised and nothing else (not a bug in a
library, not ``KeyboardInterrupt``). The branches live beside the code that raises them; the
classes that also are a builtin (``ValueError``, ``LookupError``, ``OSError``...) stay one,
because callers catch the builtin. ``str(error)`` is a message for the user.

Main branches (``Class[builtin]  module``)::

    IpuaroError                                   domain/errors.py
    ├── ConfigError                               config/loader.py
    ├── StoreError                                store/protocol.py
    │   ├── StoreUnavailable
    │   ├── SchemaMismatch
    │   └── CorruptRecord
    ├── ModelError                                llm/errors.py
    │   └── ErrorAnswer                           llm/transport.py
    ├── ToolError                                 tools/base.py
    │   └── ToolRefused
    │       └── ToolAborted
    ├── WorkspaceError         what front ends catch: core/errors.py
    │   ├── OpenError
    │   ├── SessionMissing[LookupError]
    │   ├── IndexFailed
    │   ├── SessionsUnavailable
    │   └── WorkspaceBusy
    │
    │   refused input — a path, a text, an edit the user or the model asked for
    ├── PathRefused                               security/policy/paths.py
    │   └── ProtectedPath
    ├── ContentRefused                            security/policy/content.py
    ├── GitPlaceRefused                           security/git/git_place.py
    ├── RepoFileRefused[OSError]                  domain/repofiles.py
    ├── ShellSyntaxError[ValueError]              security/shell/shell_words.py
    ├── EditRefused                               edits/engine.py
    ├── TextRefused                               edits/text.py
    ├── LayoutRefused                             edits/layout.py
    ├── SymlinkRace[PermissionError]              edits/atomic.py
    ├── MatchError, LineEditError, SymbolEditError, MergeFailed, PlanError, TransactionFailed
    │                                             edits/{matching,lineedits,symbols,markers,
    │                                             planner,transaction}.py
    │
    │   unreadable files and replies — the message names the file or the reply
    ├── JsonlError[ValueError]                    agent/sessions/jsonl.py
    ├── SessionNotFound[LookupError]              agent/sessions/keeper.py
    ├── AgentBusy[RuntimeError]                   agent/run/loop.py
    ├── JsonRepairError[ValueError]               llm/jsonrepair.py
    ├── PlanInvalid, PlanFailed                   planning/actions.py, planning/cycle.py
    ├── PlanReplyError[ValueError], RecordUnreadable[ValueError]
    │                                             planning/parse.py, planning/record.py
    ├── CommandError[ValueError]                  core/commands.py
    ├── CommandFileError[ValueError], ScriptToolProblem[ValueError]
    │                                             extensions/commands.py, script_tools.py
    ├── ServerLost, ServerRefused                 extensions/mcp/connection.py
    ├── MemoryFileError, InvalidValue[ValueError] memory/files.py, memory/keys.py
    ├── UnsupportedLanguageError[ValueError]      index/parsers/__init__.py
    ├── UpdateFailed                              index/watcher.py
    ├── ServerFailed                              index/lsp/jsonrpc.py
    │   └── ServerTimeout
    ├── SearchTooSlow                             tools/builtin/grep_search.py
    ├── EditorFailed                              tui/editor.py
    │
    │   internal signals — caught where they are raised, never shown
    └── Stop, AbortRequested, _Cancelled (agent/run), RunawayCut (llm/streaming.py),
        Pending (index/pipeline/facts.py), _DuplicateKey (config/loader.py)

Outside the tree by necessity: ``LandlockError[OSError]`` (security/sandboxing/landlock.py) and the
supervisor's ``_Stop`` (security/sandboxing/supervisor.py). Both modules also run as scripts under
``python -I -S``, where ipuaro itself cannot be imported.
"""

from __future__ import annotations

__all__ = ["IpuaroError"]


class IpuaroError(Exception):
    """Base of every exception ipuaro raises (see the tree in this module's docstring)."""
