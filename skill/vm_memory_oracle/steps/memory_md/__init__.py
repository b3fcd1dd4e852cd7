"""MEMORY.md, in one home: the managed block and which facts it holds, as lines (block: pure,
text in and text out), the data directory's MEMORY.md reconciled with the knowledge graph
(data_file: consolidation's step 7), and the same block in each OpenClaw workspace's own
MEMORY.md, which step 7 writes after it (workspaces)."""
