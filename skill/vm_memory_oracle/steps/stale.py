"""Step 5 of consolidation: stale references.

A fact that names files or directories (model/paths.py) is checked against them:
- every path it names is gone: stale, archived ("stale: every path it names is gone: ...");
  a pinned fact is kept and flagged instead, since the user put it in the vault;
- some are gone: partially stale, kept and flagged for the user to review (here and in
  health.json's stale_references);
- none is gone: fresh; it names no path, or none that may be checked: evergreen.
Superseded facts are left to prune, which archives them anyway.

A path is checked only when it lies in the data directory or under a root of
path_check_roots (default: the home directory of the user running the command). The
check is os.lstat on each component from that root down, never an open or a read, and
nothing is looked up elsewhere: a path outside every root, or one with a symbolic link on
the way (which could lead anywhere), or one lstat cannot answer (no permission), is left
unchecked, neither gone nor present. A missing component (ENOENT, ENOTDIR) makes it gone.
The stats are made without the lock; under it the facts are read again, and only a fact
that is still as it was checked is archived. A rerun finds the same, so the step converges.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..config import Settings
from ..graph import KnowledgeGraph
from ..model.archive import ArchiveCause
from ..model.fact import Fact
from ..model.paths import allowed_roots, covering_root, expanded, fact_references
from ..storage.layout import Layout
from .report import StepReport

GONE, PRESENT, UNCHECKED = "gone", "present", "unchecked"
EVERGREEN, FRESH, PARTIALLY_STALE, STALE = "evergreen", "fresh", "partially_stale", "stale"
_MISSING = (errno.ENOENT, errno.ENOTDIR)
REASON_PATHS_CHARS = 400  # archive_reason holds at most 512 characters


@dataclass(frozen=True)
class Verdict:
    """What became of the paths a fact names (as written in the fact)."""

    references: tuple[str, ...]
    gone: tuple[str, ...] = ()
    present: tuple[str, ...] = ()
    unchecked: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        if not self.gone and not self.present:
            return EVERGREEN
        if not self.gone:
            return FRESH
        if not self.present and not self.unchecked:
            return STALE
        return PARTIALLY_STALE


class ReferenceChecker:
    """Checks paths under the allowed roots, each path once."""

    def __init__(
        self,
        roots: list[str],
        home: str | None,
        lstat: Callable[[str], os.stat_result] | None = None,
    ):
        self.roots = roots
        self.home = home
        self._lstat = lstat or os.lstat
        self._known: dict[str, str] = {}
        self._root_there: dict[str, bool] = {}

    def verdict(self, fact: Fact) -> Verdict:
        references = tuple(fact_references(fact))
        found: dict[str, list[str]] = {GONE: [], PRESENT: [], UNCHECKED: []}
        for reference in references:
            found[self.state(reference)].append(reference)
        return Verdict(
            references, tuple(found[GONE]), tuple(found[PRESENT]), tuple(found[UNCHECKED])
        )

    def state(self, reference: str) -> str:
        path = expanded(reference, self.home)
        if path is None:
            return UNCHECKED
        if path not in self._known:
            root = covering_root(path, self.roots)
            self._known[path] = UNCHECKED if root is None else self._walk(path, root)
        return self._known[path]

    def _walk(self, path: str, root: str) -> str:
        """lstat each component from `root` (which the settings allow) down to `path`."""
        if root not in self._root_there:
            try:
                self._lstat(root)
                self._root_there[root] = True
            except OSError:
                self._root_there[root] = False
        if not self._root_there[root]:
            return UNCHECKED  # a root that is not there (not mounted) proves nothing
        parts = [part for part in path[len(root) :].split("/") if part]
        current = root
        for number, part in enumerate(parts, start=1):
            current = os.path.join(current, part)
            try:
                status = self._lstat(current)
            except OSError as exc:
                return GONE if exc.errno in _MISSING else UNCHECKED
            except ValueError:  # a NUL byte: no such name can exist, nor be asked about
                return UNCHECKED
            if number < len(parts) and stat.S_ISLNK(status.st_mode):
                return UNCHECKED  # a link on the way could lead out of the allowed roots
        return PRESENT


def home_directory() -> str | None:
    """The home of the user running the command ($HOME), or None when unknown."""
    home = os.path.expanduser("~")
    return os.path.normpath(home) if os.path.isabs(home) else None


def reference_checker(
    settings: Settings, layout: Layout, *, lstat: Callable[[str], os.stat_result] | None = None
) -> ReferenceChecker:
    home = home_directory()
    roots = allowed_roots(settings.path_check_roots, os.path.abspath(layout.root), home)
    return ReferenceChecker(roots, home, lstat)


@dataclass(frozen=True, slots=True)
class FlaggedReference:
    """An entry of health.json's stale_references: a current fact that names a path that
    is gone, with what became of every path it names."""

    fact: str
    verdict: Verdict

    def to_json(self) -> dict[str, object]:
        return {
            "fact": self.fact,
            "gone": list(self.verdict.gone),
            "present": list(self.verdict.present),
            "unchecked": list(self.verdict.unchecked),
        }


def flagged_references(facts: list[Fact], checker: ReferenceChecker) -> list[FlaggedReference]:
    """health.json's stale_references, by fact id."""
    found = []
    for fact in facts:
        if not fact.current:
            continue
        verdict = checker.verdict(fact)
        if verdict.gone:
            found.append(FlaggedReference(fact.id, verdict))
    return sorted(found, key=lambda entry: entry.fact)


def stale(
    graph: KnowledgeGraph, now: datetime, *, lstat: Callable[[str], os.stat_result] | None = None
) -> StepReport:
    """Archive the facts every path of which is gone; flag those with some gone."""
    checker = reference_checker(graph.settings, graph.layout, lstat=lstat)
    # Only the verdicts that can archive or flag a fact are kept; the others are counted
    # (a million facts' verdicts held 200 MB, nearly all of them of a fact naming no path).
    kinds: Counter[str] = Counter()
    verdicts: dict[str, Verdict] = {}
    for fact in graph.facts():
        if fact.current:
            verdict = checker.verdict(fact)
            kinds[verdict.kind] += 1
            if verdict.kind in (STALE, PARTIALLY_STALE):
                verdicts[fact.id] = verdict
    chosen: dict[str, ArchiveCause] = {}
    flagged: dict[str, str] = {}
    with graph.store.locked("consolidate: stale"):
        for fact in graph.facts():
            held = verdicts.get(fact.id)
            if held is None or not fact.current or tuple(fact_references(fact)) != held.references:
                continue  # superseded or changed since it was checked: the next run sees it
            if held.kind == PARTIALLY_STALE:
                flagged[fact.id] = partial_reason(held)
            elif fact.pinned:
                flagged[fact.id] = (
                    f"stale, kept because pinned: every path it names is gone: {_listed(held.gone)}"
                )
            else:
                chosen[fact.id] = ArchiveCause(
                    "stale", f"every path it names is gone: {_listed(held.gone)}"
                )
        if chosen:
            graph.archive(chosen, now, note=f"archived {len(chosen)} stale fact(s)")
    changes = sorted(
        [
            {"fact": fact_id, "change": "archived", "reason": cause.prose}
            for fact_id, cause in chosen.items()
        ]
        + [
            {"fact": fact_id, "change": "flagged", "reason": reason}
            for fact_id, reason in flagged.items()
        ],
        key=lambda change: change["fact"],
    )
    return StepReport(
        "stale",
        counts={
            "checked": kinds.total(),
            "evergreen": kinds[EVERGREEN],
            "fresh": kinds[FRESH],
            "partially_stale": kinds[PARTIALLY_STALE],
            "stale": kinds[STALE],
            "archived": len(chosen),
        },
        changes=changes,
    )


def partial_reason(verdict: Verdict) -> str:
    parts = [f"gone: {_listed(verdict.gone)}"]
    if verdict.present:
        parts.append(f"still there: {_listed(verdict.present)}")
    if verdict.unchecked:
        parts.append(f"not checked: {_listed(verdict.unchecked)}")
    return "partially stale: " + "; ".join(parts)


def _listed(paths: tuple[str, ...], budget: int = REASON_PATHS_CHARS // 2) -> str:
    """The paths, comma-separated, within about `budget` characters ("and N more")."""
    shown: list[str] = []
    used = 0
    for path in paths:
        if len(path) > budget:
            path = path[: budget - 1] + "…"
        if shown and used + len(path) > budget:
            break
        shown.append(path)
        used += len(path) + 2
    more = len(paths) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")
