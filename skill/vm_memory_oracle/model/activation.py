"""Activation as a pure function of time.

activation(t) = a0 * 0.5 ** ((t - last_accessed) / half_life_eff), with
half_life_eff = half_life_days / (1 - 0.5 * importance). Nothing is multiplied in place,
so computing it twice, or after a retried consolidation, gives the same number.
"""

from __future__ import annotations

from datetime import datetime

from ..clock import days_between
from .fact import Fact


def effective_half_life(half_life_days: float, importance: float) -> float:
    """Important facts fade slower: importance 1 doubles the half-life."""
    return half_life_days / (1.0 - 0.5 * min(max(importance, 0.0), 1.0))


def activation_at(
    a0: float,
    last_accessed: datetime,
    now: datetime,
    *,
    half_life_days: float,
    importance: float = 0.0,
    pinned: bool = False,
) -> float:
    if pinned:
        return a0
    elapsed = max(0.0, days_between(last_accessed, now))
    return a0 * 0.5 ** (elapsed / effective_half_life(half_life_days, importance))


def boosted(current: float, recall_boost: float) -> float:
    """The new a0 after a recall or a reassertion: current activation plus the boost, capped."""
    return min(1.0, current + recall_boost)


def fact_activation(
    fact: Fact, entry: dict | None, now: datetime, *, half_life_days: float
) -> float:
    """A fact's activation at `now` from its activation state `entry` (None: as created)."""
    from ..clock import parse_iso

    a0, last = (
        (entry["activation"], entry["last_accessed"])
        if entry is not None
        else (fact.activation, fact.created)
    )
    return activation_at(
        a0,
        parse_iso(last),
        now,
        half_life_days=half_life_days,
        importance=fact.importance or 0.0,
        pinned=fact.pinned,
    )
