"""The health checks behind ``ipuaro doctor`` (and the model-server check before the TUI starts).

Each check does the real thing (opens the database, pings Redis, builds each grammar, asks the
model server for its models) and returns a :class:`CheckResult` that says what to do when it fails.
Heavy libraries are imported inside the checks so ``ipuaro --version`` never pays for them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ipuaro.config.schema import Config

MODEL_SERVER_TIMEOUT = 3.0
"""Seconds to wait for the model server; a local server answers /api/tags in milliseconds."""

DEFAULT_BASE_URLS = {"ollama": "http://localhost:11434", "openai": "http://localhost:8080/v1"}


def grammars() -> tuple[tuple[str, str, str, str], ...]:
    """(language, module, function returning the language pointer, pip package) for every
    grammar the index loads, one row per distinct grammar (``jsx`` is read by ``javascript``).
    Read when the doctor runs: the language table lives below the parsers' package."""
    from ipuaro.index.parsers._languages import LANGUAGES

    rows: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    for name, spec in LANGUAGES.items():
        rows.setdefault(
            (spec.module, spec.function), (name, spec.module, spec.function, spec.package)
        )
    return tuple(rows.values())


@dataclass(frozen=True)
class CheckResult:
    """One line of the doctor's report."""

    name: str
    ok: bool
    detail: str
    fix: str | None = None

    def line(self) -> str:
        mark = "✓" if self.ok else "✗"
        text = f"{mark} {self.name}: {self.detail}"
        return f"{text} — fix: {self.fix}" if self.fix and not self.ok else text


def check_python(minimum: tuple[int, int] = (3, 11)) -> CheckResult:
    version = ".".join(str(part) for part in sys.version_info[:3])
    if sys.version_info[:2] >= minimum:
        return CheckResult("python", True, version)
    wanted = ".".join(str(part) for part in minimum)
    return CheckResult(
        "python", False, f"{version} is too old", f"install Python ≥ {wanted} and reinstall ipuaro"
    )


# --- language servers --------------------------------------------------------------------------


def check_language_servers(config: Config) -> list[CheckResult]:
    """One line per configured language server (found: where, and its version; not found:
    the command that installs it); one line when ``index.languageServers`` is not set."""
    from ipuaro.index.lsp.probe import check_language_servers as probe

    configured = config.index.language_servers
    if not configured:
        return [
            CheckResult(
                "language servers",
                True,
                "none configured (optional: index.languageServers, see docs/language-servers.md)",
            )
        ]
    return [
        CheckResult(f"language server {check.language}", check.ok, check.detail, check.fix)
        for check in probe(configured)
    ]


# --- store -----------------------------------------------------------------------------------


def sqlite_path(root: Path, config: Config) -> Path:
    """The database file the SQLite backend uses for this project (the store's own rule)."""
    from ipuaro.store.factory import sqlite_path as store_sqlite_path

    return store_sqlite_path(config, root)


def check_store(root: Path, config: Config) -> CheckResult:
    if config.store.backend == "redis":
        return check_redis(config)
    return check_sqlite(sqlite_path(root, config))


def check_sqlite(path: Path) -> CheckResult:
    name = "store"
    if path.exists():
        if path.is_dir():
            return CheckResult(name, False, f"SQLite path {path} is a directory", _store_fix())
        if not os.access(path, os.R_OK | os.W_OK):
            return CheckResult(
                name, False, f"SQLite file {path} is not writable", f"chmod u+rw {path}"
            )
        import sqlite3
        from contextlib import closing

        try:
            # Read the header through a read-write connection: proves both access and format.
            with closing(sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=2)) as conn:
                conn.execute("PRAGMA schema_version").fetchone()
        except sqlite3.Error as error:
            # Locked or unreadable: the place is wrong. Anything else: the file is damaged or
            # not ours, and the index (rebuilt from the code) is what the user wants back.
            from ipuaro.store.sqlite_repair import REPAIR_HINT

            fix = (
                _store_fix()
                if isinstance(error, sqlite3.OperationalError)
                else f"{REPAIR_HINT}; or set store.path elsewhere if the file is yours"
            )
            return CheckResult(name, False, f"SQLite file {path} cannot be opened ({error})", fix)
        from ipuaro.store.sqlite_repair import REPAIR_HINT, check_integrity

        integrity = check_integrity(path)
        if integrity.damaged:
            more = f" (+{len(integrity.problems) - 1} more)" if len(integrity.problems) > 1 else ""
            return CheckResult(
                name,
                False,
                f"SQLite file {path} is damaged: {integrity.problems[0]}{more}",
                REPAIR_HINT,
            )
        from ipuaro.store.sqlite_damage import damaged_sessions_in

        # quick_check proves the pages sound, not that each session in them still decodes.
        bad = damaged_sessions_in(path)
        if bad:
            names = ", ".join(b.session_id for b in bad[:5]) + (" …" if len(bad) > 5 else "")
            return CheckResult(
                name,
                False,
                f"SQLite file {path}: {len(bad)} damaged session(s): {names} "
                f"({bad[0].problem}); the others are readable",
                f"`ipuaro sessions delete ID` removes one, or {REPAIR_HINT}",
            )
        checked = "integrity checked" if integrity.finished else "integrity check cut short"
        return CheckResult(name, True, f"SQLite {path} (writable, {checked})")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.is_dir() and os.access(ancestor, os.W_OK | os.X_OK):
        return CheckResult(name, True, f"SQLite {path} (will be created on first index)")
    return CheckResult(
        name, False, f"cannot create {path}: {ancestor} is not a writable directory", _store_fix()
    )


def _store_fix() -> str:
    return "set IPUARO_DATA_DIR to a writable directory, or store.path in .ipuaro.json"


def check_redis(config: Config) -> CheckResult:
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    settings = config.redis
    where = f"{settings.host}:{settings.port}/{settings.db}"
    client = redis.Redis(
        host=settings.host,
        port=settings.port,
        db=settings.db,
        password=settings.password,
        socket_connect_timeout=2,
        socket_timeout=2,
        decode_responses=True,
        retry=Retry(NoBackoff(), 0),  # a health check answers once; no backoff loop
    )
    try:
        client.ping()
        appendonly = client.config_get("appendonly").get("appendonly")
    except redis.ResponseError as error:
        return CheckResult(
            "store",
            False,
            f"Redis at {where} answered with an error: {error}",
            "check redis.password and that CONFIG GET is allowed for this user",
        )
    except redis.RedisError as error:
        return CheckResult(
            "store",
            False,
            f"cannot reach Redis at {where} ({error})",
            "start it with `redis-server --appendonly yes --appendfsync everysec`, "
            "or set store.backend=sqlite",
        )
    finally:
        client.close()
    if appendonly != "yes":
        return CheckResult(
            "store",
            False,
            f"Redis at {where} is reachable but AOF is off (appendonly={appendonly!r})",
            "run `redis-cli CONFIG SET appendonly yes` (and `appendfsync everysec`), "
            "or set redis.enforceAof=true",
        )
    return CheckResult("store", True, f"Redis at {where} (AOF on)")


# --- grammars --------------------------------------------------------------------------------


def check_grammars() -> list[CheckResult]:
    """Build every grammar with the installed tree-sitter: catches missing wheels and ABI skew."""
    results = []
    try:
        from ipuaro.index.parsers._languages import LANGUAGES, load_language
    except ImportError as error:
        fix = "pip install tree-sitter"
        return [CheckResult(f"grammar {lang}", False, str(error), fix) for lang, *_ in grammars()]
    for language, module_name, _function, package in grammars():
        name = f"grammar {language}"
        try:
            load_language(LANGUAGES[language])  # the index's own loader, version shims included
        except ImportError:
            results.append(
                CheckResult(
                    name, False, f"{module_name} is not installed", f"pip install {package}"
                )
            )
        except Exception as error:  # ABI mismatch surfaces as ValueError/TypeError
            results.append(
                CheckResult(
                    name,
                    False,
                    f"{module_name} does not load: {error}",
                    f"pip install -U {package}",
                )
            )
        else:
            results.append(CheckResult(name, True, f"{module_name} loads"))
    return results


# --- model server ----------------------------------------------------------------------------


def base_url(config: Config) -> str:
    return (config.llm.base_url or DEFAULT_BASE_URLS[config.llm.provider]).rstrip("/")


def how_to_start_model_server(config: Config) -> str:
    """The advice printed whenever no model server answers (doctor and the TUI launcher)."""
    from ipuaro.core.server_advice import start_advice

    return start_advice(config.llm)


def check_model_server(
    config: Config, *, ask_window: bool = False
) -> tuple[CheckResult, CheckResult]:
    """Ask the server for its models; returns (server reachable, configured model present).
    ``ask_window`` (doctor): also the context window a session would get, and why."""
    from ipuaro.llm.http_client import tls_context
    from ipuaro.llm.lean_httpx import httpx  # without httpx's CLI: this runs at every TUI start

    provider = config.llm.provider
    base = base_url(config)
    url = f"{base}/api/tags" if provider == "ollama" else f"{base}/models"
    headers = {}
    api_key = os.environ.get(config.llm.api_key_env) if provider == "openai" else None
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    model = config.llm.model
    skipped = CheckResult("model", False, f"{model}: not checked (no model server)")
    try:
        # no CA bundle for a plain-http server (~55 ms): see tls_context
        response = httpx.get(
            url, headers=headers, timeout=MODEL_SERVER_TIMEOUT, verify=tls_context(url)
        )
    except httpx.HTTPError as error:
        reason = str(error) or type(error).__name__
        unreachable = CheckResult(
            "model server",
            False,
            f"cannot reach {provider} at {base} ({reason})",
            how_to_start_model_server(config),
        )
        return unreachable, skipped
    if response.status_code != 200:
        fix = (
            f"set {config.llm.api_key_env} to a valid API key"
            if response.status_code in (401, 403)
            else f"check llm.baseUrl ({base}) points at a {provider} server"
        )
        bad = CheckResult(
            "model server", False, f"GET {url} answered HTTP {response.status_code}", fix
        )
        return bad, skipped
    try:
        names = _model_names(provider, response.json())
    except (ValueError, TypeError, KeyError, AttributeError):
        bad = CheckResult(
            "model server",
            False,
            f"GET {url} did not return the {provider} model list",
            f"check llm.baseUrl ({base}) and llm.provider ({provider})",
        )
        return bad, skipped
    server = CheckResult("model server", True, f"{provider} at {base} ({len(names)} models)")
    window = config.llm.context_window
    window_text = f"context window {window}" if window else "context window from the server"
    if ask_window:
        window_text = session_window(config) or window_text
    if _has_model(model, names):
        return server, CheckResult("model", True, f"{model} is available ({window_text})")
    if provider == "ollama":
        fix = (
            f"run `ollama pull {model}`, or pick one of the server's models with --model NAME "
            "(llm.model)"
        )
    else:
        shown = ", ".join(sorted(names)[:8]) or "none"
        fix = f"load {model} in the server, or pick one with --model NAME (llm.model): {shown}"
    return server, CheckResult("model", False, f"{model} is not on the server", fix)


def session_window(config: Config) -> str | None:
    """``context window 4,096 tokens (server)``: what a session would run with, asked as the
    session asks (llm/served.py, llm/window.py); None when the server cannot say."""
    import asyncio

    from ipuaro.llm.errors import ModelError
    from ipuaro.llm.factory import create_client

    async def ask() -> str:
        client = create_client(config.llm)
        try:
            window = await client.context_window()
        finally:
            await client.aclose()
        note = f"; {window.warning}" if window.warning else ""
        return f"context window {window.tokens:,} tokens ({window.source}){note}"

    try:
        return asyncio.run(ask())
    except (ModelError, OSError, RuntimeError):
        return None


def _model_names(provider: str, payload: Any) -> set[str]:
    if provider == "ollama":
        entries = payload["models"]
        return {entry.get("name") or entry["model"] for entry in entries}
    return {entry["id"] for entry in payload["data"]}


def _has_model(model: str, names: set[str]) -> bool:
    # Ollama reports "llama3:latest" for a model pulled as "llama3".
    return model in names or (":" not in model and f"{model}:latest" in names)


@dataclass(frozen=True)
class Onboarding:
    """What a front end checks before it opens a workspace: the store, the model server, the
    model (the same checks as ``ipuaro doctor``)."""

    results: list[CheckResult] = field(default_factory=list)
    server_down: bool = False
    can_pull: bool = False
    """The Ollama server answers but lacks the model: a front end may offer to pull it."""

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.results)


def onboarding_checks(root: Path, config: Config) -> Onboarding:
    """Store, model server, model (blocking: run it in a thread)."""
    store = check_store(root, config)
    server, model = check_model_server(config)
    if server.ok and not model.ok and config.llm.provider == "openai":
        # An OpenAI-compatible server may serve a name it does not list (llama.cpp answers
        # with its one model whatever the name): `ipuaro run` goes ahead, so a front end does
        # too; a server that refuses the name says so at the first request.
        model = CheckResult("model", True, f"{model.detail}; trying it anyway — {model.fix}")
    results = [store, server] if not server.ok else [store, server, model]
    return Onboarding(
        results,
        server_down=not server.ok,
        can_pull=server.ok and not model.ok and config.llm.provider == "ollama",
    )


async def model_server_reachable(config: Config) -> bool:
    """Whether the configured model server answers at all (before opening a workspace)."""
    from ipuaro.llm.factory import create_client

    probe = create_client(config.llm)
    try:
        return await probe.is_available()
    finally:
        await probe.aclose()


async def pull_model(config: Config, progress: Callable[[str, float | None], None]) -> None:
    """Have the Ollama server download ``llm.model``; ``progress(status, fraction)`` as it
    goes. Raises ``WorkspaceError`` with the server's message when the pull fails."""
    from ipuaro.core.errors import WorkspaceError
    from ipuaro.llm.errors import ModelError
    from ipuaro.llm.factory import create_client

    client = create_client(config.llm)
    try:
        await client.pull(lambda update: progress(update.status, update.fraction))
    except ModelError as error:
        raise WorkspaceError(error.message) from None
    finally:
        await client.aclose()


# --- sandbox ---------------------------------------------------------------------------------


def check_sandbox(root: Path, config: Config) -> CheckResult:
    """The sandbox engine and profile; where there is an engine, a real confined command must
    fail to write next to the project (a probe in a temp folder, not the project itself)."""
    import subprocess
    import tempfile

    from ipuaro.security.sandboxing.sandbox import SandboxProfile, engine

    profile = SandboxProfile.for_project(root, config.sandbox)
    if profile.name == "off":
        return CheckResult("sandbox", True, "off — commands can write anywhere you can (config)")
    found = engine()
    if found is None:
        return CheckResult(
            "sandbox",
            True,
            f"{profile.name}: no engine (this kernel has no Landlock), so every command that "
            "may write is asked about",
        )
    with tempfile.TemporaryDirectory(prefix="ipuaro-doctor-") as scratch:
        project = Path(scratch, "project")
        project.mkdir()
        outside = Path(scratch, "outside.txt")
        probe = SandboxProfile.for_project(project, config.sandbox)
        argv = probe.wrap(["/bin/sh", "-c", f"echo x > '{outside}'; echo y > inside.txt"])
        try:
            subprocess.run(argv, cwd=project, capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired) as error:
            return CheckResult("sandbox", False, f"the probe did not run ({error})",
                               "report this with the output of `uname -r`")  # fmt: skip
        confined = not outside.exists() and (project / "inside.txt").exists()
    if not confined:
        return CheckResult(
            "sandbox",
            False,
            f"{found} is present but a probe command was not confined as expected",
            "set sandbox.profile to off only if you accept unconfined commands; report it",
        )
    network = "network on" if profile.network else "network off unless a command asks"
    return CheckResult("sandbox", True, f"{profile.name} via {found}, {network}")


def sandbox_label(config: Config) -> str:
    """The status bar's word for the command sandbox (its profile, or a warning when commands
    run unconfined)."""
    from ipuaro.security.sandboxing.sandbox import status_label

    return status_label(config.sandbox.profile)
