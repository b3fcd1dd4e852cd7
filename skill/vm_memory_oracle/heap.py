"""How the process's large blocks of memory go back to the system (glibc's allocator).

glibc serves a block above its mmap threshold with a mapping of its own, unmapped when the
block is freed; but after each such block is freed it raises the threshold (up to 32 MB),
so the next ones come from its heap, and stay the process's when freed. A build that makes
and frees tens of MB at a time (a segment of episodes' vectors, a block of the embedding
cache) then grows with every one: a reindex of 89,549 episodes peaked at 367 MB and kept
300 MB; with the threshold fixed at 1 MB, 229 MB and 112 MB. Blocks under 1 MB (a query's
arrays) stay in the heap, as fast as before.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
THRESHOLD = 1 << 20


def return_large_blocks() -> bool:
    """Fix glibc's mmap threshold at THRESHOLD; False where the C library is another."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD))
