"""Learning: the one way a turn enters the memory (learn.py), whoever hands it on: the
session logs of summarize (logs.py), the live path of an OpenClaw agent or workspace
(live.py); the summary of a day (daily.py), the candidate facts a day's turns state
(candidates.py), their salience (salience_scorer.py) and the ledger of the session logs read
(ledger.py). Nothing is imported here, so that a reader of the ledger
alone (clean, the health check) loads none of the extractor."""
