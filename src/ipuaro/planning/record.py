"""A :class:`~ipuaro.domain.plan.PlanRecord` as JSON, kept with its session in the store (so
``ipuaro run --apply`` in a later process finds it), and read back."""

from __future__ import annotations

from typing import Any

from ipuaro.domain.errors import IpuaroError
from ipuaro.domain.plan import PlanRecord
from ipuaro.planning.parse import plan_from_document, plan_to_document, validation_errors
from ipuaro.planning.schema import SCHEMA_HASH, SCHEMA_VERSION

RECORD_VERSION = 1


class RecordUnreadable(IpuaroError, ValueError):
    """A stored plan that no longer reads (an older schema, a damaged session)."""


def record_to_json(record: PlanRecord, **extra: Any) -> dict[str, Any]:
    return {
        "recordVersion": RECORD_VERSION,
        "schemaVersion": SCHEMA_VERSION,
        "schemaHash": SCHEMA_HASH,
        "request": record.request,
        "sessionId": record.session_id,
        "readFiles": dict(record.read_files),
        "plan": plan_to_document(record.plan),
        **extra,
    }


def record_from_json(data: Any) -> PlanRecord:
    if not isinstance(data, dict) or data.get("recordVersion") != RECORD_VERSION:
        raise RecordUnreadable("the stored plan has an unknown format; make a new plan")
    document = data.get("plan")
    errors = validation_errors(document)
    if errors:
        raise RecordUnreadable(f"the stored plan is not valid ({errors[0]}); make a new plan")
    assert isinstance(document, dict)
    return PlanRecord(
        plan=plan_from_document(document),
        request=str(data.get("request") or ""),
        session_id=str(data.get("sessionId") or ""),
        read_files={str(k): str(v) for k, v in (data.get("readFiles") or {}).items()},
    )
