"""What kind of value a question asks for, and whether a fact's sentence holds one: an
amount ("How much did the visit cost?", 花了多少钱), a span of time ("How much time do I
spend on it?", 多长时间), a number (how much, what percentage), a time (when, what date,
什么时候), a place (where, which city, 在哪里), a person (who, 谁) or a name (which ...,
what is ... called).

A question that asks for a value is answered by the fact that holds a value of that kind
about what is asked, before the facts that only name the topic ("Lola had her check-up at
the vet" against "I paid $120 for the visit"). The kinds are read from the forms of the
text alone: a currency sign or unit beside a number, a date or period (model/periods.py),
a word of place before a name. A person or a name is read as what a question asks ("who",
"which"), so that it is not taken for another kind, but no fact is held to hold one: a
capitalised word inside a sentence names the speakers in nearly every fact of a
conversation, and ranking by it lowered the LoCoMo dev recall (open-domain questions,
conv-43). Pure functions.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

from .periods import named_periods

AMOUNT, SPAN, NUMBER, TIME = "amount", "span", "number", "time"
PLACE, PERSON, NAME = "place", "person", "name"
KINDS = (AMOUNT, SPAN, NUMBER, TIME, PLACE, PERSON, NAME)
# The kinds a fact's sentence can hold (holds): a person or a name is asked for, never held.
HELD = (AMOUNT, SPAN, NUMBER, TIME, PLACE)

# The comparatives that make "how much" ask for a difference.
_COMPARED = (
    "earlier|later|sooner|longer|shorter|more|less|fewer|older|younger|faster|slower|"
    "further|farther|bigger|smaller|larger|higher|lower|heavier|lighter|cheaper|dearer"
)

_ASKS = (
    # Before an amount: time is spent too ("How much time do I spend on it?").
    (SPAN, re.compile(r"\bhow much time\b|多长时间|多少时间", re.IGNORECASE)),
    (
        AMOUNT,
        re.compile(
            r"\bhow much\b[^?]*\b(?:cost|costs|pay|paid|spend|spent|price|charge|charged|worth|"
            r"budget|fee|earn|earned|save|saved|owe|raise|raised|donate|donated)\b"
            r"|\bwhat (?:was|is|were|are) the (?:price|cost|total|fee|budget)\b"
            r"|多少钱|花了多少|价格是?多少|多少块",
            re.IGNORECASE,
        ),
    ),
    # A count ("how many", 几个, 几次) is no value one fact holds: it is counted over many
    # turns, or worked out from two dates. Nor is a difference ("how much earlier", 比…早多少):
    # it is worked out from two values. A fact naming any number is no answer to either (a
    # difference of amounts is asked as an amount above: each of its two values is told by
    # its currency).
    (
        None,
        re.compile(
            rf"\bhow much (?:{_COMPARED})\b|比[^，,。？?]+多少",
            re.IGNORECASE,
        ),
    ),
    (
        NUMBER,
        re.compile(
            r"\bhow much\b|\bwhat (?:number|percentage)|多少(?![个次本只位天周])", re.IGNORECASE
        ),
    ),
    (
        TIME,
        re.compile(
            r"^\W*when\b|\bwhen (?:did|do|does|was|were|is|are|will|had|have|has)\b"
            r"|\bwhat (?:date|day|year|month|time)\b|\bwhich (?:date|day|year|month)\b"
            r"|什么时候|哪天|哪一天|几号|哪一?年|几月|几点",
            re.IGNORECASE,
        ),
    ),
    (
        PLACE,
        re.compile(
            r"\bwhere\b|\bwhich (?:city|country|state|town|place|restaurant|store|shop|hotel|"
            r"venue|park|school|university|college|neighbou?rhood|island)\b"
            r"|\bwhat (?:city|country|state|town|place|restaurant|store|shop|hotel|venue)\b"
            r"|哪里|哪儿|在哪|哪个(?:城市|国家|地方|餐厅|商店)",
            re.IGNORECASE,
        ),
    ),
    (PERSON, re.compile(r"\bwho(?:m|se)?\b|谁", re.IGNORECASE)),
    (
        NAME,
        re.compile(
            r"\bwhich\b|\bwhat (?:is|was|'s) (?:the |their |his |her |my )?name\b|"
            r"\bwhat (?:\w+ )?(?:is|was) (?:it |they |he |she )?called\b"
            r"|叫什么|哪个|哪部|哪本|哪家",
            re.IGNORECASE,
        ),
    ),
)

_CURRENCY = re.compile(
    r"[$€£¥₹]\s?\d|\d[\d,.]*\s?(?:k\b)?\s?(?:dollars?|bucks|usd|eur|euros?|pounds?|gbp|yuan|rmb|"
    r"yen|cents?|rupees?)\b|\d[\d,.]*\s*(?:元|块|美元|欧元|英镑|万元)",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|hundred|thousand|dozen|couple|half)\b"
    r"|[一二两三四五六七八九十百千万]+\s*(?:个|次|本|只|天|周|月|年|岁|位|小时|分钟|公里|元|块)",
    re.IGNORECASE,
)
# A span of time: a count (or "an", "half an", "a few") of a unit of time, or 一个半小时.
_SPAN = re.compile(
    r"(?:\d[\d.,]*|(?<!times )(?<!twice )(?<!once )\ban?|\bhalf an?|\ba few|\bseveral"
    r"|\bcouple of|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"fifteen|twenty|thirty|forty|fifty|sixty|ninety)\b)"
    r"(?:\s*(?:-|to|or)\s*\w+)?\s*(?:hours?|hrs?|minutes?|mins?|seconds?|days?|weeks?|"
    r"months?|years?)\b"
    r"|[\d一二两三四五六七八九十半]+\s*个?半?(?:小时|分钟|钟头|天|周|星期|个月|年)",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_DATE_DIGITS = re.compile(r"\d{4}-\d{2}(?:-\d{2})?|\d{4}年|\d{1,2}月|\d{1,2}[日号]")
_CLOCK = re.compile(
    r"\b\d{1,2}(?::\d\d)?\s?(?:am|pm|a\.m\.|p\.m\.)|\b(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|yesterday|today|tonight|tomorrow)\b|[上下]午|星期|周[一二三四五六日末]",
    re.IGNORECASE,
)
# A capitalised word after a word of place ("in Lisbon", "at Café Luna", "moved to Oslo").
_PLACE = re.compile(
    r"\b(?:in|at|to|from|near|visited|visiting|around|across)\s+(?:the\s+)?([A-Z][\w'’.&-]+)"
    r"|(?:在|去了?|到|来自|住在|搬到)([\u4e00-\u9fff]{2,})",
)


def asked_kind(question: str) -> str | None:
    """The kind of value `question` asks for, the first that reads it; None when it asks
    for none (a yes/no question, "what do I like", a statement, a count, a difference)."""
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    return None


def asked_words(question: str) -> frozenset[str]:
    """The words of `question`, case-folded: a place it says is what it asks about, not the
    answer ("Where in Lisbon did I stay?" is not answered by every fact naming Lisbon)."""
    return frozenset(word.casefold() for word in _WORDS.findall(question))


def holds(sentence: str, kind: str, said: date, asked: frozenset[str] = frozenset()) -> bool:
    """Whether `sentence` (a fact's, said on `said`) holds a value of `kind`, a place other
    than the `asked` words (asked_words of the question). Only a place depends on the
    asked words: the other kinds are kept without them, so that a fact read again for
    another question of a recall is not read again."""
    return _holds(sentence, kind, said, asked if kind == PLACE else frozenset())


@lru_cache(maxsize=8192)
def _holds(sentence: str, kind: str, said: date, asked: frozenset[str]) -> bool:
    if kind == AMOUNT:
        return bool(_CURRENCY.search(sentence))
    if kind == SPAN:
        return bool(_SPAN.search(sentence))
    if kind == NUMBER:  # a count or measure, not the digits of a date
        return bool(_NUMBER.search(_DATE_DIGITS.sub(" ", sentence)))
    if kind == TIME:
        return bool(_CLOCK.search(sentence)) or bool(named_periods(sentence, said))
    if kind == PLACE:
        return any(
            (found.group(1) or found.group(2)).casefold() not in asked
            for found in _PLACE.finditer(sentence)
        )
    return False  # a person or a name (not in HELD): see the module's docstring
