"""Embedders: text in, L2-normalised float32 vectors out, with a model id and a dimension.

They know nothing of facts or of the index (STYLE 5); backends load lazily.
"""
