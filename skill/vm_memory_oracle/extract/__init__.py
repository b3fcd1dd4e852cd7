"""From what was said to facts: redaction, fragments, dates, patterns, importance."""
