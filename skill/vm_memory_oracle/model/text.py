"""Tokens for lexical matching in English and Chinese (which has no spaces between words).

Latin-script text splits into words (lightly stemmed); runs of CJK characters become their
single characters and overlapping pairs, so "花生过敏" matches "对花生过敏" without a
dictionary.
"""

from __future__ import annotations

import re

from .fact import normalise

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")

STOPWORDS = frozenset("""
a an the and or but if of to in on at by for with from as is are was were be been being am
do does did have has had i me my we our you your he him his she her it its they them their
this that these those what which who whom whose when where why how there here about into
than then so not no yes can could would should will shall may might must just also very
please tell know remember recall any some all s t
""".split())
CJK_STOP_CHARS = frozenset("的了是在吗呢吧啊和与也都就么什我你他她它们这那个有")


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokens(text: str, *, pairs: bool = True) -> list[str]:
    """Lexical tokens of `text`, stop words dropped, in order (repeats kept); pairs=False
    leaves out the overlapping CJK character pairs, so each CJK character counts once."""
    result: list[str] = []
    normal = normalise(text)
    for piece in _WORD.findall(_CJK.sub(" ", normal)):
        if piece not in STOPWORDS:
            result.append(_stem(piece))
    for run in _CJK.findall(normal):
        chars = [char for char in run]
        result.extend(char for char in chars if char not in CJK_STOP_CHARS)
        if pairs:
            result.extend(run[i:i + 2] for i in range(len(run) - 1))
    return result
