"""Embedders: text in, L2-normalised float32 vectors out, with a model id and a dimension.

They know nothing of facts or of the index, so each can be tested and swapped alone; backends
load lazily.
"""
