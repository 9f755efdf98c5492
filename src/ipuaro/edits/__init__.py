"""The edit engine: every change — an edit tool's or a plan's — is a ``changeset`` that goes
validate → diff → confirm → stale check → undo entry → atomic write → re-index (``engine``);
undo/redo persisted in the store (``undo``); all-or-nothing groups (``transaction``);
``replace`` matching (``matching``); marker merging for ``edit_file`` (``markers``); the
edit-file sub-agent (``planner``).

Names are re-exported lazily (PEP 562): a start builds the edit planner (``edits.planner``)
without loading the engine, the matcher and the marker merger, which the first edit loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro._lazy import lazy_exports

if TYPE_CHECKING:
    from ipuaro.edits.changeset import Changeset
    from ipuaro.edits.engine import EditEngine, EditRefused, EditResult
    from ipuaro.edits.lineedits import LineEditError, apply_line_edits, rebase_range
    from ipuaro.edits.markers import MergeFailed, merge_markers
    from ipuaro.edits.matching import MatchError, ReplaceResult, find_and_replace
    from ipuaro.edits.planner import LlmEditPlanner, PlanError, parse_plan
    from ipuaro.edits.transaction import FileWrite, TransactionFailed, write_all
    from ipuaro.edits.undo import UndoManager, UndoOutcome

__all__ = [
    "Changeset",
    "EditEngine",
    "EditRefused",
    "EditResult",
    "FileWrite",
    "LineEditError",
    "LlmEditPlanner",
    "MatchError",
    "MergeFailed",
    "PlanError",
    "ReplaceResult",
    "TransactionFailed",
    "UndoManager",
    "UndoOutcome",
    "apply_line_edits",
    "find_and_replace",
    "merge_markers",
    "parse_plan",
    "rebase_range",
    "write_all",
]

_MODULES = {
    "Changeset": "changeset",
    "EditEngine": "engine",
    "EditRefused": "engine",
    "EditResult": "engine",
    "FileWrite": "transaction",
    "LineEditError": "lineedits",
    "LlmEditPlanner": "planner",
    "MatchError": "matching",
    "MergeFailed": "markers",
    "PlanError": "planner",
    "ReplaceResult": "matching",
    "TransactionFailed": "transaction",
    "UndoManager": "undo",
    "UndoOutcome": "undo",
    "apply_line_edits": "lineedits",
    "find_and_replace": "matching",
    "merge_markers": "markers",
    "parse_plan": "planner",
    "rebase_range": "lineedits",
    "write_all": "transaction",
}


__getattr__ = lazy_exports(__name__, _MODULES)
