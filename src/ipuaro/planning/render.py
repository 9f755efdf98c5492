"""A plan as text for people: the answer drawn in the TUI, printed headless, sent over ACP."""

from __future__ import annotations

from ipuaro.domain.plan import Plan

KIND_MARKS = {
    "CREATE_DIR": "+dir",
    "CREATE_FILE": "+",
    "UPDATE_FILE": "~",
    "DELETE_FILE": "-",
    "DELETE_DIR": "-dir",
}


def action_lines(plan: Plan) -> list[str]:
    """``~ src/app.py (UPDATE_FILE, 12 lines)`` per proposed action."""
    lines = []
    for action in plan.proposed_changes.actions:
        size = ""
        if action.content is not None:
            count = len(action.content.splitlines())
            size = f", {count} line{'s' if count != 1 else ''}"
        lines.append(f"{KIND_MARKS[action.kind]} {action.path} ({action.kind}{size})")
    return lines


def plan_markdown(plan: Plan, *, apply_hint: bool = True) -> str:
    parts = [plan.summary.strip() or "(no summary)"]
    if plan.plan:
        steps = [
            f"{n}. **{s.step}**" + (f" — {s.details}" if s.details else "")
            for n, s in enumerate(plan.plan, start=1)
        ]
        parts.append("**Plan**\n" + "\n".join(steps))
    changes = action_lines(plan)
    if changes:
        parts.append("**Proposed changes**\n" + "\n".join(f"- `{line}`" for line in changes))
    elif plan.proposed_changes.patch:
        count = plan.proposed_changes.patch.count("\n+++ ")
        count += plan.proposed_changes.patch.startswith("+++ ")
        parts.append(f"**Proposed changes**\n- a unified diff ({max(count, 1)} file(s))")
    if plan.proposed_changes.commands_to_run:
        commands = "\n".join(f"- `{c}`" for c in plan.proposed_changes.commands_to_run)
        parts.append("**Then run**\n" + commands)
    if plan.risks:
        parts.append("**Risks**\n" + "\n".join(f"- {r}" for r in plan.risks))
    if plan.questions:
        parts.append("**Questions**\n" + "\n".join(f"- {q}" for q in plan.questions))
    if plan.context_requests:
        asked = ", ".join(r.path or r.query or r.source or r.kind for r in plan.context_requests)
        parts.append(f"_Still asking for context (no rounds left): {asked}_")
    if plan.memory_patch:
        keys = ", ".join(sorted(plan.memory_patch))
        parts.append(f"_Proposes to remember: {keys}_")
    if apply_hint and (plan.proposed_changes.actions or plan.proposed_changes.patch):
        parts.append("_Say **ok** (or /apply) to apply it, or tell me what to change._")
    return "\n\n".join(parts)
