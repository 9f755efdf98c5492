"""The inputs of the apply goldens: one per error code that a model's reply can reach, valid
plans (actions, patch, the index's "may break"), and NO_CHANGES. ``scripts/record-golden-apply``
records what the real parser and checks make of each into tests/golden/apply/NAME.json."""

from __future__ import annotations

from typing import Any

from tests.golden.apply.harness import reply

SHOP = {
    "src/pricing.py": (
        "def apply_discount(total, percent):\n    return total - total * percent // 100\n"
    ),
    "src/cart.py": (
        "from src.pricing import apply_discount\n\n\n"
        "def cart_total(items):\n    return apply_discount(sum(items), 10)\n"
    ),
    "src/checkout.py": (
        "from src.pricing import apply_discount\n\n\n"
        "def pay(total):\n    return apply_discount(total, 5)\n"
    ),
    "src/__init__.py": "",
    "README.md": "# shop\n",
    "docs/guide.md": "guide\n",
}


def plan(*actions: dict[str, Any], summary: str = "Change the shop", **extra: Any) -> str:
    changes: dict[str, Any] = {"actions": list(actions), "commands_to_run": []}
    changes.update(extra.pop("changes", {}))
    return reply(
        {
            "mode": "fix-plan",
            "summary": summary,
            "questions": [],
            "context_requests": [],
            "plan": extra.pop("steps", [{"step": "edit", "details": ""}]),
            "proposed_changes": changes,
            "risks": [],
            "memory_patch": {},
        }
    )


def case(name: str, description: str, reply_text: str, **inputs: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "files": inputs.get("files", SHOP),
        "symlinks": inputs.get("symlinks", {}),
        "read": inputs.get("read", []),
        "editedAfterRead": inputs.get("edited", {}),
        "reply": reply_text,
    }


RENAMED = SHOP["src/pricing.py"].replace("apply_discount", "apply_rebate")

CASES: list[dict[str, Any]] = [
    case(
        "valid_rename_may_break",
        "A rename in pricing.py only: valid, and the index lists the callers in two other files",
        plan(
            {"kind": "UPDATE_FILE", "path": "src/pricing.py", "content": RENAMED},
            {"kind": "CREATE_DIR", "path": "docs/api"},
            {"kind": "CREATE_FILE", "path": "docs/api/pricing.md", "content": "# Pricing\n"},
            {"kind": "DELETE_FILE", "path": "README.md"},
            summary="Rename `apply_discount` to `apply_rebate`; see `compute_loyalty()`",
        ),
        read=["src/pricing.py"],
    ),
    case(
        "valid_patch",
        "No actions, a unified diff with a wrong line number: placed by the replace matcher",
        plan(
            changes={
                "patch": "--- a/src/cart.py\n+++ b/src/cart.py\n@@ -9,2 +9,2 @@\n"
                " def cart_total(items):\n-    return apply_discount(sum(items), 10)\n"
                "+    return apply_discount(sum(items), 15)\n"
            }
        ),
        read=["src/cart.py"],
    ),
    case(
        "legacy_bare_array",
        "The older shape (a bare array of actions) goes through the same checks",
        reply([{"kind": "CREATE_FILE", "path": "NOTES.md", "content": "notes"}]),
    ),
    case(
        "no_changes",
        "NO_CHANGES: with no actions is valid and applies nothing",
        plan(summary="NO_CHANGES: the discount is already capped"),
    ),
    case(
        "err_empty_plan",
        "No actions, no patch, and no NO_CHANGES: marker",
        plan(summary="I looked around"),
    ),
    case("err_path_empty", "", plan({"kind": "CREATE_DIR", "path": ""})),
    case("err_path_absolute", "", plan({"kind": "DELETE_FILE", "path": "/etc/passwd"})),
    case("err_path_drive", "", plan({"kind": "CREATE_FILE", "path": "C:\\x.txt", "content": "x"})),
    case("err_path_unc", "", plan({"kind": "CREATE_FILE", "path": "//srv/s/x", "content": "x"})),
    case("err_path_home", "", plan({"kind": "CREATE_FILE", "path": "~/.bashrc", "content": "x"})),
    case(
        "err_path_dot_segment",
        "",
        plan({"kind": "CREATE_FILE", "path": "src/../../x.py", "content": "x"}),
    ),
    case(
        "err_path_too_long",
        "",
        plan({"kind": "CREATE_FILE", "path": "d/" + "n" * 239, "content": "x"}),
    ),
    case(
        "err_path_invalid",
        "",
        plan({"kind": "CREATE_FILE", "path": "src\\x.py", "content": "x"}),
    ),
    case(
        "err_path_outside",
        "A symlink inside the project leads out of it",
        plan({"kind": "CREATE_FILE", "path": "out/x.txt", "content": "x"}),
        symlinks={"out": "elsewhere"},
    ),
    case(
        "err_path_protected",
        "",
        plan(
            {"kind": "CREATE_FILE", "path": ".env", "content": "TOKEN=1\n"},
            {"kind": "UPDATE_FILE", "path": ".git/config", "content": "x"},
        ),
    ),
    case(
        "err_too_many_actions",
        "",
        plan(*({"kind": "CREATE_DIR", "path": f"d{i}"} for i in range(201))),
    ),
    case(
        "err_unknown_kind",
        "The schema refuses an unknown kind before the checks run",
        plan({"kind": "MOVE_FILE", "path": "a", "content": "b"}),
    ),
    case(
        "err_conflicting_actions",
        "",
        plan(
            {"kind": "CREATE_FILE", "path": "new.md", "content": "a"},
            {"kind": "UPDATE_FILE", "path": "new.md", "content": "b"},
            {"kind": "DELETE_DIR", "path": "docs"},
            {"kind": "CREATE_FILE", "path": "docs/more.md", "content": "c"},
        ),
    ),
    case(
        "err_content_missing",
        "The parser asks for content before the checks run",
        plan({"kind": "CREATE_FILE", "path": "new.md"}),
    ),
    case(
        "err_content_nul",
        "",
        plan({"kind": "CREATE_FILE", "path": "new.md", "content": "a\u0000b"}),
    ),
    case(
        "err_pseudo_binary",
        "",
        plan({"kind": "CREATE_FILE", "path": "new.md", "content": "\u0001\u0002\u0003abc"}),
    ),
    case(
        "err_not_utf8",
        "Deleting a binary file could not be undone",
        plan({"kind": "DELETE_FILE", "path": "logo.bin"}),
        files={**SHOP, "logo.bin": "hex:89504e470d0a1a0aff00"},
    ),
    case(
        "err_update_without_base",
        "",
        plan({"kind": "UPDATE_FILE", "path": "src/cart.py", "content": "x = 1\n"}),
    ),
    case(
        "err_stale_base",
        "The file changed on disk after the model read it",
        plan({"kind": "UPDATE_FILE", "path": "src/cart.py", "content": "x = 1\n"}),
        read=["src/cart.py"],
        edited={"src/cart.py": "# edited by hand\n"},
    ),
    case("err_target_missing", "", plan({"kind": "DELETE_FILE", "path": "src/gone.py"})),
    case(
        "err_create_exists",
        "",
        plan({"kind": "CREATE_FILE", "path": "README.md", "content": "# other\n"}),
    ),
    case("err_not_a_file", "", plan({"kind": "DELETE_FILE", "path": "docs"})),
    case("err_not_a_dir", "", plan({"kind": "DELETE_DIR", "path": "README.md"})),
    case("err_dir_not_empty", "", plan({"kind": "DELETE_DIR", "path": "docs"})),
    case(
        "err_patch_invalid",
        "",
        plan(changes={"patch": "change cart_total to use 15 percent"}),
    ),
    case(
        "err_patch_hunk",
        "",
        plan(
            changes={
                "patch": "--- a/src/cart.py\n+++ b/src/cart.py\n@@ -4,2 +4,2 @@\n"
                " def basket_total(items):\n-    return total(items)\n+    return total(items, 1)\n"
            }
        ),
        read=["src/cart.py"],
    ),
]
