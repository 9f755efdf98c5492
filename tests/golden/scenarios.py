"""The conversations recorded as golden traces (``scripts/record-golden`` writes them to
``tests/golden/<name>.json``; ``tests/trace/test_trace_golden.py`` replays the files)."""

from __future__ import annotations

from typing import Any

EXPLAIN = {
    "name": "explain_native_ollama",
    "description": "Native tool calls over Ollama: structure, then a function, then the answer.",
    "provider": "ollama",
    "capabilities": ["completion", "tools"],
    "request": "explain how the cart total works",
    "autoApply": False,
    "replies": [
        {"tool_calls": [{"name": "get_structure", "arguments": {"path": "shop"}}]},
        {
            "tool_calls": [
                {"name": "get_function", "arguments": {"path": "shop/cart.py", "name": "total"}}
            ]
        },
        {"text": "Cart.total discounts the subtotal, then adds tax.", "chunks": 3},
    ],
}

REFACTOR = {
    "name": "refactor_openai_auto_apply",
    "description": "OpenAI protocol: read, replace (auto-applied), answer.",
    "provider": "openai",
    "capabilities": ["completion", "tools"],
    "request": "rename the capped percent variable in apply_discount to capped",
    "autoApply": True,
    "replies": [
        {
            "tool_calls": [
                {
                    "name": "get_function",
                    "arguments": {"path": "shop/pricing.py", "name": "apply_discount"},
                }
            ]
        },
        {
            "tool_calls": [
                {
                    "name": "replace",
                    "arguments": {
                        "path": "shop/pricing.py",
                        "old": (
                            "    percent = min(percent, MAX_DISCOUNT_PERCENT)\n"
                            "    return amount - amount * percent // 100"
                        ),
                        "new": (
                            "    capped = min(percent, MAX_DISCOUNT_PERCENT)\n"
                            "    return amount - amount * capped // 100"
                        ),
                    },
                }
            ],
            "tool_call_chunks": 3,
        },
        {"text": "Renamed it to `capped`."},
    ],
}

XML_TEXT = {
    "name": "xml_text_protocol",
    "description": "A model without native tools: XML calls in the text, results as observations.",
    "provider": "ollama",
    "capabilities": ["completion"],
    "request": "what does tax() do?",
    "autoApply": False,
    "replies": [
        {
            "text": (
                'Let me look.\n<tool_call name="get_function">\n'
                "<path>shop/pricing.py</path>\n<name>tax</name>\n</tool_call>"
            ),
            "chunks": 4,
        },
        {"text": "tax() returns 20 % of the amount, rounded down."},
    ],
}

BARE_JSON = {
    "name": "bare_json_with_native_on",
    "description": "Native tools offered, but the model writes a bare JSON call in its text.",
    "provider": "ollama",
    "capabilities": ["completion", "tools"],
    "request": "find where apply_discount is defined",
    "autoApply": False,
    "replies": [
        {"text": '{"name": "find_definition", "arguments": {"name": "apply_discount"}}'},
        {"text": "It is defined in shop/pricing.py."},
    ],
}

REPROMPT = {
    "name": "format_error_reprompt",
    "description": "An unreadable call is re-prompted with the error and the schema, then fixed.",
    "provider": "openai",
    "capabilities": ["completion", "tools"],
    "request": "read the top of shop/main.py",
    "autoApply": False,
    "replies": [
        {"text": '<tool_call>{"name": "get_lines", "arguments": {"path": </tool_call>'},
        {
            "tool_calls": [
                {"name": "get_lines", "arguments": {"path": "shop/main.py", "start": 1, "end": 6}}
            ]
        },
        {"text": "It imports Cart and defines checkout()."},
    ],
}

SCENARIOS: list[dict[str, Any]] = [EXPLAIN, REFACTOR, XML_TEXT, BARE_JSON, REPROMPT]
