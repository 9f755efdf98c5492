"""Plan-mode conversations recorded as golden traces (``scripts/record-golden`` writes them to
``tests/golden/plan/<name>.json``; ``tests/planning/test_planning_golden.py`` replays them)."""

from __future__ import annotations

import json
from typing import Any


def _text(document: Any, before: str = "", after: str = "") -> dict[str, Any]:
    return {"text": before + json.dumps(document, ensure_ascii=False, indent=1) + after}


CAP_PLAN: dict[str, Any] = {
    "mode": "fix-plan",
    "summary": "Lower the discount cap from 50 % to 40 %.",
    "questions": [],
    "context_requests": [],
    "plan": [
        {"step": "Change the constant", "details": "MAX_DISCOUNT_PERCENT = 40 in shop/pricing.py"},
        {"step": "Update the test", "details": "test_discount_is_capped expects 600"},
    ],
    "proposed_changes": {
        "actions": [
            {
                "kind": "UPDATE_FILE",
                "path": "shop/pricing.py",
                "content": '"""Pricing rules."""\n\nMAX_DISCOUNT_PERCENT = 40\n',
            }
        ],
        "commands_to_run": ["python -m unittest tests.cart_checks"],
    },
    "risks": ["tests/cart_checks.py asserts the old cap"],
    "memory_patch": {},
}

READ_PRICING = _text(
    {
        "mode": "fix-plan",
        "summary": "Need the pricing code first.",
        "context_requests": [{"type": "read_file", "path": "shop/pricing.py"}],
    }
)
"""An UPDATE_FILE is valid only for a file the model read (apply's checks run at parse time)."""

VALID = {
    "name": "plan_valid_ollama",
    "description": "A valid plan once the file is read, over Ollama (the schema sent as `format`).",
    "provider": "ollama",
    "request": "lower the discount cap to 40 %",
    "files": {},
    "replies": [READ_PRICING, _text(CAP_PLAN)],
}

LEGACY = {
    "name": "plan_legacy_actions_openai",
    "description": "The older shape (root `actions` + memory_patch) over the OpenAI protocol.",
    "provider": "openai",
    "request": "add a README for the shop package",
    "files": {},
    "replies": [
        _text(
            {
                "actions": [
                    {"kind": "CREATE_FILE", "path": "shop/README.md", "content": "# Shop\n"}
                ],
                "summary": "Add shop/README.md.",
                "memory_patch": {"user.preferred_style": "brief"},
            }
        )
    ],
}

REPAIR = {
    "name": "plan_repair_retry",
    "description": "Prose with a plan that breaks the schema, one repair quoting the error, fixed.",
    "provider": "openai",
    "request": "lower the discount cap to 40 %",
    "files": {},
    "replies": [
        READ_PRICING,
        _text(
            {"mode": "plan", "summary": "Lower the cap.", "questions": ["a?", "b?", "c?"]},
            before="Sure, here is my plan:\n```json\n",
            after="\n```\nTell me if that works.",
        ),
        _text(CAP_PLAN),
    ],
}

NO_CHANGES = {
    "name": "plan_no_changes",
    "description": "Nothing to change: a NO_CHANGES: summary with no actions.",
    "provider": "ollama",
    "request": "is the tax rounding already down?",
    "files": {},
    "replies": [
        _text(
            {
                "mode": "apply",
                "summary": "NO_CHANGES: tax() already rounds down with integer division.",
                "plan": [],
                "proposed_changes": {"actions": [], "commands_to_run": []},
                "risks": [],
            }
        )
    ],
}

TWO_ROUNDS = {
    "name": "plan_two_context_rounds",
    "description": "Round 1: a file and a search; round 2: a log and a long file (cut by the "
    "diet); then the plan.",
    "provider": "ollama",
    "request": "checkout sometimes charges the full price, see logs/app.log",
    "files": {
        "logs/app.log": "".join(f"12:00:{n:02d} checkout total={1000 + n}\n" for n in range(60)),
        "shop/big_rules.py": "".join(f"RULE_{n} = {n}  # padding line\n" for n in range(1200)),
    },
    "replies": [
        _text(
            {
                "mode": "fix-plan",
                "summary": "Need the pricing code first.",
                "context_requests": [
                    {
                        "type": "read_file",
                        "path": "shop/pricing.py",
                        "start_line": 1,
                        "end_line": 14,
                    },
                    {"type": "search", "query": "apply_discount", "glob": "shop/**"},
                ],
            }
        ),
        _text(
            {
                "mode": "fix-plan",
                "summary": "Need the log and the rules.",
                "context_requests": [
                    {"type": "logs", "source": "logs/app.log", "last_n": 5},
                    {"type": "read_file", "path": "shop/big_rules.py"},
                    {
                        "type": "read_file",
                        "path": "shop/pricing.py",
                        "start_line": 1,
                        "end_line": 14,
                    },
                ],
            }
        ),
        _text(CAP_PLAN),
    ],
}

INVALID_TWICE = {
    "name": "plan_invalid_twice",
    "description": "No JSON, then JSON that breaks the schema: a clear error, no plan kept.",
    "provider": "ollama",
    "request": "lower the discount cap to 40 %",
    "files": {},
    "replies": [
        {"text": "I would lower MAX_DISCOUNT_PERCENT to 40."},
        _text({"mode": "fix-plan", "summary": 7}),
    ],
}

PLAN_SCENARIOS: list[dict[str, Any]] = [VALID, LEGACY, REPAIR, NO_CHANGES, TWO_ROUNDS,
                                        INVALID_TWICE]  # fmt: skip
