"""``ipuaro inspect FILE``: what the index holds for one file, as JSON (concept field names)."""

from __future__ import annotations

import difflib
import json
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ipuaro.cli.common import fail, load_project

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.store.protocol import Store

EXIT_STORE = 1
MAX_SUGGESTIONS = 5


@click.command("inspect")
@click.argument("file")
@click.option(
    "--project",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Project folder (default: found from FILE, else the current folder).",
)
def command(file: str, project: Path | None) -> None:
    """Print the stored FileAST and FileMeta of FILE as JSON.

    FILE is a path on disk or a path relative to the project root.
    """
    from ipuaro.store.protocol import StoreError

    on_disk = Path(file).expanduser()
    if project is not None:
        root, config = load_project(project, None)
    else:
        root, config = load_project(_start_folder(on_disk), None)
        indexed = _indexed_ancestor(root, config)
        if indexed is not None and indexed != root:
            root, config = load_project(indexed, None)
        elif indexed is None and on_disk.is_absolute() and not on_disk.exists():
            fail(f"no such file: {file}")
    rel = _project_path(root, on_disk, file)
    try:
        store = _open_existing(root, config)
        try:
            document = _describe(store, rel)
        finally:
            store.close()
    except StoreError as error:
        fail(str(error), EXIT_STORE)
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))


def _start_folder(on_disk: Path) -> Path | None:
    if on_disk.exists():
        return on_disk if on_disk.is_dir() else on_disk.parent
    if on_disk.is_absolute():  # a deleted file: its project is found from the nearest folder
        existing = next((p for p in on_disk.parents if p.is_dir()), None)
        return existing if existing is not None and existing != Path(on_disk.anchor) else None
    return None


def _indexed_ancestor(root: Path, config: Config) -> Path | None:
    """The nearest folder at or above ``root`` with a default-named SQLite index: a project
    without ``.git`` or ``.ipuaro.json`` is still found from a file deep inside it."""
    from ipuaro.store.factory import sqlite_path

    if config.store.backend != "sqlite" or config.store.path is not None:
        return None
    for candidate in (root, *root.parents):
        if sqlite_path(config, candidate).exists():
            return candidate
    return None


def _project_path(root: Path, on_disk: Path, raw: str) -> str:
    candidate = on_disk if on_disk.is_absolute() else Path.cwd() / on_disk
    if candidate.exists():
        try:
            return candidate.resolve().relative_to(root).as_posix()
        except ValueError:
            fail(f"{raw} is outside the project {root}; pass --project to choose the project")
    if on_disk.is_absolute():
        try:  # gone from disk but maybe still indexed: the lookup suggests names
            return on_disk.relative_to(root).as_posix()
        except ValueError:
            fail(f"no such file: {raw}")
    normalised = posixpath.normpath(raw.replace("\\", "/"))
    if normalised.startswith(".."):
        fail(f"{raw} is outside the project {root}")
    return normalised


def _open_existing(root: Path, config: Config) -> Store:
    """Open the store without creating one: an unindexed project gets a hint instead."""
    from ipuaro.store.factory import open_store, sqlite_path

    hint = f"{root} is not indexed yet; run `ipuaro index {root}` first"
    if config.store.backend == "sqlite" and not sqlite_path(config, root).exists():
        fail(hint)
    store = open_store(config, root)
    if store.get_config("last_indexed") is None and not store.file_hashes():
        store.close()
        fail(hint)
    return store


def _describe(store: Store, rel: str) -> dict[str, Any]:
    data = store.get_file(rel)
    if data is None:
        fail(_not_found(rel, list(store.file_hashes())))
    ast = store.get_ast(rel)
    meta = store.get_meta(rel)
    return {
        "path": rel,
        "kind": data.kind,
        "hash": data.hash,
        "size": data.size,
        "lines": len(data.lines),
        "lastModified": data.last_modified,
        **({"target": data.target} if data.target is not None else {}),
        "ast": None if ast is None else ast.model_dump(mode="json", by_alias=True),
        "meta": None if meta is None else meta.model_dump(mode="json", by_alias=True),
    }


def _not_found(rel: str, stored: list[str]) -> str:
    """The message for an unknown path, with the closest stored paths by file name."""
    by_name: dict[str, list[str]] = {}
    for path in stored:
        by_name.setdefault(posixpath.basename(path), []).append(path)
    names = difflib.get_close_matches(posixpath.basename(rel), list(by_name), n=MAX_SUGGESTIONS)
    candidates = [path for name in names for path in sorted(by_name[name])]
    # Same name in several folders: the paths closest to what was typed come first.
    candidates.sort(key=lambda p: -difflib.SequenceMatcher(None, rel, p).ratio())
    if not candidates:
        candidates = difflib.get_close_matches(rel, stored, n=MAX_SUGGESTIONS, cutoff=0.4)
    message = f"{rel} is not in the index"
    if candidates:
        message += "; did you mean: " + ", ".join(candidates[:MAX_SUGGESTIONS]) + "?"
    else:
        message += " (run `ipuaro index` if it was created since)"
    return message
