"""The entrypoint's allocator setting: large blocks go back to the system when freed."""

from __future__ import annotations

import subprocess
import sys

import pytest

CHILD = """
import sys
sys.path.insert(0, {skill!r})
import numpy as np
from vm_memory_oracle.heap import return_large_blocks
fixed = return_large_blocks() if {fix} else True
def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) // 1024
keep = np.ones(1000)
before = rss()
for _ in range(3):  # each block made and freed: glibc raises its threshold after the first
    block = np.ones(16 << 20, dtype=np.uint8)
    small = [np.ones(64) for _ in range(100)]  # kept, above the freed block in the heap
    del block
print(fixed, rss() - before)
"""


def retained(fix: bool) -> tuple[bool, int]:
    from pathlib import Path

    skill = str(Path(__file__).resolve().parents[1] / "skill")
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(skill=skill, fix=fix)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    fixed, grown = done.stdout.split()
    return fixed == "True", int(grown)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_blocks_of_megabytes_leave_the_process():
    """Without the setting, glibc keeps a freed 16 MB block after the first in its heap;
    with it (the entrypoint sets it first), each is unmapped when freed."""
    fixed, grown = retained(fix=True)
    if not fixed:
        pytest.skip("the C library has no mallopt (not glibc)")
    _, grown_by_default = retained(fix=False)
    assert grown_by_default >= 12  # what the setting is for, on this C library
    assert grown < 4


REUSED = """
import resource, sys
sys.path.insert(0, {skill!r})
import numpy as np
from vm_memory_oracle.heap import return_large_blocks
fixed = return_large_blocks()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
arrays = lambda: [np.ones(100_000), np.ones(100_000), np.zeros(300_000, dtype=np.bool_)]
held = arrays()  # the first query's
del held
before = faults()
for _ in range(100):  # a query's arrays of one entry per fact (100,000 facts), made and freed
    held = arrays()
    del held
print(fixed, (faults() - before) / 100)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_a_querys_arrays_freed_are_reused_by_the_next_not_faulted_in_again():
    """Blocks under the mmap threshold come from the heap; freed at its top, they stay the
    process's for the next query, whose pages are then not faulted in again (with glibc's
    trim threshold at its 128 KB, each query faulted in its 475 pages anew)."""
    from pathlib import Path

    skill = str(Path(__file__).resolve().parents[1] / "skill")
    done = subprocess.run(
        [sys.executable, "-c", REUSED.format(skill=skill)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    fixed, per_query = done.stdout.split()
    if fixed != "True":
        pytest.skip("the C library has no mallopt (not glibc)")
    pages = (2 * 800_000 + 300_000) // 4096
    assert float(per_query) < pages / 10
