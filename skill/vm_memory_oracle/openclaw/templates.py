"""The words OpenClaw itself writes into a new workspace's USER.md: its templates, as the
notes learner reads their lines (model/note_lines.py). They are OpenClaw's instructions to
the agent, never the owner's words, so a note's line that is one of them is not copied.

Taken from OpenClaw 2026.9.6 (`docs/reference/templates/USER.md` and `USER.dev.md`, whose
body OpenClaw writes into the workspace without its front matter); tests/test_workspace_notes.py
holds this list to the installed package's templates.
"""

from __future__ import annotations

TEMPLATE_LINES = (
    # USER.md
    "Store stable user preferences and profile facts as directives that can guide future sessions.",
    "Use one directive per entry:",
    "Prefer concise progress updates during implementation work.",
    "Begin each directive with an imperative such as `Always`, `Never`, or `Prefer`.",
    "Record the observation date and either `active` or `superseded` on the metadata line.",
    "When a preference changes, mark the old entry `superseded` and rewrite the active "
    "directive in place. Never append a contradictory active directive.",
    "Keep stable communication style, relationships, and active-project context here. Put "
    "durable non-profile facts and decisions in `MEMORY.md`.",
    "Save this file at the workspace root as `USER.md`. It loads every session with a "
    "separate 4,000-character budget.",
    "Replace the example below with a real directive and a real observation date before you "
    "save this file. Never leave a placeholder directive `active`.",
    "Prefer ...",
    "[Agent workspace](/concepts/agent-workspace)",
    # USER.dev.md, the profile `openclaw gateway --dev` seeds
    "This is the fixed profile that `openclaw gateway --dev` seeds for its own",
    "workspace, so it stays a plain label list. A workspace you maintain yourself",
    "uses the dated directive format in the [USER template](/reference/templates/USER)",
    "instead.",
    "**Name:** The Clawdributors",
    "**Preferred address:** They/Them (collective)",
    "**Timezone:** Distributed globally (falls back to host timezone; see "
    "[Timezones](/concepts/timezone))",
    "**Notes:**",
    "We are many. Contributors to OpenClaw, the harness C-3PO lives in.",
    "C-3PO exists to help debug and assist wherever possible.",
    "Working across time zones on making OpenClaw better.",
    "The creators. The builders. The ones who peer into the code.",
    "[USER template](/reference/templates/USER)",
    "[Timezones](/concepts/timezone)",
)


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


_KEYS = frozenset(map(_key, TEMPLATE_LINES))


def is_template_line(text: str) -> bool:
    """Whether a note's line (as note_lines reads it) is OpenClaw's template text."""
    return _key(text) in _KEYS
