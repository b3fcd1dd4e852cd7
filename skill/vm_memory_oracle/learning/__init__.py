"""Learning: what summarize reads turns with, the salience of their statements
(salience_scorer.py) and the ledger of the session logs read (ledger.py). Nothing is
imported here, so that a reader of the ledger alone (clean) loads none of the extractor."""
