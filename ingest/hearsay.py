"""Hearsay: what a text reports someone else as saying, and whether the user turned it down or it speaks of others.

"my coworker keeps saying I should move to Tucson but no way" holds a suggestion the user refused;
我老公说他妈做的剁椒鱼头是天下第一 我觉得一般般 holds a claim about someone else. Neither is the user's own fact, plan
or habit: recall must not offer one as the answer to "When am I moving to the cheaper city?" or
我做的剁椒鱼头是不是天下第一 (ingest/scoring.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_HAN = r"\u4e00-\u9fff"

# Who said it. Relatives, friends and people the user lives or works with, by role or by name: their words are
# hearsay. Professionals (doctor, vet, advisor, 医生) are not here: what they tell the user is advice worth
# recalling even when the user grumbles about it.
_EN_WHO = (
    r"(?:(?:my|our)\s+(?:(?:best|old|close|older|younger|little|big)\s+)?"
    r"(?:friend|coworker|co-worker|colleague|sister|brother|mom|mum|mother|dad|father|parents|husband|wife|partner"
    r"|boyfriend|girlfriend|roommate|flatmate|neighbou?r|boss|manager|aunt|uncle|cousin|grandma|grandpa|in-laws"
    r"|mother-in-law|father-in-law|sister-in-law|brother-in-law|family|folks)s?(?:\s+[A-Z][a-z]+)?"
    r"|(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+|\b(?:he|she|they)\b)"
)
_EN_VERB = (
    r"(?:\s+(?:always|just|once|also|still|even|literally|basically|apparently|actually|jokingly|keeps|kept))?"
    r"\s+(?:said|says|say|saying|told\s+me|tells\s+me|thinks|thought|joked|jokes|suggested|suggests|reckons|swears"
    r"|insists|insisted|claims|claimed|wants\s+me\s+to|wanted\s+me\s+to|was\s+like|is\s+like)\b"
)
_EN_REPORT = re.compile(rf"(?P<who>{_EN_WHO}){_EN_VERB}")
# The user's own words take over: a new sentence, "but", "which", a dash.
_EN_END = re.compile(r"[.!?;](?:\s|$)|\s+but\s|,?\s+which\b|\s+[-\u2014]\s|,\s+(?:i|lol|and\s+i)\b", re.IGNORECASE)

_ZH_WHO = (
    rf"(?:我)?(?:爸妈|爸爸|妈妈|老爸|老妈|我爸|我妈|爸|妈|老公|老婆|媳妇|婆婆|公公|岳母|丈母娘|男朋友|女朋友|对象|闺蜜|朋友|同事"
    rf"|室友|邻居|老板|领导|姐姐|妹妹|哥哥|弟弟|亲戚|家里人|他们|他|她|老(?![是说实早在会])[{_HAN}]|小(?![时心说学])[{_HAN}]"
    rf"|[A-Z][A-Za-z]+)"
)
# Not "我跟他说" (the user told him): no 跟 / 对 / 和 / 给 / 向 before the one speaking.
_ZH_REPORT = re.compile(
    rf"(?<![跟对和给向])(?P<who>{_ZH_WHO})\s?[^，。！？!?,\s]{{0,6}}?"
    r"(?:开玩笑地?说|開玩笑地?說|非说|老说|总说|总是说|一直说|还说|都说|说|說|觉得|覺得|认为|認為|建议|建議|劝我|勸我|让我|讓我"
    r"|叫我)"
)
# The user's own words take over: a sentence's end, 但 / 可是 / 不过, or 我 opening a clause.
_ZH_END = re.compile(r"[。！？!?；;]|[，,\s]+(?=我(?!们))|但是?|可是|不过")

_TURNED_DOWN = re.compile(
    r"(?i)\b(?:no way|nope|no thanks|hard pass|not happening|as if|yeah right|not a chance|i don'?t think so"
    r"|i disagree|not for me|absolutely not|lol no|which,? no|but no)\b"
    r"|不靠谱|不对吧|不对|算了吧|我说算了|头大|一般般|才不|不信|我不觉得|我觉得不|没必要|扯|得了吧|拉倒|无语|没门|不可能|不同意|胡说|离谱"
)
# Someone other than the user in what was said: he / she / it, 他妈.
_OTHERS = re.compile(r"(?i)\b(?:he|she|they|him|her|his|their|he's|she's|they're)\b|他|她|它")
# The user (or "you", the user as the speaker addressed them) in what was said.
_USER = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|me|my|you|your|you're)\b|我|你")


@dataclass(frozen=True)
class Report:
    """One thing a text reports someone else as saying."""

    who: str  # as written: "my sister", "老孙", "Vivian"
    said: str  # what they said, to where the user's own words take over
    turned_down: bool  # the user's own words after it refuse it ("which, no", 我觉得不靠谱)
    about_others: bool  # what was said speaks of someone else (she, 他妈) and not of the user


@functools.lru_cache(maxsize=8192)  # recall asks it of the same memories recall after recall
def reports(text: str) -> tuple[Report, ...]:
    """What the text reports others as saying, in order (none for most texts)."""
    found: list[Report] = []
    for pattern, end in ((_EN_REPORT, _EN_END), (_ZH_REPORT, _ZH_END)):
        for m in pattern.finditer(text):
            stop = end.search(text, m.end())
            said = text[m.end(): stop.start() if stop else len(text)].strip(" \t,，:：'\"‘’“”")
            if not said:
                continue
            after = text[stop.start():] if stop else ""
            found.append(Report(
                who=m.group("who").strip(),
                said=said,
                turned_down=_TURNED_DOWN.search(after) is not None,
                about_others=_OTHERS.search(said) is not None and _USER.search(said) is None,
            ))
    return tuple(found)


def outside_reports(text: str, said: tuple[Report, ...]) -> str:
    """The text with what others were reported as saying taken out: the user's own words and the frames."""
    rest = text
    for r in said:
        rest = rest.replace(r.said, " ", 1)
    return rest
