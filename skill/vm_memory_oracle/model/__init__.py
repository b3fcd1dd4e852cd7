"""Facts, activation and importance as pure functions; no file is touched here."""
