"""Dates compare equal however they are written: the quality probe's expected_contains check."""

from datetime import date

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from vm_memory_oracle.model.dates_text import comparable, contains_expected, normalise_dates

MAY_15 = [
    "May 15, 2026",
    "May 15th, 2026",
    "15 May 2026",
    "15th of May 2026",
    "2026-05-15",
    "2026/05/15",
    "2026.05.15",
    "2026年5月15日",
    "2026 年 5 月 15 日",
    "Friday, May 15, 2026",
    "05/15/2026",
    "15/05/2026",
    "2026-5-15",
    "2026年5月15号",
]
SEPT_3 = [
    "Sept 3, 2026",
    "Sep. 3 2026",
    "3 Sept. 2026",
    "September 3rd, 2026",
    "3rd of September, 2026",
]


@pytest.mark.parametrize("written", MAY_15)
def test_may_15_written_any_way_is_iso(written):
    assert normalise_dates(written) == "2026-05-15"


@pytest.mark.parametrize("written", SEPT_3)
def test_abbreviated_and_full_september_are_iso(written):
    assert normalise_dates(written) == "2026-09-03"


@pytest.mark.parametrize(
    "written",
    ["MAY 15, 2026", "may 15th, 2026", "15 MAY 2026", "FRIDAY, may 15, 2026", "fri. 15 may 2026"],
)
def test_month_and_weekday_names_ignore_case(written):
    assert normalise_dates(written) == "2026-05-15"


def test_the_rest_of_a_sentence_is_unchanged():
    assert (
        normalise_dates("The project started on May 15, 2026.")
        == "The project started on 2026-05-15."
    )
    assert (
        normalise_dates("Met on 3 Sept. 2026 and 2026/05/15, again")
        == "Met on 2026-09-03 and 2026-05-15, again"
    )


def test_dates_inside_chinese_text_are_found():
    assert normalise_dates("项目于2026年5月15日开始") == "项目于2026-05-15开始"
    assert normalise_dates("项目于May 15, 2026开始") == "项目于2026-05-15开始"
    assert normalise_dates("项目于 2026 年 5 月 15 日 开始") == "项目于 2026-05-15 开始"


@pytest.mark.parametrize("written", ["03/04/2026", "1.2.2026", "12-11-2026"])
def test_numeric_dates_readable_two_ways_are_left_alone(written):
    assert normalise_dates(written) == written


def test_numeric_dates_with_equal_parts_read_the_same_either_way():
    assert normalise_dates("05/05/2026") == "2026-05-05"


@pytest.mark.parametrize(
    "written",
    [
        "Feb 30, 2026",
        "30 February 2026",
        "2026-02-30",
        "2026年2月30日",
        "31/04/2026",
        "2026-13-01",
        "Feb 29, 2025",
    ],
)
def test_invalid_dates_are_left_as_written(written):
    assert normalise_dates(written) == written


@pytest.mark.parametrize("written", ["May 15", "15 May", "15th of May", "5月15日", "05/15"])
def test_dates_without_a_year_are_left_as_written(written):
    assert normalise_dates(written) == written


@pytest.mark.parametrize(
    "written",
    [
        "version 1.2.3",
        "at 14:30",
        "in 2026",
        "v10.20.2026",
        "1.2026.05.15",
        "build 2026.05.151",
        "Mayor 15, 2026",
        "May 15, 2026.5",
        "20260515",
        "page 15 of 2026",
    ],
)
def test_versions_times_and_bare_numbers_are_not_dates(written):
    assert normalise_dates(written) == written


def test_expected_date_is_found_however_the_fact_writes_it():
    assert contains_expected("deployment project started on 2026-05-15", "May 15, 2026")
    assert contains_expected(
        "Deployment project started on 15th of May 2026", "started on 2026/05/15"
    )
    assert contains_expected("部署项目于2026年5月15日启动", "May 15, 2026")


def test_a_different_day_is_not_the_expected_date():
    assert not contains_expected("deployment project started on 2026-05-16", "May 15, 2026")


def test_empty_expected_matches_nothing():
    assert not contains_expected("anything at all", "")
    assert not contains_expected("anything at all", "   ")


def test_comparable_folds_case_width_and_whitespace():
    assert comparable("  Started\ton\n May 15, 2026  ") == "started on 2026-05-15"
    assert comparable("ＭＡＹ １５， ２０２６") == "2026-05-15"
    assert comparable("２０２６／０５／１５") == "2026-05-15"


# Every supported way of writing a date, as a function of the date.
_MONTHS_FULL = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _month_spellings(d: date) -> list[str]:
    full = _MONTHS_FULL[d.month - 1]
    spellings = [full, full[:3], full[:3] + ".", full.upper(), full.lower()]
    if d.month == 9:
        spellings += ["Sept", "Sept."]
    return spellings


FORMATS = [
    lambda d, m: f"{m} {d.day}, {d.year}",
    lambda d, m: f"{m} {_ordinal(d.day)}, {d.year}",
    lambda d, m: f"{m} {d.day} {d.year}",
    lambda d, m: f"{d.day} {m} {d.year}",
    lambda d, m: f"{_ordinal(d.day)} of {m} {d.year}",
    lambda d, m: f"{d:%A}, {m} {d.day}, {d.year}",
    lambda d, m: f"{d:%a} {d.day} {m} {d.year}",
    lambda d, m: f"{d:%Y-%m-%d}",
    lambda d, m: f"{d:%Y/%m/%d}",
    lambda d, m: f"{d:%Y.%m.%d}",
    lambda d, m: f"{d.year}-{d.month}-{d.day}",
    lambda d, m: f"{d.year}年{d.month}月{d.day}日",
    lambda d, m: f"{d.year} 年 {d.month} 月 {d.day} 日",
]
DATES = st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 12, 31))


@given(DATES, st.sampled_from(FORMATS), st.data())
def test_every_supported_format_normalises_to_iso(d, write, data):
    month = data.draw(st.sampled_from(_month_spellings(d)))
    assert normalise_dates(write(d, month)) == d.isoformat()


@given(DATES, st.sampled_from(["/", "-", "."]), st.booleans())
def test_numeric_day_month_year_is_read_only_when_unambiguous(d, sep, month_first):
    first, second = (d.month, d.day) if month_first else (d.day, d.month)
    written = f"{first:02d}{sep}{second:02d}{sep}{d.year}"
    unambiguous = d.day > 12 or d.day == d.month
    assert normalise_dates(written) == (d.isoformat() if unambiguous else written)


_FRAGMENTS = [
    "May 15, 2026",
    "15 May 2026",
    "2026-05-15",
    "2026.05.15",
    "05/15/2026",
    "2026年5月15日",
    "Friday, ",
    "May",
    "15",
    "2026",
    "1",
    " ",
    ".",
    "-",
    "/",
    ",",
    "年",
    "月",
    "日",
    "of ",
    "th",
    "v",
    "a",
]


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=12).map("".join))
@example("2026年5月15日15/05/15/2026")  # the rewritten date's digits met the next ones
def test_normalising_twice_changes_nothing_more(text):
    once = normalise_dates(text)
    assert normalise_dates(once) == once


@pytest.mark.parametrize("written", MAY_15 + SEPT_3)
def test_normalising_a_known_form_twice_changes_nothing_more(written):
    once = normalise_dates(f"on {written}.")
    assert normalise_dates(once) == once
