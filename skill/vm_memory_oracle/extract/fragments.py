"""Extraction's first phase: a turn split into semantic fragments, each classified.

Sentences are found by a maintained segmenter (sentencex: abbreviations, decimals, domain
names and quotes do not end a sentence), then split at semicolons, Chinese commas and
connectives (另外, 还有, 对了, 但是, 不过, 然而; but, also, however, by the way ...). A
fragment that is only a signal ("记住", "remember", "重要") is merged into the one after it,
so "记住，我讨厌香菜" stays one fragment that carries its signal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sentencex

STATEMENT, QUESTION, COMMAND, CHATTER = "statement", "question", "command", "chatter"
MAX_FRAGMENT_CHARS = 300

_CLAUSE_END = re.compile(r"(?<=[；;])|\n+")
_ZH_CLAUSE = re.compile(r"(?<=[，、])|(?<=,)\s*(?=[\u4e00-\u9fff])")  # ", 我..." too
_ZH_CONNECTIVE = re.compile(r"(?<=[^\s，,])(?=另外|还有|对了|但是|不过|然而|顺便说一下)")
_EN_CONNECTIVE = re.compile(
    r",?\s+(?=(?:but|however|also|plus|by the way|btw)\b)"
    r"|,?\s+and\s+(?=(?:i|i'm|i've|i'll|we|we're|we've|my)\b)"
    r"|,\s+(?=(?:i|i'm|i've|we|my)\s)",
    re.IGNORECASE,
)
_LONG_SPLIT = re.compile(r"(?<=[,，])\s*")

SIGNAL_ONLY = re.compile(
    r"^\s*(?:please\s+)?(?:remember(?: this| that)?|don'?t forget|important|this is important"
    r"|by the way|btw|fyi|note|also|but|and|so|plus|however|记住|记得|别忘了|重要|很重要|关键|"
    r"顺便说一下|顺便|对了|另外|还有|但是|不过|然而)"
    r"\s*[,，:：!！.。]*\s*$",
    re.IGNORECASE,
)

CHATTER_WORDS = frozenset(
    """
ok okay k kk yes yeah yep yup no nope sure thanks thank thx ty lol haha hahaha hehe hi hello
hey bye goodbye good great cool nice awesome wow hmm hm alright right got it sounds fine
perfect excellent amazing love it you too welcome see ya later morning night evening
congrats congratulations totally absolutely definitely indeed true exactly agreed oh ah
oops sorry np omg glad happy hear that's so to that is wonderful fantastic
""".split()
)
CHATTER_ZH = re.compile(
    r"^(?:好的?|好吧|嗯+|哦+|啊+|哈+|呵+|谢谢你?|多谢|是的?|对的?|行|可以|没问题|收到|"
    r"再见|拜拜|你好|您好|早上好|晚安|明白了?|知道了|了解|不客气|太好了|厉害|加油|"
    r"ok|OK|好|嗯嗯)+$"
)
_QUESTION_START = re.compile(
    r"^(?:what|when|where|who|whom|whose|why|how|which|do|does|did|is|are|was|were|can|could|"
    r"would|will|should|shall|have|has|had|may|might|isn't|aren't|don't|didn't|won't|any)\b",
    re.IGNORECASE,
)
_QUESTION_ZH = re.compile(
    r"(?:吗|呢|么|吧)[。！!.]?$|(?:是不是|能不能|可不可以|有没有|要不要|怎么样|为什么|什么时候)"
)
_COMMAND_START = re.compile(
    r"^(?:please|pls|can you|could you|would you|will you|help me|let me know|tell me|show me|"
    r"find|check|search|look up|open|run|send|write|make|create|book|schedule|fix|add|delete|"
    r"remove|list|give me|translate|summari[sz]e|explain|go ahead|let's see)\b",
    re.IGNORECASE,
)
_COMMAND_ZH = re.compile(r"^(?:请|帮我|帮忙|给我|麻烦|你帮|查一下|看一下|打开|发送|搜索)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass
class Fragment:
    text: str  # as said, connectives kept (signals are read from it)
    kind: str  # statement, question, command or chatter


# Whom a message in a group chat is addressed to ("@bot I am allergic to shellfish."): not
# part of what is said.
_MENTIONS = re.compile(r"^(?:@[\w.-]{1,64}[\s,:，：]*)+")


def split_turn(text: str, *, max_chars: int = MAX_FRAGMENT_CHARS) -> list[str]:
    pieces: list[str] = []
    for sentence in sentences(text):
        for clause in _ZH_CLAUSE.split(sentence):
            for part in _ZH_CONNECTIVE.split(clause):
                for piece in _EN_CONNECTIVE.split(part):
                    pieces.extend(stated_then_asked(piece))
    pieces = [_MENTIONS.sub("", piece.strip(" \t,，、")) for piece in pieces]
    pieces = [piece for piece in pieces if piece]
    merged: list[str] = []
    carry = ""
    for piece in pieces:
        if SIGNAL_ONLY.match(piece):
            carry = f"{carry}{piece} "
            continue
        merged.append(carry + piece)
        carry = ""
    if carry.strip():
        # A trailing signal ("..., by the way.") belongs to what came before it.
        if merged:
            merged[-1] = f"{merged[-1]} {carry.strip()}"
        else:
            merged.append(carry.strip())
    result: list[str] = []
    for piece in merged:
        result.extend(_cap_length(piece, max_chars))
    return result


# A question clause that ends a sentence and is addressed to the listener: an auxiliary and
# "you" ("have you heard of it?", "do you know if ...?"), or a question word with "you" or
# "your" in the clause ("what do you think?"). A clause of its own: after a comma, a colon
# or a dash. A tag ("..., right?") asks only to be agreed with: what it follows is most
# often an opinion of the moment ("Music's amazing, isn't it?"), and stays a question.
_TRAILING_QUESTION = re.compile(
    r"(?:\s*[,:;—–]\s*|\s+[-—–]\s+)"
    r"(?=(?:(?:and|so|but)\s+)?"
    r"(?:(?:have|has|had|do|does|did|can|could|would|will|are|were|is|was|should|shall|may|might)"
    r"(?:n't)?\s+(?:you|u|y'all)\b"
    r"|(?:what|how|which|where|who|when|why)\b[^,?]*\b(?:you|your|u)\b)"
    r"[^,:;?]*\?\s*$)",
    re.IGNORECASE,
)
# The Chinese one said without a comma before it ("...是《Z》你看过吗？"): a clause from 你 or
# 您 to the question's end (at a comma the sentence is split already).
_TRAILING_QUESTION_ZH = re.compile(r"(?<=[^\s，,])(?=(?:你|您)[^，,。？?]{0,20}[？?]\s*$)")
# What only leads into a question, stating nothing ("I was wondering, have you ...?").
_LEAD_IN = re.compile(
    r"^(?:i(?:'m| am| was)?\s+(?:just\s+)?(?:wondering|curious|thinking|asking)|just curious|"
    r"(?:a |one |quick )?(?:quick )?question|i (?:have|had|got) a question|i wanted to ask|"
    r"one more thing|out of curiosity|anyway|anyways|so|well|also|now)\b[^,]{0,20}$",
    re.IGNORECASE,
)
_LEAD_IN_ZH = re.compile(r"(?:想|觉得|认为|知道|问|说|请问)$")


def stated_then_asked(piece: str) -> list[str]:
    """`piece` as [the statement, the question] when it is a declarative clause followed by
    a question clause addressed to the listener ("The play I attended was actually X, have
    you heard of it?"): the statement is learned as one ending in a full stop would be, the
    question dropped. Otherwise [piece], so a question that states nothing ("Have you heard
    of X?", "Is it a Y, do you know?") stays one."""
    if not piece.rstrip().endswith(("?", "？")):
        return [piece]
    for found in [*_TRAILING_QUESTION.finditer(piece), *_TRAILING_QUESTION_ZH.finditer(piece)]:
        head, tail = piece[: found.start()].strip(), piece[found.end() :].strip()
        lead = _without_signal_prefix(head)
        if SIGNAL_ONLY.match(head) or _LEAD_IN.match(lead) or _LEAD_IN_ZH.search(lead):
            continue
        if len(_WORD.findall(lead)) < 3 and len(re.findall(r"[\u4e00-\u9fff]", lead)) < 3:
            continue  # too short to state anything ("Cute, did you ...?")
        if classify(_without_signal_prefix(head)) == STATEMENT:
            return [head, tail]
    return [piece]


def sentences(text: str) -> list[str]:
    """`text`'s sentences, then its clauses ended by a semicolon or a line break."""
    found = []
    for line in text.split("\n"):
        for sentence in sentencex.segment("en", line):
            found += [part for part in _CLAUSE_END.split(sentence) if part.strip()]
    return found


def _cap_length(piece: str, max_chars: int) -> list[str]:
    if len(piece) <= max_chars:
        return [piece]
    parts, current = [], ""
    for chunk in _LONG_SPLIT.split(piece):
        if current and len(current) + len(chunk) > max_chars:
            parts.append(current.strip())
            current = ""
        while len(chunk) > max_chars:
            parts.append(chunk[:max_chars])
            chunk = chunk[max_chars:]
        current += chunk + " "
    if current.strip():
        parts.append(current.strip())
    return parts


def classify(text: str) -> str:
    core = text.strip()
    if _PHOTO_ONLY.fullmatch(core):
        return CHATTER  # a shared picture's caption alone: the turn keeps it, as context
    core = _GREETING.sub("", core, count=1).strip() or core
    words = [word.lower() for word in _WORD.findall(core)]
    if not words or (_GREETING.match(text.strip()) and len(words) <= 2):
        return CHATTER
    if _THANKS.match(core) and len(words) <= _MAX_REACTION_WORDS:
        return CHATTER
    plain = _without_vocative(core).replace("’", "'")
    if _AGREEMENT.fullmatch(plain) or _CATCH_UP.fullmatch(plain):
        return CHATTER
    bare = re.sub(r"[\s,，.。!！?？~～…:：;；'\"]+", "", core)
    if CHATTER_ZH.match(bare) or all(word in CHATTER_WORDS for word in words):
        return CHATTER
    if _is_reaction(core, words):
        return CHATTER
    if _COMMAND_START.match(core) or _COMMAND_ZH.match(core):
        return COMMAND  # "can you ...?" asks for something to be done
    if core.endswith(("?", "？")) or _QUESTION_ZH.search(core):
        return QUESTION
    if _QUESTION_START.match(core) and not core.endswith((".", "。", "!", "！")):
        return QUESTION
    return STATEMENT


# A picture shared with no words of its own: "[photo: a dog on a beach]".
_PHOTO_ONLY = re.compile(
    r"\[(?:photo|image|picture|shares? an? (?:photo|image|picture))"
    r"(?::[^\]]*)?\]",
    re.IGNORECASE,
)
# "Hey Caroline, ..." / "Hi!" / "Good morning, Mel." opening a sentence.
_GREETING = re.compile(
    r"^(?:hey|hi|hello|hiya|howdy|yo|heya|good (?:morning|afternoon|evening))"
    r"\b(?:\s+(?:there|guys|all|[A-Z][\w'-]*))?\s*[,!.～~]*\s*",
    re.IGNORECASE,
)
_THANKS = re.compile(
    r"^(?:thanks|thank you|thx|ty|many thanks|much appreciated|i appreciate "
    r"(?:it|that|you|your)|谢谢|多谢|感谢)\b",
    re.IGNORECASE,
)
# A reaction in the first person that says nothing about the speaker's own life.
_AGREEMENT = re.compile(
    r"(?:me too|same here|same|i agree|i totally agree|i completely agree|i know,? right|i know|"
    r"i understand|i get it|i totally get (?:it|that|you)|i hear you|i can imagine|i bet|"
    r"i hope so|i think so|i guess so|i see|i feel (?:the )?same(?: way)?(?: too)?|i feel you|"
    r"i feel that|i love (?:that|it|this|them)(?: so much| a lot| too)?|"
    r"i(?:'m| am) (?:so |really |very |just |super )*(?:happy|glad|proud|sorry|thrilled|excited|"
    r"stoked) (?:for you|of you|to hear (?:that|it|this|about it)|you (?:liked|like|enjoyed|"
    r"had|are|'re|found|got)[^.!?]{0,30})|"
    r"i can(?:'t|not) wait to (?:see|hear)[^.!?]{0,30}|i(?:'d| would) love to (?:see|hear)"
    r"[^.!?]{0,30}|i(?:'m| am) (?:all )?ears|you too|likewise|good luck[^.!?]{0,30})"
    r"[\s,.!?~…]*",
    re.IGNORECASE,
)
# "So much since we talked!", "It's been ages!": the small talk that opens a conversation.
_CATCH_UP = re.compile(
    r"(?:(?:(?:so much|a lot|lots|much)(?: has)?(?: happened| going on)?\s*)?(?:since we (?:last )?"
    r"(?:talked|chatted|spoke|caught up|saw each other|met))|(?:it's|it has) been (?:a while|ages|"
    r"too long|forever|so long|a minute)[^.!?]{0,30}|long time no (?:see|talk|chat)"
    r"|(?:great|good|nice|so good) (?:to|talking to|chatting with) (?:see|hear from|chat with|"
    r"talk to|catch up with)? ?you[^.!?]{0,20})"
    r"[\s,.!?~…]*",
    re.IGNORECASE,
)
_VOCATIVE = re.compile(r",?\s*[A-Z][\w'-]*\s*([.!?~…]*)$")


def _without_vocative(text: str) -> str:
    """ "I feel the same way, Mel!" -> "I feel the same way!"."""
    return _VOCATIVE.sub(r"\1", text) if "," in text else text


_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'll|i'd|me|my|mine|we|we're|we've|our|ours|us)\b", re.IGNORECASE
)
_REACTION_START = re.compile(
    r"^(?:wow|woah|whoa|aw+|omg|yay|congrats|congratulations|glad|so glad|sounds|looks|that's|"
    r"thats|that is|that was|that must|that sounds|it sounds|it looks|what a|how (?:cool|nice|"
    r"awesome|great|sweet|fun)|you're|you are|you must|you should be|good for you|so (?:cool|"
    r"nice|awesome|great|sweet|fun|proud))\b",
    re.IGNORECASE,
)
_MAX_REACTION_WORDS = 10


def _is_reaction(core: str, words: list[str]) -> bool:
    """A short reaction to what someone else said ("Wow, that's cool, Caroline!").

    It says nothing about the speaker's own life: no first person, no number.
    """
    if len(words) > _MAX_REACTION_WORDS or _FIRST_PERSON.search(core.replace("’", "'")):
        return False
    if any(word.isdigit() for word in words):
        return False
    return bool(_REACTION_START.match(core)) or (core.endswith(("!", "！")) and len(words) <= 6)


def fragments(text: str) -> list[Fragment]:
    return [Fragment(piece, classify(_without_signal_prefix(piece))) for piece in split_turn(text)]


_SIGNAL_PREFIX = re.compile(
    r"^(?:(?:(?:please\s+)?(?:remember(?: this| that)?|don'?t forget(?: that)?|important|"
    r"this is important|by the way|btw|fyi|note|also|but|however|plus|and|well|oh|actually)\b"
    r"|so\b(?=\s*[,，]|\s+(?:i|i'm|i've|we|my)\b)"
    r"|记住|记得|别忘了|重要|很重要|关键|顺便说一下|顺便|对了|另外|还有|但是|不过|然而)"
    r"\s*[,，:：!！.。]*\s*)+",
    re.IGNORECASE,
)


def _without_signal_prefix(text: str) -> str:
    return _SIGNAL_PREFIX.sub("", text).strip() or text


# What opens a spoken sentence without adding to it: "Hey Joanna, yeah, ...", "Wow! ...".
_OPENING = re.compile(
    r"^(?:(?:(?:hey|hi|hello|hiya|yo)(?:\s+(?:there|guys|[A-Z][\w'-]*))?|yeah|yes|yep|yup|oh|"
    r"ooh|wow|whoa|haha|hahaha|lol|omg|aww+|ah|well|absolutely|totally|definitely|sure|true|"
    r"exactly|right|okay|ok|thanks|thank you|good question|great question|嗯|哈哈|哇|是的|对)"
    r"\s*[,!.～~…，！。]+\s*|(?:yeah|yes|yep|oh|well|okay|ok)\s+(?=[a-z]))",
    re.IGNORECASE,
)


def content_of(text: str) -> str:
    """The fragment without its leading signals and connectives (what patterns read)."""
    return _without_signal_prefix(text)


def without_opening(text: str) -> str:
    """`text` without what opens a spoken sentence and adds nothing to it ("Yeah, ...",
    "Hey Joanna, ...", "Wow! ..."), its first letter raised; a "Name: " in front stays.
    For lines to read (MEMORY.md): the fact keeps its words, which recall matches."""
    prefix, _, rest = text.partition(": ")
    if not rest or " " in prefix or len(prefix) > 40:
        prefix, rest = "", text
    content = rest
    for _ in range(3):
        shorter = _without_signal_prefix(_OPENING.sub("", content, count=1))
        if shorter == content or not shorter:
            break
        content = shorter
    if content == rest:
        return text
    content = content[:1].upper() + content[1:]
    return f"{prefix}: {content}" if prefix else content
