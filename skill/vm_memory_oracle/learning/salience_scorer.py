"""Salience for the statements learn() finds, each scored by the model of its kind of
conversation (extract/salience.py), with the embeddings those models read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config import Settings
from ..extract import salience
from ..graph import KnowledgeGraph

if TYPE_CHECKING:
    import numpy

    from ..semantic.cache import EmbeddingCache


class SalienceScorer:
    """Salience for learn()'s statements (extract/salience.py), each by the model of its
    kind of conversation. When the memory embeds with the bundled model, a model that reads
    its embeddings is used where one ships; the sentences' vectors go to the embedding cache
    (save(), under the caller's lock), so the index step embeds nothing twice. Any other
    embedder: the features alone. Making one loads the models: a caller that learns again
    and again keeps one."""

    def __init__(self, graph: KnowledgeGraph, settings: Settings):
        from ..embed.base import BUNDLED_NAMES
        from ..errors import EmbedderUnavailable

        self.graph = graph
        self.embedder = None
        self.fresh: dict[str, numpy.ndarray] = {}  # text -> its vector, embedded here
        self._cached: EmbeddingCache | None = None  # the embedding cache as first read
        if settings.embedding_model in BUNDLED_NAMES:
            try:
                from ..embed.bundled import BundledEmbedder

                self.embedder = BundledEmbedder()
            except EmbedderUnavailable:
                self.embedder = None
        model_id = self.embedder.model_id if self.embedder else None
        self.models = {kind: salience.model_for(model_id, kind) for kind in salience.KINDS}
        if all(model.model_id is None for model in self.models.values()):
            self.embedder = None
        people = self.models[salience.PEOPLE]
        self.name = "features and " + people.model_id if people.model_id else "features"

    def scores(self, statements: list, texts: list[str]):
        import numpy as np

        result = np.zeros(len(statements))
        for kind, model in self.models.items():
            chosen = [i for i, statement in enumerate(statements) if statement.kind == kind]
            if not chosen:
                continue
            rows = np.array([salience.features(statements[i]) for i in chosen])
            vectors = self._vectors([texts[i] for i in chosen]) if model.model_id else None
            result[chosen] = model.scores(rows, vectors)
        return result

    def _vectors(self, texts: list[str]):
        import numpy as np

        from ..semantic.cache import content_hash

        if self._cached is None:  # read once, whatever the number of days read
            self._cached = self._cache()
        cache = self._cached
        missing = sorted(set(cache.unreadable(text for text in texts if text not in self.fresh)))
        if missing:
            assert self.embedder is not None  # a model reads vectors only with the bundled one
            self.fresh.update(zip(missing, self.embedder.embed_passages(missing)))
        return np.vstack(
            [
                self.fresh[text] if text in self.fresh else cache.vector(content_hash(text))
                for text in texts
            ]
        )

    def _cache(self):
        from ..semantic.cache import EmbeddingCache

        return EmbeddingCache.of(self.graph, self.embedder)

    def save(self) -> None:
        """Add the vectors embedded here to the embedding cache, read again under the
        caller's lock (another process may have written it since)."""
        if not self.fresh:
            return
        from ..semantic.cache import content_hash

        cache = self._cache()
        texts = [text for text in self.fresh if content_hash(text) not in cache]
        if texts:
            cache.add(texts, [self.fresh[text] for text in texts])
            cache.save(self.graph.store)
            self.graph.store.touched(cache.path)
        self.fresh.clear()
