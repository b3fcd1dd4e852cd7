"""Dates written any common way, rewritten as ISO YYYY-MM-DD so texts can be compared.

"May 15th, 2026", "15 May 2026", "2026/05/15" and "2026年5月15日" all become "2026-05-15".
Only dates that name a year and can be read one way only are rewritten: "May 15",
"03/04/2026" and "Feb 30, 2026" stay as written. Pure functions; no file is touched here.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from .fact import normalise

_MONTH_NUMBERS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
_MONTH_NAME = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_WEEKDAY = (
    r"(?:(?:mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?"
    r"|sat(?:urday)?|sun(?:day)?)\.?(?:,\s*|\s+))?"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
# Letters, not \w, mark a word start: CJK characters are \w, and "于May 15, 2026" is a date.
_WORD_START = r"(?<![A-Za-z])"
_NUMBER_START = r"(?<![\dA-Za-z.])"  # not inside "1.2026.05.15" or "v10.20.2026"
# A leading day also not right after a separator: in "2026-05-15-2026" the "05-15-2026" is
# the tail of an ISO date, not a date of its own.
_DAY_START = r"(?<![\dA-Za-z./-])"
# After a trailing year: not "2026.5", and not "15 May 2026-05-..." (which an ISO rewrite
# next to it could produce, so a second pass would read a different date).
_YEAR_END = r"(?![-/.]?\d)"


def _group(name: str, pattern: str) -> str:
    return "(?P<" + name + ">" + pattern + ")"


def _forms() -> dict[str, str]:
    """Each way of writing a date; its groups are named <form>_year, <form>_month, ..."""

    def day(form):
        return _group(form + "_day", r"\d{1,2}")

    def month(form):
        return _group(form + "_month", r"\d{1,2}")

    def year(form):
        return _group(form + "_year", r"\d{4}")

    # The trailing \b keeps "Mayor" and "Septx" from being months.
    def month_name(form):
        return _group(form + "_month", _MONTH_NAME) + r"\b\.?"

    def sep(form):
        return _group(form + "_sep", "[-/.]")

    def same_sep(form):
        return "(?P=" + form + "_sep)"

    return {
        "mf": (
            _WORD_START
            + _WEEKDAY
            + month_name("mf")
            + r"\s*"
            + day("mf")
            + _ORDINAL
            + r"(?:,\s*|\s+)"
            + year("mf")
            + _YEAR_END
        ),
        "df": (
            _WORD_START
            + _WEEKDAY
            + _DAY_START
            + day("df")
            + _ORDINAL
            + r"\s+(?:of\s+)?"
            + month_name("df")
            + r",?\s+"
            + year("df")
            + _YEAR_END
        ),
        "yf": (
            _NUMBER_START
            # Not a year right after "digits-": in "2026-05-1515/05/15" (a date rewritten
            # before digits that followed it) "1515" is the tail of the date, not a year.
            + r"(?<!\d[-/.])"
            + year("yf")
            + sep("yf")
            + month("yf")
            + same_sep("yf")
            + day("yf")
            + r"(?!\.?\d)"
        ),
        "zh": (
            _NUMBER_START
            + year("zh")
            + r"\s*年\s*"
            + month("zh")
            + r"\s*月\s*"
            + day("zh")
            + r"\s*[日号]"
        ),
        # Day and month in either order; which is which is settled after matching.
        "nu": (
            _DAY_START
            + _group("nu_first", r"\d{1,2}")
            + sep("nu")
            + _group("nu_second", r"\d{1,2}")
            + same_sep("nu")
            + year("nu")
            + _YEAR_END
        ),
    }


# One pattern, one pass: the leftmost date wins, and a rewritten date is not read again.
_DATE = re.compile(
    "|".join(_group(form, pattern) for form, pattern in _forms().items()), re.IGNORECASE
)


def _day_and_month_of_numeric(first: int, second: int) -> tuple[int, int] | None:
    """(day, month) of "first/second/year" when only one reading exists, else None."""
    if first == second or (first > 12 and second <= 12):
        return first, second
    if second > 12 and first <= 12:
        return second, first
    return None  # 03/04/2026 is March 4 in the US and 3 April in Europe


def _iso_date(match: re.Match) -> str:
    form = match.lastgroup or ""
    part = match.groupdict()
    if form == "nu":
        day_and_month = _day_and_month_of_numeric(int(part["nu_first"]), int(part["nu_second"]))
        if day_and_month is None:
            return match.group(0)
        day, month = day_and_month
    else:
        day, month = int(part[form + "_day"]), part[form + "_month"]
        month = int(month) if month.isdigit() else _MONTH_NUMBERS[month[:3].lower()]
    try:
        return date(int(part[form + "_year"]), month, day).isoformat()
    except ValueError:  # Feb 30 is not a date; leave the writer's text alone
        return match.group(0)


def normalise_dates(text: str) -> str:
    """`text` with every recognised date replaced by YYYY-MM-DD; everything else unchanged."""
    return _DATE.sub(_iso_date, text)


def comparable(text: str) -> str:
    """Dates in ISO form, then NFKC, case-folded, whitespace runs as one space, trimmed."""
    # NFKC first as well, so full-width "２０２６／０５／１５" is read as a date too.
    return normalise(normalise_dates(unicodedata.normalize("NFKC", text)))


def contains_expected(haystack: str, expected: str) -> bool:
    """Whether `expected` appears in `haystack`, however either writes its dates."""
    needle = comparable(expected)
    return bool(needle) and needle in comparable(haystack)
