"""Replay one apply golden: the project's files on disk, indexed by the real Indexer into a real
SQLite store; the model's raw reply read by the real plan parser (extract, normalise, schema);
the record as the plan flow stores it (``read_files`` = the files read while planning); then the
real apply checks (``planning.apply.prepare``: every error code, the patch, the index check).
The recording is what the user would be shown, or every error line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ipuaro.config.schema import Config
from ipuaro.domain.plan import PlanRecord
from ipuaro.index.pipeline.indexer import Indexer
from ipuaro.planning.actions import PlanInvalid, file_sha256
from ipuaro.planning.apply import prepare
from ipuaro.planning.parse import PlanReplyError, read_plan
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.store.sqlite import SqliteStore

APPLY_GOLDEN_DIR = Path(__file__).resolve().parent
APPLY_GOLDEN_VERSION = 1
INPUT_KEYS = ("name", "description", "files", "symlinks", "read", "editedAfterRead", "reply")


def play(case: dict[str, Any], workdir: Path) -> dict[str, Any]:
    """The recording, with the temporary folder written as ``<workdir>``."""
    recording = json.dumps(_play(case, workdir))
    for spelled in {str(workdir.resolve()), str(workdir)}:
        recording = recording.replace(json.dumps(spelled)[1:-1], "<workdir>")
    loaded: dict[str, Any] = json.loads(recording)
    return loaded


def _play(case: dict[str, Any], workdir: Path) -> dict[str, Any]:
    root = workdir / "project"
    root.mkdir()
    for rel, text in case["files"].items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("hex:"):
            target.write_bytes(bytes.fromhex(text[4:]))
        else:
            target.write_bytes(text.encode("utf-8"))
    for link, target in case["symlinks"].items():
        (workdir / target).mkdir(parents=True, exist_ok=True)
        (root / link).symlink_to(workdir / target)
    read = {rel: file_sha256((root / rel).read_bytes().decode("utf-8")) for rel in case["read"]}
    for rel, text in case["editedAfterRead"].items():
        (root / rel).write_bytes(text.encode("utf-8"))
    try:
        parsed = read_plan(case["reply"])
    except PlanReplyError as error:
        return {"stage": "parse", "error": str(error)}
    record = PlanRecord(parsed.plan, "golden", "golden", read)
    if parsed.plan.no_changes:
        return {"stage": "apply", "status": "no_changes", "summary": parsed.plan.summary}
    store = SqliteStore(workdir / "store.db", "golden-apply")
    try:
        Indexer(root, Config(), store).index()
        paths = PathPolicy(root, list(Config().project.protected_paths))
        try:
            prepared = prepare(record, paths, store)
        except PlanInvalid as invalid:
            return {
                "stage": "apply",
                "status": "invalid",
                "codes": invalid.codes,
                "messages": [error.message for error in invalid.errors],
            }
        return {
            "stage": "apply",
            "status": "valid",
            "changes": prepared.summary().splitlines(),
            "diff": prepared.diff.splitlines(),
            "risks": prepared.risks(),
            "notes": prepared.notes,
        }
    finally:
        store.close()


def golden_document(case: dict[str, Any], recording: dict[str, Any]) -> dict[str, Any]:
    return {
        "goldenVersion": APPLY_GOLDEN_VERSION,
        **{key: case[key] for key in INPUT_KEYS},
        "expected": recording,
    }


def case_of(document: dict[str, Any]) -> dict[str, Any]:
    return {key: document[key] for key in INPUT_KEYS}


def reply(document: dict[str, Any] | list[Any]) -> str:
    """A model's reply: the JSON in a fenced block after a line of prose, as small models do."""
    return "Here is the plan.\n```json\n" + json.dumps(document, indent=1) + "\n```\n"
