"""The times a text names, as periods of whole days: "in May 2023", "last year",
"2023-05-07", "the week of 2023-06-26", "summer 2021", "去年", "2023年5月".

A query that names a time prefers the facts of that time (recall/sources/time.py). A fact
is of a time when it was stated then (its valid_from) or its text names a day, week, month or year
within it; relative dates in a fact were resolved when it was learned ("last week (week of
2023-06-26)", extract/dates.py), so they are read here as the dates they are.

A month or season named without a year ("in June", "五月") is the latest one that has
begun by `today`, and the next one too when that is still to come: a memory is asked about
what happened and about what is planned. Seasons are the northern meteorological ones
(spring March to May, summer June to August, autumn September to November, winter
December to February, which belongs to the year it begins in). Pure functions.
"""

from __future__ import annotations

import re
import unicodedata
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, timedelta

from .dates_text import normalise_dates


@dataclass(frozen=True)
class Period:
    """The days from `first` to `last`, both included."""

    first: date
    last: date

    def overlaps(self, other: Period) -> bool:
        return self.first <= other.last and other.first <= self.last


MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
SEASON_FIRST_MONTH = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
CHINESE_NUMBERS = {
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "十一": 11,
    "十二": 12,
}
ENGLISH_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}

_MONTH = "|".join(MONTHS)
_SEASON = "spring|summer|autumn|fall|winter"
_YEAR = r"(?:19|20)\d\d"
# "May" is a month only where a month is expected: before a year, after a preposition or
# a relative word; the other month names are months wherever they are capitalised.
_MONTH_CUE = r"(?i:\b(?:in|during|of|since|until|by|early|late|mid|this|last|next)[\s-]+)"
_CAPITALISED = "|".join(name.capitalize() for name in MONTHS if name != "may")
# A month followed by a number is a day or a month of a year, read from the month on.
_NO_NUMBER = r"(?![,\s]*(?:of\s+)?\d)"
_PATTERN = re.compile(
    "|".join(
        [
            rf"(?P<week_of>(?i:week of )(?P<wy>{_YEAR})-(?P<wm>\d\d)-(?P<wd>\d\d))",
            rf"(?P<iso_day>(?<![\d-])(?P<dy>{_YEAR})-(?P<dm>\d\d)-(?P<dd>\d\d)(?![\d-]))",
            rf"(?P<iso_month>(?<![\d-])(?P<my>{_YEAR})-(?P<mm>\d\d)(?![\d-]))",
            rf"(?P<month_year>(?i:\b(?P<mym>{_MONTH}),?\s+(?:of\s+)?)(?P<myy>{_YEAR})\b)",
            rf"(?P<season_year>(?i:\b(?P<sys>{_SEASON})\s+(?:of\s+)?)(?P<syy>{_YEAR})\b)",
            r"(?P<zh_year_month>(?P<zym_y>\d{4})\s*年\s*(?P<zym_m>\d{1,2})\s*月(?!\s*\d))",
            r"(?P<zh_year>(?P<zy>\d{4})\s*年(?!\s*\d))",
            r"(?P<zh_month_day>(?<!\d)(?P<zmd_m>\d{1,2})\s*月\s*(?P<zmd_d>\d{1,2})\s*[日号])",
            r"(?P<zh_month>(?<![个\d])(?P<zm>\d{1,2}|十[一二]?|[一二三四五六七八九])月(?!\s*\d))",
            rf"(?P<month_day>(?i:\b(?P<mdm>{_MONTH})\s+)(?P<mdd>\d{{1,2}})(?:st|nd|rd|th)?\b"
            r"(?![,\s]*\d))",
            rf"(?P<day_month>\b(?P<dmd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?"
            rf"(?i:(?P<dmm>{_MONTH}))\b(?![,\s]*\d))",
            rf"(?P<relative>(?i:\b(?P<rel>last|this|next)\s+(?P<unit>week|weekend|month|year"
            rf"|{_SEASON})\b))",
            rf"(?P<cued_month>{_MONTH_CUE}(?P<cm>(?i:{_MONTH}))\b{_NO_NUMBER})",
            rf"(?P<month>\b(?P<mo>{_CAPITALISED})\b{_NO_NUMBER})",
            rf"(?P<year>(?<![\d.-])(?P<y>{_YEAR})(?![\d-]|\.\d))",
            r"(?P<day_word>(?i:\b(?P<dw>today|tonight|yesterday)\b))",
            r"(?P<ago>(?i:\b(?P<ago_n>\d{1,2}|an?|one|two|three|four|five)\s+"
            r"(?P<ago_unit>day|week|month|year)s?\s+ago\b))",
            r"(?P<zh_ago>(?P<zago_n>\d{1,2}|[一两二三四五六七八九十])\s*(?P<zago_unit>天|周|个星期|个月|年)"
            r"(?:以?前|之前))",
            r"(?P<zh_day>今天|今晚|昨天|昨晚|前天)",
            r"(?P<zh_span>上个?(?:周|星期|礼拜)|这个?(?:周|星期|礼拜)|本周|上个月|这个月|本月"
            r"|去年|今年|前年)",
        ]
    )
)


# Every period named holds one of these characters or words; most texts hold none and are
# read no further.
_CUE_CHARACTERS = re.compile(r"[\d年月周星礼天晚昨前上本这去]")
_CUE_WORDS = frozenset(
    (*MONTHS, *SEASON_FIRST_MONTH, "today", "tonight", "yesterday", "ago", "last", "this", "next")
)
_WORD = re.compile(r"[a-z]+")
_FOUR_DIGITS = re.compile(r"\d{4}")
# The words an English form begins with.
_FIRST_WORDS = frozenset(
    (
        *MONTHS,
        *SEASON_FIRST_MONTH,
        *ENGLISH_COUNTS,
        *("week", "in", "during", "of", "since", "until", "by", "early", "late", "mid"),
        *("this", "last", "next", "today", "tonight", "yesterday"),
    )
)
_STARTS = re.compile(r"[A-Za-z]+|\d|[\u3400-\u9fff]")


def named_periods(text: str, today: date) -> list[Period]:
    """The periods `text` names, in the order it names them; relative ones ("last year")
    are taken from `today`."""
    found: list[Period] = []
    if not _CUE_CHARACTERS.search(text) and _CUE_WORDS.isdisjoint(_WORD.findall(text.lower())):
        return found
    normal = unicodedata.normalize("NFKC", text)
    if _FOUR_DIGITS.search(normal):  # every date normalise_dates reads has a year
        normal = normalise_dates(normal)
    end = 0
    # Every form begins with one of _FIRST_WORDS, a digit or a CJK character: the pattern is
    # tried there only (a search would try its every form at every character).
    for start in _STARTS.finditer(normal):
        word = start.group()
        if start.start() < end or (
            word.isascii() and word.isalpha() and word.lower() not in _FIRST_WORDS
        ):
            continue
        match = _PATTERN.match(normal, start.start())
        if match is not None:
            found.extend(_periods(match, today))
            end = match.end()
    return found


def _periods(match: re.Match, today: date) -> list[Period]:
    kind = match.lastgroup
    part = match.group  # the forms' groups, read by name (groupdict would make all 50)
    try:
        if kind == "week_of":
            monday = date(int(part("wy")), int(part("wm")), int(part("wd")))
            return [Period(monday, monday + timedelta(days=6))]
        if kind == "iso_day":
            return [_day(date(int(part("dy")), int(part("dm")), int(part("dd"))))]
        if kind == "iso_month":
            return [_month(int(part("my")), int(part("mm")))]
        if kind == "month_year":
            return [_month(int(part("myy")), _month_number(part("mym")))]
        if kind == "season_year":
            return [_season(int(part("syy")), part("sys").lower())]
        if kind == "zh_year_month":
            return [_month(int(part("zym_y")), int(part("zym_m")))]
        if kind == "zh_year":
            return [_year(int(part("zy")))]
        if kind == "zh_month_day":
            month, day = int(part("zmd_m")), int(part("zmd_d"))
            return [_day(date(year, month, day)) for year in _years_of(month, today)]
        if kind == "zh_month":
            number = part("zm")
            month = int(number) if number.isdigit() else CHINESE_NUMBERS[number]
            return [_month(year, month) for year in _years_of(month, today)]
        if kind in ("month_day", "day_month"):
            month = _month_number(part("mdm") or part("dmm"))
            day = int(part("mdd") or part("dmd"))
            return [_day(date(year, month, day)) for year in _years_of(month, today)]
        if kind == "relative":
            return [_relative(part("rel").lower(), part("unit").lower(), today)]
        if kind in ("cued_month", "month"):
            cue = match.group(0).split()[0].lower() if kind == "cued_month" else ""
            month = _month_number(part("cm") or part("mo"))
            if cue in ("this", "last", "next"):
                return [_month(_relative_year(cue, month, today), month)]
            return [_month(year, month) for year in _years_of(month, today)]
        if kind == "year":
            return [_year(int(part("y")))]
        if kind == "day_word":
            word = part("dw").lower()
            return [_day(today - timedelta(days=1 if word == "yesterday" else 0))]
        if kind == "ago":
            return [_ago(part("ago_n").lower(), part("ago_unit").lower(), today)]
        if kind == "zh_ago":
            count = part("zago_n")
            unit = {"天": "day", "周": "week", "个星期": "week", "个月": "month", "年": "year"}
            number = int(count) if count.isdigit() else CHINESE_NUMBERS[count]
            return [_ago(str(number), unit[part("zago_unit")], today)]
        if kind == "zh_day":
            back = {"今天": 0, "今晚": 0, "昨天": 1, "昨晚": 1, "前天": 2}[match.group(0)]
            return [_day(today - timedelta(days=back))]
        if kind == "zh_span":
            return [_chinese_span(match.group(0), today)]
    except ValueError:  # not a date of the calendar ("February 30", month 13): no period
        return []
    return []


def _month_number(name: str) -> int:
    return MONTHS.index(name.lower()) + 1


def _day(day: date) -> Period:
    return Period(day, day)


def _month(year: int, month: int) -> Period:
    return Period(date(year, month, 1), date(year, month, monthrange(year, month)[1]))


def _year(year: int) -> Period:
    return Period(date(year, 1, 1), date(year, 12, 31))


def _months(year: int, month: int, count: int) -> Period:
    index = year * 12 + month - 1 + count - 1
    end = _month(index // 12, index % 12 + 1)
    return Period(date(year, month, 1), end.last)


def _season(year: int, season: str) -> Period:
    return _months(year, SEASON_FIRST_MONTH[season], 3)


def _years_of(month: int, today: date) -> list[int]:
    """The year of the latest `month` begun by `today`, and the next year's when the month
    is still to come this year."""
    if month <= today.month:
        return [today.year]
    return [today.year - 1, today.year]


def _relative_year(relation: str, month: int, today: date) -> int:
    if relation == "this":
        return today.year
    if relation == "last":
        return today.year if month < today.month else today.year - 1
    return today.year if month > today.month else today.year + 1


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _relative(relation: str, unit: str, today: date) -> Period:
    step = {"last": -1, "this": 0, "next": 1}[relation]
    if unit in ("week", "weekend"):
        monday = _monday(today) + timedelta(weeks=step)
        return Period(monday + timedelta(days=5 if unit == "weekend" else 0), monday + timedelta(6))
    if unit == "month":
        index = today.year * 12 + today.month - 1 + step
        return _month(index // 12, index % 12 + 1)
    if unit == "year":
        return _year(today.year + step)
    # A season: "this summer" is this year's; "last summer" the latest one over by today,
    # "next summer" the first one not begun by today.
    season = _season(today.year, unit)
    if unit == "winter" and today.month <= 2:
        season = _season(today.year - 1, unit)
    if relation == "last" and season.last >= today:
        season = _season(season.first.year - 1, unit)
    elif relation == "next" and season.first <= today:
        season = _season(season.first.year + 1, unit)
    return season


def _ago(count_text: str, unit: str, today: date) -> Period:
    count = int(count_text) if count_text.isdigit() else ENGLISH_COUNTS[count_text]
    if unit == "day":
        return _day(today - timedelta(days=count))
    if unit == "week":
        monday = _monday(today - timedelta(weeks=count))
        return Period(monday, monday + timedelta(days=6))
    if unit == "month":
        index = today.year * 12 + today.month - 1 - count
        return _month(index // 12, index % 12 + 1)
    return _year(today.year - count)


def _chinese_span(span: str, today: date) -> Period:
    if span in ("去年", "今年", "前年"):
        return _year(today.year - {"前年": 2, "去年": 1, "今年": 0}[span])
    if span.endswith("月"):
        return _relative("last" if span.startswith("上") else "this", "month", today)
    return _relative("last" if span.startswith("上") else "this", "week", today)
