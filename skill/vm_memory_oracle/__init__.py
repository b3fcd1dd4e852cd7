"""vm-memory-oracle: durable long-term memory for an agent, as plain local files."""

__version__ = "0.1.0"
