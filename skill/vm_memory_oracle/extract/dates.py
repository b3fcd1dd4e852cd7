"""Relative dates said in a turn ("next Friday", "yesterday", "明天") resolved against its time.

Each expression keeps its words and gains the date it means in parentheses:
"I fly to Rome next Friday" -> "I fly to Rome next Friday (2026-05-22)". Weeks resolve to
"week of <Monday>", months to YYYY-MM, years to YYYY.

English "next Friday" is the first Friday after the day of the turn and "last Friday" the
last one before it; Chinese 下周五 / 上周五 are the Friday of the next / previous calendar
week (Monday to Sunday), as they are used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from ..model.periods import CHINESE_NUMBERS as NUMBERS_ZH

WEEKDAYS_EN = {
    name: index
    for index, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}
WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
NUMBERS_EN = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a few": 3,
}
RELATIVE_DAYS_ZH = {
    "今天": 0,
    "今晚": 0,
    "明天": 1,
    "后天": 2,
    "大后天": 3,
    "昨天": -1,
    "昨晚": -1,
    "前天": -2,
    "大前天": -3,
}

_CJK = re.compile(r"[\u4e00-\u9fff]")
_EN_WEEKDAY = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_EN_COUNT = r"\d{1,3}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten"
_ZH_COUNT = r"\d{1,3}|[一两二三四五六七八九十]"

_PATTERN = re.compile(
    "|".join(
        [
            r"(?P<dayafter>\bthe day after tomorrow\b)",
            r"(?P<daybefore>\bthe day before yesterday\b)",
            r"(?P<en_day>\b(?:today|tonight|this (?:morning|afternoon|evening)|tomorrow"
            r"|yesterday)\b)",
            rf"(?P<en_rel_weekday>\b(?P<en_rel>next|last|this|coming|on|by|before|until) "
            rf"(?P<en_wd>{_EN_WEEKDAY})\b)",
            r"(?P<en_span>\b(?P<en_span_rel>next|last|this) "
            r"(?P<en_unit>week|weekend|month|year)\b)",
            rf"(?P<en_in>\bin (?P<en_in_n>{_EN_COUNT}) "
            rf"(?P<en_in_unit>days?|weeks?|months?|years?)\b)",
            rf"(?P<en_ago>\b(?P<en_ago_n>{_EN_COUNT}) "
            rf"(?P<en_ago_unit>days?|weeks?|months?|years?) ago\b)",
            r"(?P<zh_day>大后天|大前天|今天|今晚|明天|后天|昨天|昨晚|前天)",
            r"(?P<zh_weekday>(?P<zh_rel>下下?个?(?:周|星期|礼拜)|上上?个?(?:周|星期|礼拜)|这个?(?:周|星期|礼拜)"
            r"|本(?:周|星期)|(?:周|星期|礼拜))(?P<zh_wd>[一二三四五六日天]))",
            r"(?P<zh_span>下个?(?:周|星期|礼拜)|上个?(?:周|星期|礼拜)|下个月|上个月|明年|去年|今年)",
            rf"(?P<zh_offset>(?P<zh_n>{_ZH_COUNT})(?P<zh_unit>天|周|个星期|个月|年)"
            r"(?P<zh_dir>后|前|以后|以前|之后|之前))",
        ]
    ),
    re.IGNORECASE,
)


@dataclass
class DateResolution:
    text: str
    days: list[date] = field(default_factory=list)  # day-precise dates found, in order


def resolve_dates(text: str, today: date) -> DateResolution:
    found: list[date] = []

    def annotate(match: re.Match) -> str:
        value = _resolve(match, today)
        if value is None:
            return match.group(0)
        if isinstance(value, date):
            found.append(value)
            label = value.isoformat()
        else:
            label = value
        if _CJK.search(match.group(0)):
            return f"{match.group(0)}（{label}）"
        return f"{match.group(0)} ({label})"

    return DateResolution(_PATTERN.sub(annotate, text), found)


def _resolve(match: re.Match, today: date):
    groups = match.groupdict()
    if groups["dayafter"]:
        return today + timedelta(days=2)
    if groups["daybefore"]:
        return today - timedelta(days=2)
    if groups["en_day"]:
        word = groups["en_day"].lower()
        return today + timedelta(days={"tomorrow": 1, "yesterday": -1}.get(word, 0))
    if groups["en_rel_weekday"]:
        target = WEEKDAYS_EN[groups["en_wd"].lower()]
        relation = groups["en_rel"].lower()
        if relation == "last":
            back = (today.weekday() - target) % 7 or 7
            return today - timedelta(days=back)
        if relation == "this":
            return _monday(today) + timedelta(days=target)
        ahead = (target - today.weekday()) % 7
        if relation in ("next", "coming", "before"):  # a deadline: the one to come
            ahead = ahead or 7
        return today + timedelta(days=ahead)
    if groups["en_span"]:
        return _span(groups["en_span_rel"].lower(), groups["en_unit"].lower(), today)
    if groups["en_in"] or groups["en_ago"]:
        amount_text = groups["en_in_n"] or groups["en_ago_n"]
        unit = (groups["en_in_unit"] or groups["en_ago_unit"]).lower().rstrip("s")
        sign = 1 if groups["en_in"] else -1
        return _offset(_count(amount_text.lower(), NUMBERS_EN), unit, sign, today)
    if groups["zh_day"]:
        return today + timedelta(days=RELATIVE_DAYS_ZH[groups["zh_day"]])
    if groups["zh_weekday"]:
        relation = groups["zh_rel"]
        weeks = 0
        if relation.startswith("下"):
            weeks = 2 if relation.startswith("下下") else 1
        elif relation.startswith("上"):
            weeks = -2 if relation.startswith("上上") else -1
        return _monday(today) + timedelta(weeks=weeks, days=WEEKDAYS_ZH[groups["zh_wd"]])
    if groups["zh_span"]:
        span = groups["zh_span"]
        if "月" in span:
            return _span("next" if span.startswith("下") else "last", "month", today)
        if span in ("明年", "去年", "今年"):
            return str(today.year + {"明年": 1, "去年": -1, "今年": 0}[span])
        return _span("next" if span.startswith("下") else "last", "week", today)
    if groups["zh_offset"]:
        amount = _count(groups["zh_n"], NUMBERS_ZH)
        unit = {"天": "day", "周": "week", "个星期": "week", "个月": "month", "年": "year"}[
            groups["zh_unit"]
        ]
        sign = 1 if "后" in groups["zh_dir"] else -1
        return _offset(amount, unit, sign, today)
    return None


def _count(text: str, words: dict[str, int]) -> int:
    return int(text) if text.isdigit() else words.get(text, 1)


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _span(relation: str, unit: str, today: date):
    step = {"next": 1, "last": -1, "this": 0}[relation]
    if unit == "week":
        return f"week of {(_monday(today) + timedelta(weeks=step)).isoformat()}"
    if unit == "weekend":
        saturday = _monday(today) + timedelta(days=5, weeks=step)
        return saturday
    if unit == "month":
        month_index = today.year * 12 + today.month - 1 + step
        return f"{month_index // 12:04d}-{month_index % 12 + 1:02d}"
    return str(today.year + step)


def _offset(amount: int, unit: str, sign: int, today: date):
    if unit == "day":
        return today + timedelta(days=sign * amount)
    if unit == "week":
        return today + timedelta(weeks=sign * amount)
    if unit == "month":
        month_index = today.year * 12 + today.month - 1 + sign * amount
        return f"{month_index // 12:04d}-{month_index % 12 + 1:02d}"
    return str(today.year + sign * amount)
