"""view: the memory page written (view/)."""

from __future__ import annotations

from ..memory import Memory
from .context import Output


def action_view(args, memory: Memory) -> Output:
    page = memory.page(args.to)
    shown = args.to or memory.layout().relative(page.path)
    payload = {"path": str(page.path), "bytes": page.size, "facts": page.facts}
    return Output(
        payload,
        [
            f"Wrote {shown} ({page.size:,} bytes, {page.facts} fact(s)), readable by you "
            "alone; open it in a browser. It holds what the memory knows: keep it private.",
        ],
    )
