"""The memory page: what the agent knows about the person, from where, and what changed,
as one self-contained HTML file (records: the data; page: the file)."""
