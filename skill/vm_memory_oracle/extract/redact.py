"""Secrets are replaced before anything is written: API keys, tokens, private keys, passwords.

The replacement names the kind of secret, `[REDACTED:aws-access-key]`, so a reader knows
something was there and what, never its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARK = "[REDACTED:"  # how every replacement begins

# (kind, pattern, group holding the secret or 0 for the whole match)
_PATTERNS: tuple[tuple[str, re.Pattern, int], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)"
        ),
        0,
    ),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"), 0),
    ("openai-key", re.compile(r"\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}"), 0),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"), 0),
    (
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        0,
    ),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), 0),
    ("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"), 0),
    # key: value forms; the key stays readable, the value goes.
    (
        "password",
        re.compile(
            r"(?i)(?:\b(?:password|passwd|passphrase|pwd)\b|密码|口令)\s*(?:is\b|是|为|[:=：])\s*"
            r"[\"']?(?!\[REDACTED)([^\s\"'，。,;；]{3,})"
        ),
        1,
    ),
    (
        "secret",
        re.compile(
            r"(?i)\b(?:api[_ -]?key|secret(?:[_ -]?key)?|access[_ -]?token|auth[_ -]?token|token)\b"
            r"\s*(?:is\b|[:=])\s*[\"']?([A-Za-z0-9_\-./+=]{12,})"
        ),
        1,
    ),
    (
        "aws-secret-key",
        re.compile(r"(?i)aws_secret_access_key\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})"),
        1,
    ),
)


# A literal every pattern above needs (case aside): text without one holds no secret, and
# is returned as it is without running the eleven patterns (most text: a 100,000-fact
# import spent a fifth of its time here). It is searched in the case-folded text with a
# case-sensitive pattern, five times faster than a case-insensitive one; casefold() maps
# every character (?i) would match to one of these letters onto it, except the dotless
# ı, which (?i) takes for an i and so does [iı] here (tests/test_extract.py checks them all).
_TRIGGER = re.compile(
    r"-----beg[iı]n|eyj|sk-|ak[iı]a|as[iı]a|agpa|a[iı]da|aroa|gh[pousr]_|g[iı]thub_pat_"
    r"|xox[abposr]-|a[iı]za|_(?:l[iı]ve|test)_|passw(?:or)?d|passphrase|pwd|密码|口令"
    r"|ap[iı][_ -]?key|secret|token"
)


def _may_hold_a_secret(text: str) -> bool:
    return _TRIGGER.search(text.casefold()) is not None


def holds_secret(text: str) -> bool:
    """Whether `text` holds a secret redact() would replace, or the mark of one replaced
    before: found without replacing anything (the first replacement is made on `text` as
    it is, so a pattern that finds nothing here replaces nothing there)."""
    if MARK in text:
        return True
    return _may_hold_a_secret(text) and any(pattern.search(text) for _, pattern, _ in _PATTERNS)


@dataclass
class Redacted:
    text: str
    count: int
    kinds: list[str]


def redact(text: str) -> Redacted:
    """`text` with every secret replaced; how many were replaced and of which kinds."""
    if not _may_hold_a_secret(text):
        return Redacted(text, 0, [])
    return redact_all_patterns(text)


def redact_all_patterns(text: str) -> Redacted:
    """redact() without the shortcut: every pattern run over `text`."""
    count = 0
    kinds: list[str] = []
    for kind, pattern, group in _PATTERNS:

        def replace(match: re.Match, kind=kind, group=group) -> str:
            nonlocal count
            count += 1
            kinds.append(kind)
            if group == 0:
                return f"[REDACTED:{kind}]"
            start, end = match.span(group)
            whole_start = match.start()
            return (
                match.group(0)[: start - whole_start]
                + f"[REDACTED:{kind}]"
                + match.group(0)[end - whole_start :]
            )

        text = pattern.sub(replace, text)
    return Redacted(text, count, kinds)


def redact_value(value):
    """Redact every string inside a JSON-like value; returns (value, count)."""
    if isinstance(value, str):
        result = redact(value)
        return result.text, result.count
    if isinstance(value, list):
        total = 0
        items = []
        for item in value:
            item, count = redact_value(item)
            items.append(item)
            total += count
        return items, total
    if isinstance(value, dict):
        total = 0
        mapping = {}
        for key, item in value.items():
            item, count = redact_value(item)
            mapping[key] = item
            total += count
        return mapping, total
    return value, 0
