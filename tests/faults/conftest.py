"""The fixtures every fault test shares (a forking server, the seed, the long-run switch and
the tally printed at the end), defined in checks.py beside the helpers that use them."""

from checks import forker, long_run, seed, tally

__all__ = ["forker", "long_run", "seed", "tally"]
