"""Whether a neighbour in the vector index is related to a query at all, decided with margin.

A raw cosine cannot say it: multilingual-e5 puts every pair of texts between about 0.70
and 0.90, unrelated ones included, and where a query lands in that band depends on the
query (Chinese queries and short ones score higher against everything). So a neighbour's
similarity is read against the same query's similarity to a background of ordinary,
unrelated memory passages shipped with the package (background/passages.txt):

1. Both sides are centred on the background's mean passage and mean query vector: the
   direction every e5 vector shares is taken out, and what is left measures the topic.
2. The centred similarity becomes a z-score against the query's centred similarities to
   the background passages written in the neighbour's script (CJK or not), since a query
   scores higher against texts in its own language whatever they say.
3. A neighbour that shares no word with the query is related when its z-score reaches
   the model's scale for a memory of that size: the best of N unrelated facts rises with
   log N (their similarities have an exponential upper tail), so a larger memory needs a
   higher score (benchmarks/relevance.py measures both sides).

The background's vectors are computed once per model: for the bundled model they ship
beside the passages (background/<model id>.npz, made by benchmarks/relevance.py --write);
for another model they are computed on first use and cached with its other embeddings.
"""

from __future__ import annotations

import hashlib
import io
import math
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..storage import derived

BACKGROUND_DIR = Path(__file__).resolve().parent / "background"
PASSAGES = BACKGROUND_DIR / "passages.txt"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
SCRIPTS = ("cjk", "other")


@dataclass(frozen=True)
class RelevanceScale:
    """Two levels of a model's calibrated score. A neighbour sharing no word with the query
    reaching `threshold(facts)` shows on its own that the query concerns the memory: no
    unrelated fact reaches base + per_log_fact * ln(facts searched). Once something does, a
    neighbour sharing no word is kept when it reaches `everyday`, the level most facts
    related to a question reach."""

    base: float
    per_log_fact: float
    everyday: float

    floor: float = 0.0

    def threshold(self, facts: int) -> float:
        return max(self.floor, self.base + self.per_log_fact * math.log(max(facts, 2)))

    def halfway(self, facts: int) -> float:
        """Halfway from `everyday` to `threshold(facts)`: the bar for two pieces of evidence
        each short of its own (a shared word and meaning), or for a turn by meaning alone."""
        return (self.everyday + self.threshold(facts)) / 2


def script_of(text: str) -> str:
    """ "cjk" when at least a third of the text's letters are CJK, else "other"."""
    letters = [char for char in text if char.isalnum()]
    if not letters:
        return "other"
    cjk = sum(1 for char in letters if _CJK.match(char))
    return "cjk" if 3 * cjk >= len(letters) else "other"


def background_passages() -> list[str]:
    return [
        line.strip()
        for line in PASSAGES.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]


def passages_digest(passages: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(passages).encode("utf-8")).hexdigest()[:16]


class Background:
    """A model's view of the background passages: the mean passage and query vectors, and
    the centred passage vectors of each script, normalised."""

    def __init__(
        self,
        model_id: str,
        digest: str,
        passage_mean: np.ndarray,
        query_mean: np.ndarray,
        groups: dict[str, np.ndarray],
    ):
        self.model_id = model_id
        self.digest = digest
        self.passage_mean = np.asarray(passage_mean, dtype=np.float32)
        self.query_mean = np.asarray(query_mean, dtype=np.float32)
        self.groups = {
            name: _unit_rows(np.asarray(vectors, dtype=np.float32))
            for name, vectors in groups.items()
        }

    @classmethod
    def compute(cls, embedder) -> Background:
        passages = background_passages()
        vectors = np.asarray(embedder.embed_passages(passages), dtype=np.float32)
        queries = np.asarray(embedder.embed_queries(passages), dtype=np.float32)
        passage_mean, query_mean = vectors.mean(axis=0), queries.mean(axis=0)
        scripts = np.array([script_of(text) for text in passages])
        groups = {name: _unit_rows(vectors[scripts == name] - passage_mean) for name in SCRIPTS}
        return cls(embedder.model_id, passages_digest(passages), passage_mean, query_mean, groups)

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        groups: dict = {f"group_{name}": self.groups[name].astype(np.float16) for name in SCRIPTS}
        np.savez_compressed(
            buffer,
            model_id=np.array(self.model_id),
            digest=np.array(self.digest),
            passage_mean=self.passage_mean,
            query_mean=self.query_mean,
            **groups,
        )
        return buffer.getvalue()

    @classmethod
    def from_file(cls, path: Path, model_id: str, dimension: int) -> Background | None:
        """The background saved at `path` if it is this model's, of the current passages;
        None when the file is missing, unreadable or stale."""
        try:
            with np.load(path, allow_pickle=False) as data:
                background = cls(
                    str(data["model_id"]),
                    str(data["digest"]),
                    data["passage_mean"],
                    data["query_mean"],
                    {name: data[f"group_{name}"] for name in SCRIPTS},
                )
        except (OSError, ValueError, KeyError, EOFError) as exc:
            del exc  # a damaged or missing file is computed again
            return None
        if (
            background.model_id != model_id
            or background.passage_mean.shape != (dimension,)
            or background.digest != passages_digest(background_passages())
        ):
            return None
        return background

    def scores(
        self,
        query_vector: np.ndarray,
        fact_vectors: np.ndarray,
        fact_scripts: Sequence[str],
        similarities: np.ndarray,
    ) -> np.ndarray:
        """The calibrated score (a z-score) of each fact for the query.

        `similarities` are the raw cosines of the query with `fact_vectors` (as the index
        returns them); they are passed in rather than recomputed so that the decision's
        margin can be measured by moving them.
        """
        query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        facts = np.asarray(fact_vectors, dtype=np.float32).reshape(-1, query.shape[0])
        centred_query = query - self.query_mean
        query_norm = float(np.linalg.norm(centred_query)) or 1.0
        # <q - mq, f - mp> from the raw cosine <q, f>, so a moved cosine moves the score.
        numerator = (
            np.asarray(similarities, dtype=np.float64)
            - float(query @ self.passage_mean)
            - facts @ self.query_mean
            + float(self.query_mean @ self.passage_mean)
        )
        fact_norms = np.linalg.norm(facts - self.passage_mean, axis=1)
        fact_norms[fact_norms == 0] = 1.0
        centred = numerator / (query_norm * fact_norms)
        unit_query = centred_query / query_norm
        result = np.empty(len(facts), dtype=np.float64)
        scripts = np.asarray(fact_scripts)
        for name in SCRIPTS:
            chosen = scripts == name
            if not chosen.any():
                continue
            reference = self.groups[name] if len(self.groups[name]) else self.groups["other"]
            background = reference @ unit_query
            spread = float(background.std()) or 1.0
            result[chosen] = (centred[chosen] - float(background.mean())) / spread
        return result


def _unit_rows(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)


def shipped_background_path(model_id: str) -> Path:
    return BACKGROUND_DIR / f"{model_id}.npz"


def load_background(embedder, cache_path: Path) -> tuple[Background, bool]:
    """The embedder's background: shipped with the package, or cached at `cache_path`, or
    computed now. Returns it and whether it was computed (for the caller to cache). A file
    read is kept in memory while it and the passages are unchanged (storage/derived.py): a
    long-lived recall process reads it once."""
    for path in (shipped_background_path(embedder.model_id), cache_path):
        memo: derived.Derived[Background | None] = derived.Derived(
            path,  # kept in memory, never written
            layout=derived.layout_of(None, (sys.modules[__name__],)),
            sources=(path, PASSAGES),
            made_with=(embedder.model_id, embedder.dimension),
            disk=False,
        )
        if memo.key() is None:
            continue
        background = derived.brought_in_step(memo, _reader(path, embedder))
        if background is not None:
            return background, False
    return Background.compute(embedder), True


def _reader(path: Path, embedder) -> Callable[[tuple | None], Background | None]:
    """What makes the background kept for `path`: the file read (None when not usable)."""
    return lambda key: Background.from_file(path, embedder.model_id, embedder.dimension)
