"""Salience: how much a statement deserves remembering, from 0 (small talk) to 1.

A logistic model over cheap features of the statement and its turn (first person, a named
entity, a number or date, length, a question or greeting in the turn, a photo, ...) and,
when the memory embeds with the bundled model, the statement's passage embedding (the same
vector the index keeps). Its weights ship beside this module (salience.json, a few
kilobytes), trained by benchmarks/salience_training.py, one model for each kind of
conversation, because what is worth keeping differs between them:
- between people (PEOPLE), on the LoCoMo development conversations: a statement is salient
  when its turn is the evidence of one of LoCoMo's per-speaker observations or of a
  question;
- a person with an assistant (ASSISTANT), on the LongMemEval development split: a statement
  is salient when its turn is the evidence of a question asked weeks later. The embedding
  added nothing held out there, so that model reads the features alone.
Its training figures are in references/scoring.md. Without the bundled model the features
alone decide (a model trained on them alone, also shipped).

Pure: features in, scores out; the caller embeds.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..model.text import FIRST_PERSON, FIRST_PLURAL, SECOND_PERSON

WEIGHTS = Path(__file__).with_name("salience.json")

FEATURES = (
    "first_person",
    "second_person",
    "first_person_plural",
    "named_entity",
    "number_or_date",
    "time_word",
    "log_chars",
    "log_turn_chars",
    "pattern",
    "exclamation",
    "turn_has_question",
    "turn_opens_with_chatter",
    "photo",
    "position",
    "log_fragments",
    "chinese",
    "answers_question",
    "log_words",
    "log_turn_place",
    "opens_log",
    "turn_novelty",
    "past_event",
    "plan",
    "reaction",
    "followed_by_question",
)
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]+")
_NUMBER = re.compile(
    r"\d|\b(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"twice|once)\b|[一二三四五六七八九十两]",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|last|next|ago|recently|lately|"
    r"soon|since|weekend|week|month|year|years)\b|昨天|今天|明天|上周|下周|去年|"
    r"明年|最近|上个月|下个月",
    re.IGNORECASE,
)
_PHOTO = re.compile(r"\[(?:photo|image|picture|shares? an? (?:photo|image|picture))", re.IGNORECASE)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[^\W_]+|[\u4e00-\u9fff]", re.UNICODE)
_PRONOUN_WORDS = frozenset({"I", "I'm", "I've", "I'll", "I'd"})
# A past event told ("I went", "we adopted", "我去了"), a plan ("going to", "打算"), a
# reaction to the other speaker ("wow", "sounds great", "太棒了").
_PAST = re.compile(
    r"\b(?:\w{3,}ed|went|got|made|took|saw|had|did|began|found|bought|won|ran|"
    r"met|gave|told|felt|left|came|became|wrote|read|built|heard|joined)\b"
    r"|[\u4e00-\u9fff][了过]",
    re.IGNORECASE,
)
_PLAN = re.compile(
    r"\b(?:going to|gonna|plan|planning|planned|will|want to|hope to|"
    r"thinking of|thinking about|decided|next)\b|打算|计划|准备|想要",
    re.IGNORECASE,
)
_REACTION = re.compile(
    r"\b(?:wow|awesome|amazing|great|cool|glad|happy for|proud of|sounds|"
    r"that's|so sweet|lovely|beautiful)\b|太棒|真好|哇",
    re.IGNORECASE,
)
_FUNCTION_WORDS = frozenset(
    "the a an and or but to of in on for with at by from is are was were be been it this "
    "that i you my your me we our they them he she his her so just really very too can do "
    "have has had not no yes yeah 的 了 是 我 你 在 和 也 就 都 吗 呢 吧 啊".split()
)
# The first turns of a log tell the news since the speakers last talked.
OPENING_TURNS = 3
# The kinds of conversation, each with its own model: named people talking with each other,
# and a person talking with an assistant (a log of the roles "user" and "assistant").
PEOPLE, ASSISTANT = "people", "assistant"
KINDS = (PEOPLE, ASSISTANT)


@dataclass(frozen=True)
class Statement:
    """What salience reads of one statement: its words, its turn's, where it stood."""

    text: str  # the fragment as said
    turn_text: str  # the whole turn
    position: int  # the fragment's index among the turn's fragments
    fragments: int  # how many fragments the turn has
    pattern: bool  # a pattern read it (name, home, preference, plan, ...)
    turn_opens_with_chatter: bool
    names: tuple[str, ...] = ()  # the speaker's and addressee's names (not entities here)
    after_question: bool = False  # the turn before it asked something
    turn_place: int = 0  # the turn's index in its log
    turn_novelty: float = 1.0  # the share of the turn's words new in its log
    followed_by_question: bool = False  # the turn after it asks something
    kind: str = PEOPLE  # the kind of conversation: whose model scores it


def features(statement: Statement) -> list[float]:
    """The cheap features, in FEATURES' order."""
    text, turn = statement.text, statement.turn_text
    entities = [
        word
        for word in _CAPITALISED.findall(text)
        if word not in _PRONOUN_WORDS and word not in statement.names
    ]
    return [
        float(bool(FIRST_PERSON.search(text))),
        float(bool(SECOND_PERSON.search(text))),
        float(bool(FIRST_PLURAL.search(text))),
        float(bool(entities)),
        float(bool(_NUMBER.search(text))),
        float(bool(_TIME.search(text))),
        math.log1p(len(text)),
        math.log1p(len(turn)),
        float(statement.pattern),
        float(text.rstrip().endswith(("!", "！"))),
        float("?" in turn or "？" in turn),
        float(statement.turn_opens_with_chatter),
        float(bool(_PHOTO.search(turn))),
        statement.position / max(1, statement.fragments - 1),
        math.log1p(statement.fragments),
        float(bool(_CJK.search(text))),
        float(statement.after_question),
        math.log1p(len(_WORD.findall(text))),
        math.log1p(statement.turn_place),
        float(statement.turn_place < OPENING_TURNS),
        statement.turn_novelty,
        float(bool(_PAST.search(text))),
        float(bool(_PLAN.search(text))),
        float(bool(_REACTION.search(text))),
        float(statement.followed_by_question),
    ]


def content_words(text: str) -> frozenset[str]:
    """The words of `text` that carry its content (function words left out), folded."""
    return frozenset(
        word for word in map(str.casefold, _WORD.findall(text)) if word not in _FUNCTION_WORDS
    )


@dataclass(frozen=True)
class SalienceModel:
    """Logistic weights over standardized features (and an embedding, for `model_id`)."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray  # features (+ embedding dimensions)
    bias: float
    model_id: str | None = None  # the embedder whose vectors the weights read; None: none

    def scores(self, rows: np.ndarray, vectors: np.ndarray | None = None) -> np.ndarray:
        x = (np.asarray(rows, dtype=np.float64) - self.mean) / self.scale
        if self.model_id is not None:
            x = np.hstack([x, np.asarray(vectors, dtype=np.float64)])
        return 1.0 / (1.0 + np.exp(-(x @ self.weights + self.bias)))


@dataclass(frozen=True)
class ShippedModels:
    """salience.json as the package reads it: the features its models read, and each kind's
    models by the embedder whose vectors they read (None: the features alone). The file's
    training figures are for a reader (references/scoring.md): nothing reads them here."""

    features: tuple[str, ...]
    kinds: dict[str, dict[str | None, SalienceModel]]

    @classmethod
    def of(cls, document: dict) -> ShippedModels:
        return cls(
            tuple(document["features"]),
            {
                kind: {
                    entry["model_id"]: SalienceModel(
                        np.array(data["mean"]),
                        np.array(data["scale"]),
                        np.array(entry["weights"]),
                        float(entry["bias"]),
                        entry["model_id"],
                    )
                    for entry in data["models"]
                }
                for kind, data in document["kinds"].items()
            },
        )


@lru_cache(maxsize=1)
def shipped() -> ShippedModels:
    return ShippedModels.of(json.loads(WEIGHTS.read_text(encoding="utf-8")))


def model_for(model_id: str | None, kind: str = PEOPLE) -> SalienceModel:
    """The shipped model of `kind` that reads `model_id`'s embeddings, else its features-only
    one."""
    models = shipped().kinds[kind]
    model = models.get(model_id) if model_id is not None else None
    return model or models[None]


def kind_of(role: str, addressee: str | None) -> str:
    """The kind of conversation a turn belongs to: ASSISTANT for the assistant's turns and
    the turns said to it, else PEOPLE."""
    return ASSISTANT if "assistant" in (role, addressee) else PEOPLE


# How far salience moves a statement's importance from its category's: +-0.3, so a
# salient remark (0.5) lasts like a preference (0.8), and a dull one fades at the base rate.
SALIENCE_WEIGHT = 0.6


# An action item the person asked the assistant for (a task by a time, a reminder): the
# agent must not forget it, though the conversations the model learned from rarely ask
# about it later. It weighs as a decision does.
ACTION_ITEM_EVIDENCE = 0.3


def with_evidence(
    score: float, intrinsic: float, signals: float, action_item: bool = False
) -> float:
    """The model's score joined with what the rules know that the conversations it learned
    from rarely show: a fact of a lasting kind (identity, health: +0.5; preference,
    relationship, state, decision: +0.3), an action item (+0.3) and an explicit signal
    ("remember" +0.5, "important" +0.3, ...). Either makes a statement salient (a noisy
    or): 1 - (1 - score) * (1 - evidence)."""
    lasting = max(0.0, intrinsic - 0.5) + (ACTION_ITEM_EVIDENCE if action_item else 0.0)
    evidence = min(1.0, max(0.0, lasting + signals))
    return round(1.0 - (1.0 - score) * (1.0 - evidence), 3)


def importance_with(intrinsic: float, signals: float, salience: float) -> float:
    """The stored importance: the category's, the signals', and salience's share."""
    value = intrinsic + signals + SALIENCE_WEIGHT * (salience - 0.5)
    return round(min(1.0, max(0.0, value)), 3)
