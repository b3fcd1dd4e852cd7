"""Characters a stored memory must not hold.

Control characters (a newline splits a MEMORY.md line, an escape sequence repaints the
terminal of whoever reads it), bidirectional overrides and isolates (text displayed in an
order other than the one it is read in, the "Trojan Source" trick), and lone surrogates
(what a command line's invalid UTF-8 decodes to; they cannot be written as UTF-8).

The schemas' string patterns refuse them in facts given directly (the same class as
UNSAFE, checked by a test). Text read from a session log is the agent's transcript, not a
fact: it has them replaced by spaces before facts are extracted from it.
"""

from __future__ import annotations

import re

UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# What is said of a value holding one (the schemas' x-message says the same).
UNSAFE_FOUND = "contains a control character, a bidirectional control character or invalid UTF-8"
_KEPT = frozenset("\n\t")  # line and cell boundaries the extractor reads


def without_unsafe(text: str) -> str:
    """`text` with every unsafe character but newline and tab replaced by a space."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(lambda found: found.group() if found.group() in _KEPT else " ", text)
