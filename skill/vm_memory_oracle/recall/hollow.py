"""Hollow episodes: turns that hold the query's words or meaning yet are no evidence of its
answer.

An episode is hollow for a query when none of its fragments (extract/fragments.py: a turn
split into sentences and clauses, each classified) states anything: each is one of
- chatter (a greeting, thanks, a reaction: the fragment kind CHATTER);
- a question or a request all of whose evidence terms the query holds: an earlier asking of
  the same question ("What am I allergic to?", "我对什么过敏？") is not evidence of its
  answer, whoever asked it;
- the assistant speaking of itself or of the talk, not of the person's life: that it does
  not know, could not find, has no record ("I'm a large language model, I don't have
  personal experiences or memories, so I didn't know you had a dog named Lola"), or a
  pleasantry or an acknowledgement ("I hope Lola is doing well!", "I'll keep that in mind").
  A person saying "I don't have a car" or "I hope to move to Porto" states their life, so
  this holds for the assistant's turns only.

What goes into a prompt without being asked for (the plugin's auto-recall, Asked.injected)
leaves out every turn that only asks, whatever its words: "Which allergies do I have?"
holds "have", which "Which allergies should the menu avoid?" does not, yet tells the model
nothing of the answer, and it would take one of the few places the statement needs.

Such a turn shares the query's words and meaning (it repeats the question, or echoes the
person's statement) and so ranks high in the episodes' lists, above the statement that
answers. Recall keeps it, since it is what was said, and it stays in episodes/ and the
session log, but lists it after every fact and every episode that is not hollow
(sources/episodes.py marks it, fusion.with_episodes places it). An assistant's turn with
anything of substance (a recommendation, a fact it stated, a list) is not hollow: any
fragment that is none of the above makes the turn evidence as before. Read at recall time
from the episode's text, so memories made before this rule benefit without being learned
again.
"""

from __future__ import annotations

import re
from functools import cached_property, lru_cache

from ..episodes import Episode
from ..model.text import evidence_terms

ASSISTANT = "assistant"  # the speaker of an assistant's turns (the log's role)
# What a contraction leaves of its second word ("I'm", "you've", "we'll", "I'd"): "Do you
# remember what I'm allergic to?" asks what "What am I allergic to?" does.
_CONTRACTED = frozenset(("m", "re", "ve", "ll", "d"))

# Words that open a sentence without changing what it says of the speaker: "Unfortunately,
# I don't ...", "I'm sorry, but ...", "Oh, ...".
_LEAD = (
    r"(?:(?:unfortunately|sadly|honestly|actually|well|oh|ah|hmm|but|however|so|and|"
    r"i'?m (?:so |very |really )?sorry|i am sorry|sorry|my apologies|apologies|"
    r"i apologi[sz]e(?: for [^,.!?]{0,40})?|to be honest|as of now|"
    r"抱歉|对不起|不好意思|很遗憾|可惜|不过|但是)\s*[,，:：!！.。]*\s*)*"
)
# The assistant saying it does not know, could not find, or has no record or memory of what
# is asked; that it is a program that cannot know; that the talk holds nothing of it.
_KNOWS_NOTHING = re.compile(
    _LEAD + r"(?:i (?:do ?n[o']?t|did ?n[o']?t) (?:know|have|remember|recall|see|find|possess|"
    r"retain|store|keep|get|track)\b"
    r"|i(?:'?m| am) not (?:sure|certain|aware|able)\b|i(?:'?m| am) (?:unable|unaware|afraid i)\b"
    r"|i (?:can ?not|can't|could ?n[o']?t|was ?n[o']?t able to|have ?n[o']?t been able to) "
    r"(?:find|recall|remember|access|browse|see|know|tell|say|retrieve|look|locate|verify|"
    r"confirm|determine|provide|remind|keep track)\b"
    r"|i (?:have|had|keep|retain) no (?:record|information|memory|memories|knowledge|access|"
    r"way|idea|details|data|recollection|personal|previous|prior|history)\b"
    r"|i lack\b"
    r"|there(?: is| are| was| were|'s) no (?:record|information|mention|data|details|history|"
    r"previous|prior|earlier)\b"
    r"|(?:as|i'?m|i am)(?: just| only| merely)? (?:an? )?(?:ai|artificial intelligence|"
    r"(?:large )?language model|llm|chatbot|computer program|virtual assistant|"
    r"digital assistant)\b"
    r"|(?:this is|it'?s) (?:the start|the beginning|our first|the first)\b"
    r"|we (?:have ?n[o']?t|did ?n[o']?t) (?:discuss|talk|speak|spoke|chat)"
    r"|我(?:并)?(?:不知道|不清楚|不确定|不记得|记不得|记不清|没有印象|无从得知|无法(?:得知|知道|"
    r"确定|访问|获取|查到|找到|记住|回忆|提供))"
    r"|我(?:这里|这边)?没有?(?:找到|查到|关于|任何|你的|您的|相关|之前|以前|过往|个人|记录|"
    r"信息|资料|记忆|数据|访问)"
    r"|我(?:找不到|查不到|没法|看不到)"
    r"|(?:没有|未能|没能)(?:找到|查到)"
    r"|(?:作为|我(?:只)?是)(?:一个|一名|一款)?(?:ai|人工智能|(?:大型)?语言模型|聊天机器人|"
    r"ai助手|虚拟助手))",
    re.IGNORECASE,
)
# A pleasantry or an acknowledgement: a wish, thanks, an apology, "noted", an offer of more
# help. It says how the assistant takes what was said, not what was said; an imperative
# that advises ("Enjoy the ramen at Ichiran", "Have a look at the Hoshinoya") is no
# pleasantry.
_PLEASANTRY = re.compile(
    _LEAD + r"(?:i (?:really |truly |sincerely )?hope\b|hope (?:this|that|it|you|your|everything|"
    r"all)\b|i wish you\b|wishing you\b|best of luck\b|good luck\b|best wishes\b"
    r"|have (?:fun|a (?:great|good|nice|wonderful|fantastic|lovely|safe|fun|blast|relaxing)|"
    r"an (?:amazing|awesome|excellent|enjoyable))\b"
    r"|enjoy (?:your|yourself|it|the rest|every)\b|take care\b|stay safe\b"
    r"|you(?:'?re| are) (?:very |so |most )?welcome\b|(?:it'?s |it is )?my pleasure\b"
    r"|(?:i'?m |i am )?(?:so |very |really )?(?:glad|happy|pleased) (?:i could|to help|"
    r"to hear|you)\b"
    r"|feel free\b|(?:please )?(?:let me know|don'?t hesitate)\b"
    r"|if you have any (?:other |more |further |additional )?(?:questions|concerns|other|"
    r"more|further)\b"
    r"|(?:i'?ll|i will) (?:keep (?:that|this|it|them|those) in mind|make (?:a )?note|"
    r"remember (?:that|this|it))\b|(?:i'?ve|i have) (?:noted|made a note|taken note)\b"
    r"|noted\b|got it\b|understood\b|i (?:understand|see)\b|that makes sense\b"
    r"|thank(?:s| you)\b|i appreciate\b|(?:i'?m |i am )?(?:so |very |really )?sorry\b"
    r"|(?:my )?apologies\b|i apologi[sz]e\b|congratulations\b|congrats\b"
    r"|希望|祝你|祝您|不客气|很高兴|谢谢|感谢|我会记住|我记住了|记下了|抱歉|对不起|不好意思|恭喜"
    r"|(?:好的|明白了?|了解了?|收到|没问题)(?=[\s，,。.!！~～]|$))",
    re.IGNORECASE,
)


def hollow(episode: Episode, query_terms: set[str], *, any_question: bool = False) -> bool:
    """Whether `episode` is no evidence of the answer to a query of evidence terms
    `query_terms` (Query.terms): every fragment of it chatter, a question or request the
    query already asks (with `any_question`, any question or request), or, said by the
    assistant, that it does not know or a pleasantry. A text with no fragment at all is not
    hollow (nothing was read of it). The fragments are read in order until one states
    something: most turns are evidence by their first."""
    pieces = _pieces(episode.text)
    return bool(pieces) and all(
        fragment.chatter
        or (fragment.asks and (any_question or fragment.terms <= query_terms))
        or (episode.speaker == ASSISTANT and fragment.of_the_talk)
        for fragment in map(_Fragment.of, pieces)
    )


@lru_cache(maxsize=4096)
def _pieces(text: str) -> tuple[str, ...]:
    """`text` split into fragments as extraction splits a turn (extract/fragments.py). Kept
    for the texts read last, as each fragment's reading is: a long-lived recall process
    meets the same turns again."""
    from ..extract.fragments import split_turn

    return tuple(split_turn(text))


class _Fragment:
    """What the rule reads of one fragment of a turn: its kind as extraction classifies it
    (extract.fragments.fragments), and the rest when first asked."""

    def __init__(self, text: str):
        from ..extract.fragments import CHATTER, COMMAND, QUESTION, classify, content_of

        content = content_of(text)  # without its leading signals ("by the way", "also")
        kind = classify(content)
        self.content = content.replace("\u2019", "'")
        self.chatter = kind == CHATTER  # greetings, thanks, reactions
        self.asks = kind in (QUESTION, COMMAND)  # a question or a request

    @staticmethod
    @lru_cache(maxsize=16384)
    def of(text: str) -> _Fragment:
        return _Fragment(text)

    @cached_property
    def terms(self) -> frozenset[str]:
        """Its evidence terms, without what a contraction leaves."""
        return frozenset(evidence_terms(self.content)) - _CONTRACTED

    @cached_property
    def of_the_talk(self) -> bool:
        """It says the speaker does not know, or is a pleasantry or an acknowledgement."""
        return bool(_KNOWS_NOTHING.match(self.content) or _PLEASANTRY.match(self.content))
