"""First classification of an import by its specifier alone.

The analyzer later turns path aliases and workspace packages into ``internal`` using tsconfig and
package.json; here a specifier is internal only when it is relative.
"""

from __future__ import annotations

import sys
from typing import Final

from ipuaro.domain.files import ImportKind

# Node.js core modules importable without the `node:` prefix (Node 22). Modules that exist only
# with the prefix (node:test, node:sqlite, node:sea) are caught by the prefix rule.
NODE_BUILTINS: Final[frozenset[str]] = frozenset(
    {
        "assert",
        "async_hooks",
        "buffer",
        "child_process",
        "cluster",
        "console",
        "constants",
        "crypto",
        "dgram",
        "diagnostics_channel",
        "dns",
        "domain",
        "events",
        "fs",
        "http",
        "http2",
        "https",
        "inspector",
        "module",
        "net",
        "os",
        "path",
        "perf_hooks",
        "process",
        "punycode",
        "querystring",
        "readline",
        "repl",
        "stream",
        "string_decoder",
        "sys",
        "timers",
        "tls",
        "trace_events",
        "tty",
        "url",
        "util",
        "v8",
        "vm",
        "wasi",
        "worker_threads",
        "zlib",
    }
)

_PYTHON_STDLIB: Final[frozenset[str]] = frozenset(sys.stdlib_module_names)


def classify_js(specifier: str) -> ImportKind:
    """``./x``, ``../x``, ``/x`` -> internal; ``node:*`` and core modules (``fs/promises``
    too) -> builtin; anything else -> external."""
    if specifier.startswith((".", "/")):
        return "internal"
    if specifier.startswith("node:"):
        return "builtin"
    if specifier.split("/", 1)[0] in NODE_BUILTINS:
        return "builtin"
    return "external"


def classify_python(module: str) -> ImportKind:
    """Relative (``.x``, ``..``) -> internal; standard library top-level package -> builtin."""
    if module.startswith("."):
        return "internal"
    if module.split(".", 1)[0] in _PYTHON_STDLIB:
        return "builtin"
    return "external"
