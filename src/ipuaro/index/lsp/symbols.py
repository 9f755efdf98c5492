"""Questions by name, as the tools ask them, turned into questions by position.

A server answers about a place, not a name: ``find_references("Job.run")`` asks about the
place where the index says ``Job.run`` is declared, so uses of a same-named ``Task.run`` are
not in the answer (the index alone knows only the name). None means "ask the index": no
server for the file, a declaration the index does not hold, or a server that cannot answer.
"""

from __future__ import annotations

import re

from ipuaro.domain import SymbolDef
from ipuaro.index.lsp.manager import LanguageServers
from ipuaro.index.lsp.server import Location
from ipuaro.store.protocol import Store

MAX_DECLARATIONS = 8
"""A name declared in more places than this is asked of the index (one server question
each would make one tool call slow)."""


def declarations(store: Store, symbol: str) -> list[SymbolDef]:
    """The index's declarations of ``symbol`` (``Class.method`` keeps those in ``Class``)."""
    container, _, name = symbol.rpartition(".")
    found = store.find_definitions(name)
    if container:
        owner = container.rsplit(".", 1)[-1]
        found = [d for d in found if d.container == owner]
    return sorted(found, key=lambda d: (d.path, d.line))


def name_column(store: Store, path: str, line: int, name: str) -> int | None:
    """1-based column of ``name`` as a whole word on ``path:line``."""
    data = store.get_file(path)
    if data is None or not 1 <= line <= len(data.lines):
        return None
    match = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", data.lines[line - 1])
    return None if match is None else match.start() + 1


def server_references(servers: LanguageServers, store: Store, symbol: str) -> list[Location] | None:
    name = symbol.rsplit(".", 1)[-1]
    found = declarations(store, symbol)
    if not found or len(found) > MAX_DECLARATIONS:
        return None
    if any(servers.server_for(d.path) is None for d in found):
        return None
    places: dict[tuple[str, int, int], Location] = {}
    for declaration in found:
        column = name_column(store, declaration.path, declaration.line, name)
        if column is None:
            return None
        answer = servers.references(declaration.path, declaration.line, column, name)
        if answer is None:
            return None
        places.update(((loc.path, loc.line, loc.column), loc) for loc in answer)
    return [places[key] for key in sorted(places)]


MAX_USES_ASKED = 3
"""Uses of a name asked about for its definition (each is one server question)."""


def server_definition(servers: LanguageServers, store: Store, name: str) -> list[Location] | None:
    """Where ``name`` is defined, asked at the first places the index saw it used (a name
    the index declares nowhere: assigned at run time, imported under another name...); None
    when no server answers."""
    places: dict[tuple[str, int, int], Location] = {}
    asked = 0
    for use in store.find_references(name):
        if asked >= MAX_USES_ASKED:
            break
        if servers.server_for(use.path) is None:
            continue
        asked += 1
        answer = servers.definition(use.path, use.line, use.column, name)
        if answer is None:
            return None
        places.update(((loc.path, loc.line, loc.column), loc) for loc in answer)
    if not places:
        return None
    return [places[key] for key in sorted(places)]
