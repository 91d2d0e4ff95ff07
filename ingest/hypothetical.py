"""Hypotheticals: what a text says would happen under a condition that is not the user's life ("if I ever win the
lottery I'm building an observatory in Chile", 要是中了彩票我就去冰岛看极光). The plan is a daydream, not a plan:
recall must not offer it as the answer to "When am I moving to South America?" (ingest/scoring.py)."""

from __future__ import annotations

import functools
import re

# An unreal condition: winning the lottery, being rich, money no object, living anywhere, another life. Not a real
# one: "if it rains I'll take the bus", 如果明天下雨就不去了.
_EN_UNREAL = re.compile(
    r"(?i)\b(?:if|when|once)\s+(?:i|we)\s+(?:ever\s+)?(?:win|won|hit)\s+(?:the\s+)?(?:lottery|lotto|jackpot|powerball)"
    r"|\bif\s+(?:i|we)\s+(?:were|was|ever\s+got|ever\s+get|got|get)\s+(?:rich|a\s+millionaire|a\s+billionaire"
    r"|filthy\s+rich|stupid\s+rich)"
    r"|\bif\s+(?:i|we)\s+(?:had|ever\s+had)\s+(?:a\s+(?:million|billion)|millions|unlimited\s+money|all\s+the\s+money"
    r"|infinite\s+money|more\s+money\s+than)"
    r"|\bif\s+money\s+(?:were|was)(?:n't|\s+not)?\s+(?:no\s+object|not\s+an\s+issue)"
    r"|\bif\s+(?:i|we)\s+could\s+live\s+anywhere"
    r"|\bin\s+(?:another|a\s+different|my\s+next|a\s+parallel)\s+life\b"
    r"|\bin\s+a\s+perfect\s+world\b"
)
_ZH_UNREAL = re.compile(
    r"(?:如果|要是|假如|假设|万一|等)?(?:我)?(?:哪天)?中了?(?:彩票|大奖|五百万|一千万|头奖)"
    r"|(?:如果|要是|假如|假设)(?:我)?(?:有|发了)(?:钱|一个亿|一百万|几百万|花不完的钱)"
    r"|等我(?:有钱|发财|暴富)了?"
    r"|(?:如果|要是|假如)(?:我)?(?:能|可以)(?:住在)?(?:任何地方|随便哪里)"
    r"|下辈子|上辈子"
)
# Where the daydream ends: the sentence.
_SENTENCE_END = re.compile(r"[.!?。！？\n]")


@functools.lru_cache(maxsize=8192)  # recall asks it of the same memories recall after recall
def hypotheticals(text: str) -> tuple[str, ...]:
    """The sentences of the text that open with an unreal condition, from the condition to the sentence's end."""
    found: list[str] = []
    for pattern in (_EN_UNREAL, _ZH_UNREAL):
        for m in pattern.finditer(text):
            stop = _SENTENCE_END.search(text, m.end())
            found.append(text[m.start(): stop.start() if stop else len(text)])
    return tuple(found)


def is_hypothetical(text: str) -> bool:
    """Whether the text (an input) itself speaks of an unreal condition: then a daydream said before is its answer."""
    return bool(_EN_UNREAL.search(text) or _ZH_UNREAL.search(text))
