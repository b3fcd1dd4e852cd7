"""How the process's large blocks of memory go back to the system (glibc's allocator).

glibc serves a block above its mmap threshold with a mapping of its own, unmapped when the
block is freed; but after each such block is freed it raises the threshold (up to 32 MB),
so the next ones come from its heap, and stay the process's when freed. A build that makes
and frees tens of MB at a time (a segment of episodes' vectors, a block of the embedding
cache) then grows with every one: a reindex of 89,549 episodes peaked at 367 MB and kept
300 MB; with the threshold fixed at 1 MB, 229 MB and 112 MB. Blocks under 1 MB (a query's
arrays) stay in the heap, as fast as before.

Fixing the threshold also fixes glibc's trim threshold at its default, 128 KB: freed memory
above that at the top of the heap went back to the system at once, and the next query
faulted its pages in again. A recall makes arrays of one entry per fact for each query (the
fused scores, which list found each fact, the word coverage): 100,000 facts, 200 queries
took 640 page faults a query more than one, about 1.6 ms of its 3.8. The top KEPT_FREE of
the heap is now kept for the next query (17 faults a query).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os

M_TRIM_THRESHOLD = -1  # mallopt's parameters (malloc.h)
M_MMAP_THRESHOLD = -3
THRESHOLD = 1 << 20
KEPT_FREE = 16 << 20


def return_large_blocks() -> bool:
    """Fix glibc's mmap threshold at THRESHOLD and its trim threshold at KEPT_FREE; False
    where the C library is another."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, KEPT_FREE))


MADV_DONTNEED = 4  # madvise's advice (linux/mman.h): drop these pages from the process


class MappedFile:
    """The pages of one file that the process maps (FAISS maps an index it reads with
    IO_FLAG_MMAP), and a way to let them go.

    A page of a mapped file that the process has read counts in its resident size until it
    is unmapped: 200 queries of an IVF index of a million vectors scan 30 of its 1,000
    lists each, and held most of its 2 GB. Dropped (madvise MADV_DONTNEED), a page leaves
    the process and stays in the kernel's page cache, shared and reclaimable, and the next
    read of it maps it again from there; the file is read only, so nothing is lost.

    The mappings are found in /proc/self/maps by the file's device and inode (taken before
    the file is mapped: a file replaced in between is simply not found, and nothing is
    released). Where there is no /proc or no madvise, release() does nothing."""

    def __init__(self, path) -> None:
        stat = os.stat(path)
        self.size = stat.st_size
        self._device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}"
        self._inode = str(stat.st_ino)
        self._ranges: list[tuple[int, int]] | None = None

    def ranges(self) -> list[tuple[int, int]]:
        """(start, end) of each mapping of the file in this process's address space."""
        if self._ranges:
            return self._ranges
        found = []
        try:
            with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
                for line in maps:
                    fields = line.split(maxsplit=5)
                    if len(fields) >= 5 and fields[4] == self._inode and fields[3] == self._device:
                        start, end = fields[0].split("-")
                        found.append((int(start, 16), int(end, 16)))
        except OSError:
            return []
        self._ranges = found
        return found

    def release(self) -> bool:
        """Drop the file's pages from the process; False where none could be."""
        madvise = _madvise()
        if madvise is None:
            return False
        released = False
        for start, end in self.ranges():
            released |= (
                madvise(ctypes.c_void_p(start), ctypes.c_size_t(end - start), MADV_DONTNEED) == 0
            )
        return released


@functools.cache
def _madvise():
    name = ctypes.util.find_library("c")
    try:
        function = ctypes.CDLL(name, use_errno=True).madvise if name else None
    except (OSError, AttributeError):
        return None
    if function is not None:
        function.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        function.restype = ctypes.c_int
    return function
