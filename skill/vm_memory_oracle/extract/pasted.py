"""Pasted material inside a turn: what the person quotes or shares, not what they say.

An article, code, a log, a table or a quotation pasted into a conversation has its own
voice: its "I" is its author's, its "today" its own day. Summarize learns no fact from it
(no "user said" fact, nothing for MEMORY.md); the turn stays findable as an episode
(episodes/). Found here, as spans of the turn's text:

- code between ``` fences (an unclosed fence runs to the end of the turn);
- lines of a log (a leading timestamp or level: "2024-03-01 12:00:01", "[ERROR]",
  "Traceback", "  File ...") and of a table (two or more "|" or tabs);
- quotations of 30 characters or more between quotation marks;
- notation: a run of NOTATION_TOKENS or more tokens none of which is a word (a chess
  game's moves "1. e4 c5 2. Nf3 Nf6", hashes, a row of figures): a sentence of a person
  has a word of three letters at least every few tokens;
- an article: a turn of ARTICLE_CHARS characters or more whose sentences, quotations left
  aside, almost never speak in the first person: all of it after its first line, which
  is the person's own ("predict the entities of this article one sentence at a time:").
"""

from __future__ import annotations

import re

from ..model.text import FIRST_PERSON

ARTICLE_CHARS = 1000
FIRST_PERSON_SHARE = 0.1  # of an article's sentences, at most
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_LOG_LINE = re.compile(
    r"^[ \t]*(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|"
    r"FATAL|CRITICAL)\b|Traceback \(most recent call last\)|File \"[^\"]+\", line \d+|at [\w$.]+\()"
    r".*$",
    re.MULTILINE,
)
_TABLE_LINE = re.compile(
    r"^[^\n]*(?:\|[^\n|]*){2,}\|?[^\n]*$|^[^\n]*(?:\t[^\n\t]*){2,}$", re.MULTILINE
)
NOTATION_TOKENS = 8
# A token that is not a word: it holds a digit, or is symbols, or is two letters at most
# (with symbols after them), or is castling ("O-O").
_NOT_A_WORD = r"(?:\S*\d\S*|[^\s\w]+|\w{1,2}[^\s\w]*|O-O(?:-O)?[+#]?)"
_NOTATION = re.compile(rf"(?<!\S){_NOT_A_WORD}(?:\s+{_NOT_A_WORD}){{{NOTATION_TOKENS - 1},}}(?!\S)")
_QUOTE = re.compile(r"[“\"«「『][^”\"»」』\n]{30,}[”\"»」』]")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


def pasted_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each stretch of `text` that is pasted material."""
    spans = [match.span() for match in _FENCE.finditer(text)]
    spans += [match.span() for match in _LOG_LINE.finditer(text)]
    spans += [match.span() for match in _TABLE_LINE.finditer(text)]
    spans += [match.span() for match in _NOTATION.finditer(text)]
    quotes = [match.span() for match in _QUOTE.finditer(text)]
    spans += quotes
    if len(text) >= ARTICLE_CHARS and _reads_as_an_article(text, quotes):
        first_line = text.find("\n")
        first = first_line if 0 < first_line < len(text) // 2 else _first_sentence_end(text)
        spans.append((first, len(text)))
    return sorted(spans)


def _reads_as_an_article(text: str, quotes: list[tuple[int, int]]) -> bool:
    own = text
    for start, end in reversed(quotes):
        own = own[:start] + " " * (end - start) + own[end:]
    sentences = [sentence for sentence in _SENTENCE.findall(own) if len(sentence.split()) >= 4]
    if len(sentences) < 5:
        return False
    personal = sum(1 for sentence in sentences if FIRST_PERSON.search(sentence))
    return personal <= FIRST_PERSON_SHARE * len(sentences)


def _first_sentence_end(text: str) -> int:
    match = _SENTENCE.match(text)
    return match.end() if match else 0


def outside(text: str, pieces: list[str]) -> list[bool]:
    """For each of `pieces` (consecutive parts of `text`, as fragments are), whether it lies
    outside the pasted material of `text`: less than half of it within ("My manager said
    “I will approve the budget...”" is the quotation's)."""
    spans = pasted_spans(text)
    if not spans:
        return [True] * len(pieces)
    kept = []
    cursor = 0
    for piece in pieces:
        start = text.find(piece, cursor)
        if start < 0:
            start = text.find(piece[:20], cursor)
        if start < 0:
            kept.append(True)  # not found as it is: it keeps its chance
            continue
        end = start + len(piece)
        cursor = start + 1
        covered = sum(max(0, min(end, high) - max(start, low)) for low, high in _merged(spans))
        kept.append(covered * 2 < len(piece))  # half of it or more is pasted: all of it is
    return kept


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged
