"""Forgetting: what the owner asks the memory to forget leaves every answer, and is never
learned again.

- selection.py: what a selector (fact ids, a query, a session, a sender, a span of time)
  takes: the turns said, every fact and episode made of them, the files that change;
- marks.py: state/forgotten.jsonl, the ledger of the forgotten turns (where they were
  said and hashes of their words, never the words), which learning and the OpenClaw
  imports read before they write, so that nothing forgotten comes back;
- carry.py: the forgetting itself, under the data directory's lock, resumed where it
  stopped when a run was killed; and --purge, which erases the text the archive kept;
- lines.py: a session log's forgotten lines replaced in place, its summarize ledger kept
  describing it, and a forgotten turn met again in a log forgotten before it is read;
- asked.py: a forget the recall process is asked for (the owner's alone), and the answer
  it and `forget --json` both give.
"""
