"""Subject-predicate-object patterns for first-person statements, English and Chinese.

Each pattern reads a fragment's content (signals and connectives already stripped) and
names the predicate, the category (which sets the intrinsic importance) and, for English,
the sentence the fact is written as. Chinese facts are written as the fragment itself with
its speaker in place of 我.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A sentence's end, and an object that runs up to it: a dot inside a word ("api.example.org",
# "3.5") neither ends the one nor cuts the other.
_END = r"(?=$|[,!?;，。！？；]|\.(?![\w/]))"
_OBJ = r"(?P<o>(?:[^.!?;。！？；]|\.(?=[\w/]))+?)"
_NAME = r"(?P<o>[A-Z][\w'-]*(?: [A-Z][\w'-]*){0,2})"
_ADV = r"(?:currently |now |still |actually |really |just |recently |finally )?"

RELATIVES_EN = (
    "wife|husband|partner|girlfriend|boyfriend|fiancee?|son|daughter|kids?|children|"
    "mother|mom|mum|father|dad|brother|sister|grandmother|grandma|grandfather|grandpa|"
    "boss|manager|best friend|friend|colleague|coworker|roommate|cat|dog|pet"
)
RELATIVES_ZH = (
    "妻子|老婆|丈夫|老公|男朋友|女朋友|儿子|女儿|孩子|妈妈|母亲|爸爸|父亲|哥哥|弟弟|姐姐|妹妹|"
    "爷爷|奶奶|外公|外婆|朋友|同事|老板|室友|猫|狗"
)
JOBS_EN = (
    "engineer|developer|programmer|teacher|doctor|nurse|designer|manager|student|lawyer|"
    "scientist|writer|artist|consultant|accountant|analyst|researcher|professor|chef|"
    "architect|counselor|therapist|musician|photographer|entrepreneur|founder|pilot"
)
JOBS_ZH = (
    "工程师|程序员|老师|教师|医生|护士|设计师|经理|学生|律师|作家|研究员|教授|厨师|会计|产品经理"
)


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern
    predicate: str  # may hold {k} (filled from the match) or {p} (from PREDICATE_WORDS)
    category: str
    template: str | None  # English sentence with {s}, {o}, {k}; None: the fragment itself


@dataclass(frozen=True)
class Match:
    predicate: str
    obj: str
    category: str
    text: str | None
    when: str | None = None  # a time said after the object ("last month"), kept apart


PREDICATE_WORDS = {
    "love": "loves",
    "like": "likes",
    "enjoy": "enjoys",
    "prefer": "prefers",
    "adore": "loves",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "hates",
    "can't stand": "hates",
    "cannot stand": "hates",
    "don't like": "dislikes",
    "do not like": "dislikes",
    "喜欢": "喜欢",
    "爱": "喜欢",
    "偏好": "偏好",
    "更喜欢": "偏好",
    "讨厌": "讨厌",
    "不喜欢": "不喜欢",
    "厌恶": "讨厌",
    "受不了": "讨厌",
}


def _en(regex: str, predicate: str, category: str, template: str) -> Pattern:
    return Pattern(re.compile(regex, re.IGNORECASE), predicate, category, template)


def _zh(regex: str, predicate: str, category: str) -> Pattern:
    return Pattern(re.compile(regex), predicate, category, None)


ENGLISH = (
    # identity
    _en(
        rf"^(?:my name is|my name's|i am called|i'm called|call me|people call me) {_NAME}",
        "name",
        "identity",
        "{s}'s name is {o}",
    ),
    _en(r"^i(?:'m| am) (?P<o>\d{1,3}) years? old", "age", "identity", "{s} is {o} years old"),
    _en(
        rf"^i(?:'m| am) (?:originally )?from {_OBJ}{_END}", "is_from", "identity", "{s} is from {o}"
    ),
    _en(rf"^i {_ADV}live in {_OBJ}{_END}", "lives_in", "identity", "{s} lives in {o}"),
    _en(
        rf"^i(?:'m| am) {_ADV}(?:based|living|staying) in {_OBJ}{_END}",
        "lives_in",
        "identity",
        "{s} lives in {o}",
    ),
    _en(
        rf"^i(?: have|'ve)? {_ADV}(?:moved|relocated) (?:back )?to {_OBJ}{_END}",
        "lives_in",
        "state",
        "{s} lives in {o}",
    ),
    _en(
        rf"^i {_ADV}work (?:at|for) {_OBJ}(?= as an? |$|[,.!?;])",
        "works_at",
        "identity",
        "{s} works at {o}",
    ),
    _en(
        rf"^i(?: have|'ve)? {_ADV}(?:joined|started (?:working )?at) {_OBJ}{_END}",
        "works_at",
        "state",
        "{s} works at {o}",
    ),
    _en(rf"^i {_ADV}work as (?:an? )?{_OBJ}{_END}", "job", "identity", "{s} works as {o}"),
    _en(
        rf"^i(?:'m| am) {_ADV}an? (?P<o>[\w -]*?(?:{JOBS_EN}))\b", "job", "identity", "{s} is a {o}"
    ),
    # health and safety
    _en(
        rf"^i(?:'m| am) (?:severely |very |highly |deathly )?allergic to {_OBJ}{_END}",
        "allergic_to",
        "health",
        "{s} is allergic to {o}",
    ),
    _en(
        rf"^i have (?:an? |a severe |severe )?allerg(?:y|ies) to {_OBJ}{_END}",
        "allergic_to",
        "health",
        "{s} is allergic to {o}",
    ),
    _en(
        rf"^i (?:can't|cannot|can not|don't|do not) eat {_OBJ}{_END}",
        "cannot_eat",
        "health",
        "{s} cannot eat {o}",
    ),
    _en(
        rf"^i(?: have|'ve)? (?:been |was )?diagnosed with {_OBJ}{_END}",
        "has_condition",
        "health",
        "{s} has {o}",
    ),
    _en(
        r"^i have (?P<o>diabetes|asthma|epilepsy|celiac disease|hypertension|high blood pressure|"
        r"a heart condition|adhd|migraines)",
        "has_condition",
        "health",
        "{s} has {o}",
    ),
    # relationships
    _en(
        rf"^my (?P<k>{RELATIVES_EN})(?:'s name)? is (?:called |named )?{_NAME}",
        "has_{k}",
        "relationship",
        "{s}'s {k} is {o}",
    ),
    _en(
        rf"^i have an? (?P<k>{RELATIVES_EN}) (?:called|named) {_NAME}",
        "has_{k}",
        "relationship",
        "{s}'s {k} is {o}",
    ),
    _en(rf"^{_NAME} is my (?P<k>{RELATIVES_EN})\b", "has_{k}", "relationship", "{s}'s {k} is {o}"),
    _en(
        rf"^i(?:'m| am) (?:married|engaged) to {_OBJ}{_END}",
        "married_to",
        "relationship",
        "{s} is married to {o}",
    ),
    # preferences
    _en(
        rf"^my fav(?:ou?rite) (?P<k>[\w ]+?) is {_OBJ}{_END}",
        "favorite_{k}",
        "preference",
        "{s}'s favorite {k} is {o}",
    ),
    _en(
        rf"^i (?:really |absolutely |just |totally |also |usually |always |generally )?"
        rf"(?P<p>love|like|enjoy|prefer|adore) {_OBJ}{_END}",
        "{p}",
        "preference",
        "{s} {p} {o}",
    ),
    # a preference shown in passing: "I've been into hiking lately", "I'm a big fan of jazz"
    _en(
        rf"^(?:lately |recently |these days )?i(?:'m| am|'ve been| have been|'ve gotten| have "
        rf"gotten|'ve got| got) (?:really |very |quite |so |totally )?into {_OBJ}"
        rf"(?= lately| recently| these days|{_END})",
        "is_into",
        "preference",
        "{s} is into {o}",
    ),
    _en(
        rf"^i(?:'m| am) (?:a )?(?:big |huge |great |massive )?fan of {_OBJ}{_END}",
        "likes",
        "preference",
        "{s} likes {o}",
    ),
    _en(
        rf"^i (?:really |absolutely |just |totally )?"
        rf"(?P<p>hate|dislike|detest|can't stand|cannot stand|"
        rf"don't like|do not like) {_OBJ}{_END}",
        "{p}",
        "preference",
        "{s} {p} {o}",
    ),
    # decisions
    _en(
        rf"^(?:we|i)(?: have|'ve)? (?:finally |just )?(?:decided|agreed|chose|settled on)"
        rf"(?: to| on| that)? {_OBJ}{_END}",
        "decided",
        "decision",
        "{s} decided: {o}",
    ),
    _en(rf"^(?:let's|let us) go with {_OBJ}{_END}", "decided", "decision", "{s} decided: {o}"),
    _en(
        rf"^(?:the )?decision(?: is| was)?[:]? {_OBJ}{_END}",
        "decided",
        "decision",
        "{s} decided: {o}",
    ),
    # action items
    _en(
        rf"^(?:todo|to-do|to do|action item)\s*[:-]\s*{_OBJ}{_END}",
        "needs_to",
        "action",
        "{s} needs to {o}",
    ),
    _en(
        rf"^i (?:really )?(?:need|have|got) to {_OBJ}{_END}",
        "needs_to",
        "action",
        "{s} needs to {o}",
    ),
    _en(rf"^i must {_OBJ}{_END}", "needs_to", "action", "{s} needs to {o}"),
    _en(rf"^(?:please )?remind me to {_OBJ}{_END}", "needs_to", "action", "{s} needs to {o}"),
    _en(
        rf"^(?:please )?(?:remember|don't forget) to {_OBJ}{_END}",
        "needs_to",
        "action",
        "{s} needs to {o}",
    ),
)

_ME = r"^(?:我)?"
_ZH_OBJ = r"(?P<o>[^，。！？；,!?;]+)"
CHINESE = (
    _zh(
        rf"{_ME}(?:叫|的名字是|名字(?:叫|是))(?P<o>[^，。！？；,!?;\s]{{1,20}})$",
        "name",
        "identity",
    ),
    _zh(rf"{_ME}今年(?P<o>\d{{1,3}})岁", "age", "identity"),
    _zh(rf"{_ME}(?:现在|目前|一直)?住在{_ZH_OBJ}", "lives_in", "identity"),
    _zh(rf"{_ME}(?:已经|最近|刚刚?)?搬(?:家)?(?:到|去)了?{_ZH_OBJ}", "lives_in", "state"),
    _zh(rf"{_ME}(?:现在|目前)?在(?P<o>[^，。！？；,!?;]+?)(?:上班|工作)", "works_at", "identity"),
    _zh(
        rf"{_ME}(?:现在|目前)?是(?:一名|一个|个)?(?P<o>[^，。！？；,!?;]*?(?:{JOBS_ZH}))",
        "job",
        "identity",
    ),
    _zh(rf"{_ME}对(?P<o>[^，。！？；,!?;]+?)(?:严重)?过敏", "allergic_to", "health"),
    _zh(rf"{_ME}(?P<o>[^，。！？；,!?;对]+?)过敏", "allergic_to", "health"),
    _zh(rf"{_ME}(?:不能吃|不吃|忌口){_ZH_OBJ}", "cannot_eat", "health"),
    _zh(
        rf"^(?:我的?)(?P<k>{RELATIVES_ZH})(?:的名字)?(?:叫|是){_ZH_OBJ}", "has_{k}", "relationship"
    ),
    _zh(rf"{_ME}最喜欢的(?P<k>[^，。！？；,!?;]+?)是{_ZH_OBJ}", "favorite_{k}", "preference"),
    _zh(
        rf"{_ME}(?:很|非常|特别|超|真的|也)?(?P<p>不喜欢|讨厌|厌恶|受不了){_ZH_OBJ}",
        "{p}",
        "preference",
    ),
    _zh(
        rf"{_ME}(?:很|非常|特别|超|真的|也)?(?P<p>更喜欢|喜欢|爱|偏好){_ZH_OBJ}",
        "{p}",
        "preference",
    ),
    _zh(rf"^(?:我们|我)?(?:已经|最终|最后)?决定了?{_ZH_OBJ}", "decided", "decision"),
    _zh(rf"^(?:待办|TODO|todo)[:：]?{_ZH_OBJ}", "needs_to", "action"),
    _zh(rf"^(?:提醒我|记得|别忘了){_ZH_OBJ}", "needs_to", "action"),
    _zh(rf"{_ME}(?:需要|得|必须){_ZH_OBJ}", "needs_to", "action"),
    _zh(
        r"^(?:我们|我)?(?:[^，。！？；,!?;要]{0,12})?要(?P<o>[^，。！？；,!?;]+)",
        "needs_to",
        "action",
    ),
)

_TRAILING_EN = re.compile(
    r"(?:\s+(?:now|currently|these days|at the moment|too|as well|actually|"
    r"anymore|lol|haha))+$",
    re.IGNORECASE,
)
_TRAILING_ZH = re.compile(r"[了啦呢的哦呀吧啊]+$")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_FIRST_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


def chinese(text: str) -> bool:
    """Whether `text` is read as Chinese: its first letter is a Chinese character (so
    "I moved to 上海" is English and "我住在Berlin" Chinese)."""
    first = _FIRST_LETTER.search(text)
    return bool(first and _CJK.match(first.group()))


def match_statement(content: str) -> Match | None:
    """The first pattern that reads `content` as a fact, or None."""
    table = CHINESE if chinese(content) else ENGLISH
    for pattern in table:
        found = pattern.regex.search(content)
        if not found:
            continue
        groups = found.groupdict()
        obj, when = _tidy(groups["o"]), None
        if pattern.category not in ("action", "decision"):  # a task keeps its date
            obj, when = _split_when(obj)
        if not obj:
            continue
        key = (groups.get("k") or "").strip().lower()
        word = (groups.get("p") or "").lower()
        predicate = pattern.predicate.format(
            k=key.replace(" ", "_"), p=PREDICATE_WORDS.get(word, word)
        )
        text = None
        if pattern.template is not None:
            text = pattern.template.format(s="{s}", o=obj, k=key, p=PREDICATE_WORDS.get(word, word))
        return Match(predicate, obj, pattern.category, text, when)
    return None


_WHEN_EN = re.compile(
    r"\s+((?:since |from |until |by |on |in )?"
    r"(?:(?:last|next|this|coming) (?:week|weekend|month|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|yesterday|today|tonight|tomorrow|"
    r"recently|lately|(?:a|an|one|two|three|four|five|six|\d+) (?:days?|weeks?|months?|years?) ago|"
    r"in (?:19|20)\d\d))$",
    re.IGNORECASE,
)


def _split_when(value: str) -> tuple[str, str | None]:
    """'Shanghai last month' -> ('Shanghai', 'last month')."""
    found = _WHEN_EN.search(value)
    if not found:
        return value, None
    return value[: found.start()].strip(), found.group(1)


def _tidy(value: str) -> str:
    value = value.strip(" \t,，.。!！?？;；:：\"'“”")
    value = _TRAILING_EN.sub("", value)
    value = _TRAILING_ZH.sub("", value)
    return value.strip()
