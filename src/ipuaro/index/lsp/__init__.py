"""Opt-in language servers as a precise backend for references and definitions.

``index.languageServers`` names a server per language (user config only). A server starts in
the background once the session's index is in (``LanguageServers.warm``, for the languages the
project has) or at the first question about a file of its language; until it is ready, and
whenever it is missing, crashes or hangs, callers get None and answer from the index. Answers
are cached in the store and dropped when a file they involve changes.

    LanguageServers(root, config.index.language_servers, store)   the project's servers
    LanguageServer                                                 one process, lazily started
    JsonRpcProcess                                                 JSON-RPC over stdio
"""

from __future__ import annotations

from ipuaro.index.lsp.manager import LanguageServers, resolve_command
from ipuaro.index.lsp.server import LanguageServer, Location

__all__ = ["LanguageServer", "LanguageServers", "Location", "resolve_command"]
