"""Recall scoring, pure: query terms and the Lucene query, fusion of dense and full-text relevance,
graph expansion, freshness, the final score, the gate and the anti-repetition damping.

Nothing here touches the store or the clock: bmam/usecases/recall.py feeds it candidates read by
graph/recall.py and the current time, so every number is testable alone (tests/test_scoring.py) and
tunable on the eval (bench/recall_eval.py).

Similarities are raw cosines in [-1, 1] (Neo4j's vector functions answer (1 + cos) / 2; graph/recall.py
converts). Every other score is in [0, 1].
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from graph.related import Via
from ingest.conflict_text import TIME_TERM_RE, content_terms, word_variants
from ingest.extract_core import REPLY_STYLE_PREDICATE
from ingest.lexicon import (
    about_someone_else,
    has_han,
    says_preference,
    simplified,
    split_clauses,
    word_list,
)
from ingest.weights import clamp01

# ----- terms -----------------------------------------------------------------------------------

# Han, kana and hangul runs are cut into overlapping bigrams, as Neo4j's `cjk` analyzer indexes them;
# everything else into words of letters and digits. Only [\w] characters survive, so a term can never
# carry Lucene syntax.
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# A CJK run holds word characters only: the blocks also hold punctuation (・, ゠) and unassigned code points
# (U+D7A4..U+D7AF), which are no term (they split runs as any punctuation does).
_TOKEN = re.compile(rf"(?:(?=\w)[{_CJK}])+|[^\W_{_CJK}]+", re.UNICODE)
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")


# Words that say nothing about which memory is meant. English: function words and question words.
STOP_EN: frozenset[str] = frozenset(
    word_list("""a about above after again all also am an and any are as at be because been before being below
    between both but by can could did do does doing don done down during each else ever few for from
    further get got had has have having he her here hers herself him himself his how i if in into is
    it its itself just know let like ll me mine more most my myself no nor not now of off on once only
    or other our ours ourselves out over own please re really remember s same say she should so some
    such tell than that the their theirs them themselves then there these they thing things think this
    those through to too under until up us ve very want was we well were what when where which while
    who whom why will with would yes yet you your yours yourself yourselves
    today two three four five six seven eight nine ten""")
)
# (The last line: everyday words a query shares with unrelated memories. "Last day at Acme today" found "It's
# raining like crazy in Portland today" by its "today", "Emma has two boys" any memory with "two" in it. "one",
# "case", "little" stay terms: Capital One, a court case, Little League.)
# Everyday words that two memories share without being about one thing ("I found an apartment" and "I found out
# I'm allergic to shellfish"): never a rare-term link between memories (bmam/usecases/associations.py), however
# rare in a small user's memories. Verbs of every day, times, amounts and plain judgements; names and things stay.
COMMON_EN: frozenset[str] = frozenset(
    word_list("""able add added ago already always another anymore anything around ask asked away back bad be became
    become began begin best better big bit bought bring brought call called came can't cannot come comes coming
    couldn't day days decided didn't different doesn't doing done don't else end enjoy enjoyed enough even every
    everything feel feeling feels felt finally find finding finds finished first found friday gave getting give
    given giving go goes going gone good great guess happy hard hate hated help hour hours i'd i'll i'm i've idea
    isn't keep kept kind last later least left less let's life little live lived lives living long look looked
    looking lot lots love loved loves made make makes making many maybe mean means meet might minute minutes
    monday month months morning much need needed needs never new next nice night nights often ok okay old once
    one ones part past pretty put quite rather read ready recently right said saturday saw says second see seen
    seems sometimes soon start started starting stay still stop stopped sunday sure take taken takes taking
    thursday time times today told tomorrow tonight took tried try trying tuesday turn turned two usually wait
    wanted wants wasn't way wednesday week weekend weekends weeks went whole won't work worked working works
    wouldn't year years yesterday
    actually anyway awesome basically btw cool definitely fine gonna gotta haha hey hello honestly kinda lol
    literally nothing nope omg oh people person probably seriously something somehow sorry stuff super thank
    thanks though top totally wanna yeah yep
    january february march april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec christmas case cases couple bunch half earlier early late""")
)
# The same for Chinese: everyday words ("早上", "自己", "工作") are blanked before a text's rare terms are taken
# (link_text), so neither they nor the bigrams straddling them ("天早" of 今天早上 and 每天早上) link anything; and a
# bigram that starts with a pronoun or particle ("我不", "了一", "在学") or ends with a particle ("上了", "对了") is
# no term (link_term). By position, not by character: 吉他, 小说, 地铁, 成都, 哈佛 are words.
_LINK_FIRST_NOT = frozenset("我你他她它们的了着吗呢吧啊呀哦嗯也都就还很又在是有和不没这那个些么说想")
_LINK_LAST_NOT = frozenset("了着的吗呢吧啊呀哦嗯们么是在有和也就我你很")
COMMON_ZH: frozenset[str] = frozenset(
    word_list("""早上 晚上 中午 下午 上午 今天 明天 昨天 后天 今年 去年 明年 时候 时间 周末 每天 天天 一天 两天 最近
    现在 以后 以前 开始 一起 觉得 喜欢 工作 东西 事情 感觉 非常 特别 真的 有点 一点 不错 挺好 好的 上班 下班 回家
    出去 老是 经常 有时 总是 然后 因为 所以 但是 不过 而且 已经 终于 一般 比较 一样 可能 大概 应该 需要 打算
    准备 希望 知道 问题 方便 朋友 每周 周六 周日 星期 今晚 明早 刚才 刚刚 一下 一次 上次 下次 好吃 好玩
    开心 高兴 起来 出来 回来 下来 过来 地方 生活 感谢 谢谢 辛苦 平时 好几 几次""")
)
_COMMON_ZH_BLANK = re.compile("|".join(map(re.escape, sorted(COMMON_ZH, key=len, reverse=True))))


def link_text(text: str) -> str:
    """The text a rare-term link may be made of: its everyday Chinese words blanked (bmam/usecases/associations.py;
    Latin words are filtered once split: link_word)."""
    return _COMMON_ZH_BLANK.sub(" ", text)


def link_term(term: str) -> bool:
    """Whether a Han term may make a rare-term link: two characters at least, not starting with a pronoun or
    particle, not ending with a particle."""
    return len(term) >= 2 and term[0] not in _LINK_FIRST_NOT and term[-1] not in _LINK_LAST_NOT


# A rare-term link stands for a name, a place, a company the extractor missed: a verb's past form is none, however
# rarely the user says it ("I have a cat named Mochi" and "someone named Chen Hao"; "I broke my arm skiing" and "Jake
# and I broke up" share nothing). A regular one by its ending (four letters at least, "-ed" but not "-eed": seed,
# speed), when the text writes it in lower case ("Ahmed", "Alfred" are names); the irregular ones (a closed class)
# by name, the common ones people tell their lives with.
_REGULAR_PAST_EN = re.compile(r"[a-z]+[^\We]ed")
_IRREGULAR_PAST_EN = frozenset(word_list("""ate bit blew broke broken built caught chose chosen drank drew driven drove
    eaten fallen fell flew flown forgot forgotten fought grew grown heard held hid hung knew known lay lost met paid
    ran rode sang sat sent slept sold spent stole stood swam taught thought threw thrown won wore worn wrote
    written"""))


def link_word(term: str, text: str) -> bool:
    """Whether a Latin term of text (as terms() gives it: case-folded) may make a rare-term link: three characters at
    least, no number, no everyday word (COMMON_EN), no verb's past form."""
    if len(term) < 3 or term.isdigit() or term in COMMON_EN or term in _IRREGULAR_PAST_EN:
        return False
    return not (_REGULAR_PAST_EN.fullmatch(term)
                and re.search(rf"(?<![^\W\d_]){re.escape(term)}(?![^\W\d_])", text) is not None)


# Chinese bigrams of pronouns, question words and fillers (a bigram made of them matches any sentence).
STOP_ZH: frozenset[str] = frozenset(
    word_list("""我们 你们 他们 她们 它们 我的 你的 他的 她的 什么 怎么 怎样 为什么 哪里 哪儿 哪个 哪些 多少 几个
    是不 不是 是什 么时 时候 这个 那个 这些 那些 一个 一下 一些 可以 知道 觉得 还是 的话 就是 还有 没有
    现在 有没 有什 么样 吗我 我是 是我 你是 是你 我在 在哪 我有 你有 有没 告诉 记得 记住 一直 以前 之前
    请问 你知 知不 不知 我想 想知 的是 是的 了吗 的吗 呢我 我最 最近 你觉 得我 我该 应该 能不 不能 帮我
    给我 我现 我以 以为 你说 说过 过我 我说 住的""")
)
# A single Han character is a term only when the whole run is one character (as the analyzer does);
# these single characters never are.
_STOP_ZH_CHARS = frozenset("我你他她它的了吗呢吧啊是在有和就都也很还又")
# Whole stop words (not the straddling fragments of STOP_ZH), longest first.
_STOP_ZH_WORDS = sorted(
    word_list("""我们 你们 他们 她们 它们 我的 你的 他的 她的 什么 怎么 怎样 为什么 哪里 哪儿 哪个 哪些 多少 几个 这个
    那个 这些 那些 一个 一下 一些 可以 知道 觉得 还是 的话 就是 还有 没有 现在 有没有 告诉 记得 记住 一直 以前
    之前 请问 是不是 知不知道 应该 能不能 帮我 给我 是的 的吗 了吗 吗"""),
    key=len, reverse=True,
)
_STOP_ZH_SPLIT = re.compile("|".join(map(re.escape, _STOP_ZH_WORDS)))


def _normalize(text: str) -> str:
    """How the rules read a text: NFKC, case-folded, traditional characters as simplified (lexicon.simplified)."""
    return simplified(_as_written(text))


def _as_written(text: str) -> str:
    """NFKC and case-folded, in the characters written: the terms matched against stored texts, which keep them."""
    return unicodedata.normalize("NFKC", text).casefold()


def terms(text: str, *, limit: int = 64) -> list[str]:
    """The content terms of a text, in order, without repeats: Han bigrams and words, stop terms dropped."""
    out: list[str] = []
    seen: set[str] = set()

    def add(term: str) -> None:
        if term not in seen:
            seen.add(term)
            out.append(term)

    for token in _TOKEN.findall(_as_written(text)):
        if _CJK_RUN.match(token):
            if len(token) == 1:
                if token not in _STOP_ZH_CHARS:
                    add(token)
                continue
            # Cut the stop words out first, so no bigram straddles one (我的什么 -> nothing, not 的什).
            for piece in _STOP_ZH_SPLIT.split(token):
                for i in range(len(piece) - 1):
                    bigram = piece[i : i + 2]
                    if bigram not in STOP_ZH and not (bigram[0] in _STOP_ZH_CHARS and bigram[1] in _STOP_ZH_CHARS):
                        add(bigram)
        elif token not in STOP_EN and (len(token) > 1 or token.isdigit()):
            add(token)
        if len(out) >= limit:
            break
    return out[:limit]


_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')


def escape_lucene(term: str) -> str:
    """Backslash-escape Lucene query syntax (defence in depth: terms() leaves only word characters)."""
    return _LUCENE_SPECIAL.sub(r"\\\1", term)


def lucene_query(query_terms: Sequence[str]) -> str | None:
    """An OR of the escaped terms for db.index.fulltext.queryNodes; None when there is nothing to search.
    Terms are lower-case, so AND / OR / NOT can never act as operators."""
    escaped = [escape_lucene(t) for t in query_terms if t]
    return " ".join(escaped) if escaped else None


# Requests to the assistant ("help me", "tell me") use the first person without being about the user.
_ZH_REQUEST = re.compile(r"(帮我|给我|替我|为我|教我|跟我|和我|让我|请我|告诉我)")
# Chat drops the 我 the input is about: what was said before (来着: "what was it again"), the user's last time (上次),
# the user's family named by kin alone (妹妹最想吃啥), not someone else's (你妹妹, 他老婆, 别人的女儿); how something
# of theirs has been lately (鸟最近不爱叫了, 狗狗最近掉毛), a wish of theirs (想放松一下, 犒劳下自己), their free time
# and their day (下午闲着没事, 明天早上咋安排)
_ZH_OWN_DROPPED = re.compile(r"来着|上次|上回|(?<![你他她的])(?:妹妹|姐姐|哥哥|弟弟|老公|老婆|男朋友|女朋友|儿子|女儿"
                             r"|孙女|孙子|外孙女?|爸妈|爸爸|妈妈)|最近"
                             r"|(?:^|\s)(?:今晚|晚上|下午|明天|周末|今天)?想(?:放松|奖励|犒劳|休息|出去|吃|喝|玩|看|听|买)"
                             r"|自己|闲着|没事干|有空(?!调)|(?:今天|明天|后天|周末|早上|上午|下午|晚上)[^。？?]{0,12}"
                             r"(?:怎么|咋)安排"
                             # the place the conversation spoke of (今年过冬那地方天气咋样), the user's boss and
                             # colleagues (双十一最后离老板定的目标差多少; not a shop's 老板), the user's way to work
                             r"|那(?:边|地方|个地方|个城市)|(?<![你他她的店])(?:老板|领导|同事)(?!娘)"
                             r"|上班(?!族)|通勤"
                             # the user's own papers: 帮我更新下简历 (a resume, a cover letter, a bio asked for)
                             r"|(?<![你他她的])(?:简历|求职信|个人简介|自我介绍|论文|朋友圈|领英|linkedin)")
# "our" too, of what a user, a family or a team has ("What's our runbook?", "our release process", "our kids"), not
# of everyone ("our planet", "our body", "our national anthem")
_EN_SELF = re.compile(r"\b(my|mine|myself)\b|\bour (?:\w+ )?(?:team|project|company|product|release|runbook|playbook"
                      r"|process|codebase|code|repo|app|service|stack|database|deploy\w*|office|kids|children|son"
                      r"|daughter|family|house|home|apartment|flat|car|dog|cat|wedding|anniversary|trip|vacation|plans?"
                      r"|budget|landlord|neighbou?rs?|standup|meetings?|sprint|roadmap|deadline|ci|pipeline|server"
                      r"|customers?|clients?|users?|manager|boss|startup|business|shop|store|garden|baby"
                      r"|games?|match(?:es)?|season|practice|sessions?|class(?:es)?|lessons?|date|honeymoon"
                      # a place or a group the user runs or belongs to ("Write a note to our venue about the rain plan")
                      r"|venue|clinic|event|party|guests|restaurant|cafe|salon|studio|bakery|farm|stall|listing"
                      r"|newsletter|club|band|choir|league|lab|website|channel|podcast|menu)\b")
_EN_ME = re.compile(r"\bme\b")
_EN_REQUEST = re.compile(r"^\W*(please\s+)?(tell|write|give|show|help|make|find|draft|translate|explain|recommend|"
                         r"teach|let|send|can you|could you|would you|will you)\b")
_EN_SELF_QUESTION = re.compile(r"\b(am|did|have|was|were|do|should|can|could|may)\s+i\b"
                               r"|\b(?:is it|it's) (?:ok|okay|alright|fine|safe) (?:if|for) (?:i|me)\b")
# 明天早上可以去跑步吗？: whether the (unnamed) speaker may do something
_LATIN_WORDS = re.compile(r"[a-z]{2,}\W+[a-z]{2,}")  # two English words: the input is (partly) English
_ZH_MAY_I = re.compile(r"(?:可以|能不能|能|可不可以)[^，。？?吗]{1,12}吗")
_EN_HOW_TO = re.compile(r"^\W*how (do|can|should|would) i\b")
# Where or how the user lives, works or studies, said inside a question or a request ("how bad is light pollution
# where I live?", "find me a daycare close to where I'm living")
_EN_OWN_SITUATION = re.compile(r"\b(?:where|what|how|when|who) (?:i|we)(?:'m| am|'re| are)? (?:live|living|work|working"
                               r"|study|studying|based|staying|grew up)\b"
                               # the user's own way ("what would you change in how I do it?") and their children
                               # named as chat does, without "my" ("how many kids came to the twins' party?")
                               r"|\b(?:how|the way) (?:i|we) (?:usually |normally |always )?(?:do|make|bake|cook"
                               r"|prep|prepare|handle|run|set up) (?:it|this|that|them|mine)\b"
                               r"|\bthe (?:twins|kids|baby|little ones?)(?:'s?)?(?!\w)"
                               r"(?! (?:of today|these days|nowadays))"
                               # what happened to them before ("mention what happened last time"; 上次 in Chinese)
                               r"|\b(?:what happened|like|same as|since|than) last time\b|\blast time (?:i|we)\b")
# What a request asks to be written or changed that is the user's own: their bio, resume, profile ("Help me write a
# short bio for the birding group newsletter"; 简历 / 论文 / 朋友圈 in Chinese)
_EN_OWN_PAPERS = re.compile(r"\b(?:bio|biography|resume|résumé|cv|cover letter|linkedin|personal statement"
                            r"|out[- ]of[- ]office)\b")


def is_personal(text: str) -> bool:
    """Whether the input is about the user themself ("my sister", "我住在哪", "did I ..."), as opposed to a
    request or a general question; memories are about the user, so such input relates more easily."""
    t = _normalize(text)
    if has_han(t):
        if "我" in _ZH_REQUEST.sub("", t) or (_ZH_MAY_I.search(t) is not None and "你" not in t) \
                or _ZH_OWN_DROPPED.search(t):
            return True
        if not _LATIN_WORDS.search(t):
            return False
        # English around a Chinese word ("What's my recipe for 蛋炒饭?"): read as English
    if _EN_SELF.search(t) or (_EN_ME.search(t) and not _EN_REQUEST.match(t)) or _EN_OWN_SITUATION.search(t) \
            or (_EN_REQUEST.match(t) and _EN_OWN_PAPERS.search(t)):
        return True
    return bool(_EN_SELF_QUESTION.search(t)) and not _EN_HOW_TO.match(t)


# Asking for a recommendation or advice: the answer depends on the user's tastes, so their preferences
# relate to it although the words differ ("推荐一个火锅店" and "我现在很喜欢吃辣的川菜", cosine 0.32). Not 推荐 as a
# noun's modifier: 抖音的推荐算法是怎么工作的 asks how an algorithm works.
# 适合 only when it is the user who is suited or a choice is asked (适合我, 我适合什么, 哪款适合): "明天适合跑步吗
# 一般多少度适合" asks about the weather, and was let through at the personal threshold by a car memory (cos 0.30).
_ZH_ADVICE = re.compile(r"(推荐(?!算法|系统|机制|引擎|信|位|码)|建议(?!书)"
                        r"|有什么好|吃什么|喝什么|去哪|买什么|看什么|怎么选|做什么菜|点什么|带什么|带啥|穿什么|穿啥"
                        r"|适合我|我(?:更|比较)?适合|哪(?:个|种|款|家|些|一[个种款家])[^，。？]{0,6}适合"
                        # 帮我点个下午茶, 帮我 order 个 drink: ordered to the user's taste
                        r"|出出主意|有什么主意|帮我\s*(?:点|选|挑|订|order))")
_EN_ADVICE = re.compile(r"\b(recommend|recommendation|recommendations|suggest|suggestion|suggestions"
                        r"|(any|some|need|your) advice|advice (on|for|about)"
                        r"|(any|some|good) ideas?|ideas? for|(any|some|good) (gift|present) ideas?"
                        r"|what (should|can|could) (i|we) (eat|cook|make|buy|watch|read|order|try|get|have)"
                        r"|what to (eat|cook|make|order|have|buy)|where (should|can|could) (i|we) (go|eat|stay)"
                        r"|order me|(pick|choose) (me )?(something|one|a \w+) for me)\b")


# A question about how the world is, not about the user: why something happens, how a thing works, what causes it
# ("Explain how compound interest works", 锂电池为什么会鼓包, 高尔夫球表面为什么有那么多小坑). A memory in its domain
# (the user researches batteries, plays golf) is no answer to it. Not the user's own, chat's 我 dropped:
# 戚风为什么又塌了 (again: the user's cake), 为什么老是睡不着.
_EN_KNOWLEDGE = re.compile(r"^\W*(?:(?:can you |could you |please )?explain\b|why (?:do|does|is|are|can't|don't|doesn't"
                           r"|do|are) (?!i\b|we\b|my\b|our\b)|how (?:does|do) (?!i\b|we\b|my\b|our\b)[\w' -]{1,40}"
                           r" work\b|what (?:causes|makes) (?!me\b|my\b|us\b|our\b))")
_ZH_KNOWLEDGE = re.compile(r"为什么|为啥|原理|是怎么(?:工作|形成|来|产生|运作)的|怎么(?:工作|运作)的")
_ZH_OWN_EXPERIENCE = re.compile(r"又|还是|老是|总是|一直|每次|怎么(?:都|也)")


def asks_how_things_are(text: str) -> bool:
    """Whether the input asks how the world is (why, how it works, what causes it), nothing of the user's own."""
    return not (is_personal(text) or wants_advice(text)) and _in_knowledge_form(text)


def _in_knowledge_form(text: str) -> bool:
    """The form of a question about how the world is, whoever it is about (asks_how_things_are checks that)."""
    t = _normalize(text)
    if has_han(t):
        return _ZH_KNOWLEDGE.search(t) is not None and _ZH_OWN_EXPERIENCE.search(t) is None
    return _EN_KNOWLEDGE.match(t) is not None


# Telling the assistant to do something for the user: to make, write, find, plan ("Make me a checklist card for the
# start of each trip", "Could you find me some lectures", 帮我理一下规划, 六一活动帮我想想). Not being told about
# the world ("Tell me about cities", "explain ...", "translate ...": any asker's question) nor asked how to do a
# thing ("how do I get a stripped screw out?").
_EN_TASK = re.compile(r"^\W*(?:please\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
                      r"(?:help|make|write|draft|find|show|give|plan|prepare|create|put together|organi[sz]e|schedule"
                      r"|book|set up|remind|send|build|design|pick|choose|figure out|work out|come up with)\b")
_ZH_TASK = re.compile(r"(?:帮我|替我|帮忙)(?!.{0,12}(?:翻译|解释))|(?:^|[\s，。！？,.!?])(?:请|麻烦你?)?"
                      r"(?:给我(?:写|做|列|安排|定|订|找|选|想|出|准备|规划|算)|写[一个]|列[一个出]|生成|安排一下|规划一下)")
# A piece of writing for anyone (a poem about autumn, a joke): nothing of the user's shapes it.
_GENERAL_WRITING = re.compile(r"\b(?:poems?|haikus?|limericks?|jokes?|riddles?|sonnets?)\b|诗|笑话|谜语|段子")


@functools.lru_cache(maxsize=8192)  # a user's memories come back recall after recall
def says_a_liking(text: str) -> bool:
    """Whether a memory says what the user likes or can't stand ("I like true crime", 我最喜欢爬坡), not another."""
    return says_preference(text) and not about_someone_else(text)


def asks_a_task(text: str) -> bool:
    """Whether the input tells the assistant to do something for the user (_EN_TASK, _ZH_TASK)."""
    t = _normalize(text)
    return (_EN_TASK.match(t) is not None or _ZH_TASK.search(t) is not None) and _GENERAL_WRITING.search(t) is None


def wants_advice(text: str) -> bool:
    """Whether the input asks for a recommendation or advice, whose answer depends on the user's tastes."""
    t = _normalize(text)
    return bool(_ZH_ADVICE.search(t) or _EN_ADVICE.search(t))


def _joins_a_word(ch: str) -> bool:
    """Whether a character beside a Latin name makes it part of a longer word: a letter, digit or underscore, not a
    Han character (我是和谁一起去的Iceland？ names Iceland). A character test, not a regex per name: the name set is
    every candidate's entities, and a pattern with Han ranges compiled per name cost ~2 ms each."""
    return (ch.isalnum() or ch == "_") and _CJK_RUN.match(ch) is None


def _whole_word_in(name: str, text: str) -> bool:
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if not (start > 0 and _joins_a_word(text[start - 1])) and not (end < len(text) and _joins_a_word(text[end])):
            return True
        start = text.find(name, start + 1)
    return False


def named_in(query: str, names: Iterable[str]) -> list[str]:
    """The entity names the input mentions (whole words for Latin names, 2+ characters, never the user)."""
    q = _normalize(query)
    found: list[str] = []
    for name in names:
        n = _normalize(name).strip()
        if n in ("user", "") or n in found:
            continue
        if _CJK_RUN.match(n[:1] or "x"):
            if len(n) >= 2 and n in q:
                found.append(n)
        elif len(n) >= 3 and n not in STOP_EN and _whole_word_in(n, q):
            found.append(n)
    return found


@functools.lru_cache(maxsize=8192)  # read by the gate and by scoring, of memories that come back recall after recall
def memory_terms(text: str) -> frozenset[str]:
    """A memory's terms as the full-text coverage reads them (up to 512)."""
    return frozenset(terms(text, limit=512))


def coverage(query_terms: Sequence[str], text_terms: Iterable[str]) -> tuple[float, list[str]]:
    """Share of the query's terms found in a memory's terms, and which ones."""
    if not query_terms:
        return 0.0, []
    have = set(text_terms)
    matched = [t for t in query_terms if t in have]
    return len(matched) / len(query_terms), matched


# ----- candidates and settings -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GraphLink:
    """A candidate reached from a seed hit over one edge."""

    seed_id: str
    via: Via
    strength: float
    entity: str | None = None


@dataclass(frozen=True, slots=True)
class Candidate:
    """One memory the retrieval stages found, with everything scoring needs (no store objects)."""

    id: str
    text: str
    cosine: float  # raw cosine with the query, -1..1
    hours: float  # since the memory was last mentioned (its age when never mentioned again)
    weight: float  # the memory's final weight, 0..1
    dense_rank: int | None = None  # 1-based rank among the dense candidates
    text_rank: int | None = None  # 1-based rank among the full-text hits
    text_score: float | None = None  # raw Lucene score
    links: tuple[GraphLink, ...] = ()
    entities: tuple[str, ...] = ()  # names of the entities the memory mentions
    answers: tuple[str, ...] = ()  # the user's facts the input asks for that it states (ingest/slots.py)
    # those facts constrain the answer (an allergy for food advice), not give it: they set no bar for the rest
    constrains: bool = False
    # they are a liking asked after what constrains the answer (a liked cuisine for food advice): they shape it, rank
    # after the constraints and, constraining too, set no bar
    shapes: bool = False
    # said in the past period the input asks about (ingest/periods.py); an answer when the input asks only what
    # happened then
    said_in_period: bool = False
    period_answer: bool = False


class Fusion(StrEnum):
    RRF = "rrf"  # reciprocal-rank fusion of the dense and full-text ranks
    LINEAR = "linear"  # calibrated cosine and full-text coverage, the better of the two


@dataclass(frozen=True, slots=True)
class ScoringParams:
    """The recall knobs (bmam.settings.RecallSettings, resolved for the embedding model in use)."""

    relevance_share: float = 0.7
    freshness_share: float = 0.3
    freshness_lambda_per_hour: float = 0.1
    # How much the memory's weight moves the final score: final *= (1 - s) + s * weight.
    weight_share: float = 0.2
    fusion: Fusion = Fusion.LINEAR
    rrf_k: int = 60
    # Cosine calibration of the model: at sim_floor a memory is unrelated (0), at sim_ceiling a sure match (1).
    sim_floor: float = 0.2
    sim_ceiling: float = 0.4
    # The gate: the best cosine must reach gate_similarity (input about the user themself, see
    # is_personal) or gate_similarity_general (any other input), or a memory must mention an entity the
    # input names, or a full-text hit must cover at least gate_coverage of the query's terms (and at least
    # gate_min_terms of them).
    gate_similarity: float = 0.22
    gate_similarity_general: float = 0.35
    gate_similarity_knowledge: float = 0.5  # a question about how the world is (asks_how_things_are)
    gate_coverage: float = 0.5
    gate_min_terms: int = 2
    # A memory is returned only when its relevance reaches this (no "nearest anyway" per memory either).
    min_relevance: float = 0.0
    # ... and this share of the best candidate's direct relevance (or be reached through the graph from a
    # memory that does): once the gate is open, what barely relates next to what clearly does is left out
    # ("the few memories that matter").
    min_relative_relevance: float = 0.0
    # ... for input asking for advice or a task done for the user (score_candidates' advice_or_task); None: the same
    task_relative_relevance: float | None = None
    # Graph expansion: a neighbour of a seed scores seed relevance * edge strength * graph_share, at most
    # the seed's own relevance.
    graph_share: float = 1.5
    # Full-text relevance of a hit = coverage ** text_exponent (coverage of the query's terms).
    text_exponent: float = 1.0
    # In that coverage, a Chinese query term (a bigram) that no full-text hit holds counts this much (1: as any
    # other); the gate reads plain coverage.
    unseen_term_weight: float = 1.0
    text_share: float = 0.8  # full-text relevance counts at most this much next to a perfect cosine
    entity_share: float = 0.7  # relevance of a memory mentioning an entity the input names
    slot_share: float = 0.85  # relevance of a memory stating the user's fact the input asks for (lives_in ...)
    period_share: float = 0.85  # relevance of a memory said in the period the input asks only about ("yesterday")
    # final *= 1 + period_bonus for a memory said in a period the input asks something of ("What did I eat
    # yesterday?": yesterday's lunch ahead of Monday's, both of relevance 1)
    period_bonus: float = 0.2
    # final *= others_factor for a memory that speaks only of someone else when the input asks for the user's own
    # fact and a memory states it ("How much metformin do I take?": the dad's dose told today is fresher and as
    # close in meaning, both past the ceiling; the user's own dose is the answer)
    others_factor: float = 0.5
    # final *= 1 + liking_bonus for a memory saying what the user likes or can't stand when the input asks for advice
    # or a task done for them ("这周末想骑条新路线 推荐一下": 我最喜欢爬坡 at cosine 0.38 behind five memories past the
    # ceiling): the liking shapes the answer
    liking_bonus: float = 0.2
    # final *= 1 + change_bonus, for the same input, for a memory saying a change of the user's own (a switch, a
    # decision, where things stand now: "ok i switched to snowball", 决定了 做智能喂食器): advice builds on the latest
    # word, which often shares fewer words with the request than the plan it replaced
    change_bonus: float = 0.2


@dataclass(frozen=True, slots=True)
class Scores:
    """The score breakdown of a recalled memory, every part in [0, 1] except vector (a raw cosine)."""

    vector: float
    fulltext: float
    graph: float
    freshness: float
    weight: float
    relevance: float
    damping: float
    final: float


@dataclass(frozen=True, slots=True)
class Scored:
    candidate: Candidate
    scores: Scores
    why: str
    matched_terms: tuple[str, ...] = ()
    link: GraphLink | None = None


@dataclass(frozen=True, slots=True)
class GateDecision:
    gated: bool
    reason: str
    best_similarity: float
    best_coverage: float


# ----- the pieces --------------------------------------------------------------------------------


def freshness(hours: float, lambda_per_hour: float) -> float:
    """exp(-lambda * hours); a memory from the future (clock skew) counts as brand new."""
    return math.exp(-lambda_per_hour * max(0.0, hours))


def calibrated_similarity(cosine: float, p: ScoringParams) -> float:
    """The model's cosine mapped to [0, 1]: 0 at sim_floor (unrelated), 1 at sim_ceiling."""
    span = p.sim_ceiling - p.sim_floor
    return clamp01((cosine - p.sim_floor) / span) if span > 0 else float(cosine >= p.sim_floor)


def weight_factor(weight: float, p: ScoringParams) -> float:
    return (1.0 - p.weight_share) + p.weight_share * clamp01(weight)


def final_score(relevance: float, fresh: float, weight: float, p: ScoringParams, damping: float = 1.0) -> float:
    """(relevance_share * relevance + freshness_share * freshness) * weight factor * damping, in [0, 1]."""
    base = p.relevance_share * relevance + p.freshness_share * fresh
    total = p.relevance_share + p.freshness_share
    return clamp01(base / total * weight_factor(weight, p) * damping) if total > 0 else 0.0


def gate(candidates: Sequence[Candidate], query: str, query_terms: Sequence[str], p: ScoringParams) -> GateDecision:
    """Gated (nothing relates) unless the best cosine reaches the threshold (lower for input about the user
    themself), or a memory mentions an entity the input names, or a full-text hit has substance (enough of
    the query's own content terms)."""
    best_sim = max((c.cosine for c in candidates), default=-1.0)
    best_cov, best_matched = 0.0, 0
    # Substance is judged on the query's own subject: an everyday word ("Where are we going for our anniversary?":
    # going) is no half of what it asks about, so "We decided on Greece for the anniversary trip" holds all of it.
    subject = [t for t in query_terms if t not in COMMON_EN] or list(query_terms)
    for c in candidates:
        if c.text_rank is None:
            continue
        cov, matched = coverage(subject, memory_terms(c.text))
        if (cov, len(matched)) > (best_cov, best_matched):
            best_cov, best_matched = cov, len(matched)
    personal = is_personal(query) or wants_advice(query)
    knowledge = not personal and _in_knowledge_form(query)  # asks_how_things_are, personal read once
    # A task the assistant is told to do is done for the user ("Make me a checklist card for the start of each
    # trip", 帮我理一下规划): what is known of them shapes it, so it relates at the bar of input about the user.
    task = not (personal or knowledge) and asks_a_task(query)
    threshold = p.gate_similarity if personal or task else p.gate_similarity_knowledge if knowledge \
        else p.gate_similarity_general
    if best_sim >= threshold:
        return GateDecision(False, f"best similarity {best_sim:.3f} >= {threshold}", best_sim, best_cov)
    names = named_in(query, {n for c in candidates for n in c.entities})
    if names:
        return GateDecision(False, f"the input names {', '.join(names[:3])}", best_sim, best_cov)
    # how the user wants to be answered comes along with a request, but is no reason to answer it
    answered = sorted({a for c in candidates for a in c.answers if a != REPLY_STYLE_PREDICATE})
    if answered:
        return GateDecision(False, f"the input asks for the user's {', '.join(answered[:3])}, which a memory states",
                            best_sim, best_cov)
    needed = min(p.gate_min_terms, len(subject))
    if needed > 0 and best_matched >= needed and best_cov >= p.gate_coverage and not knowledge:
        return GateDecision(False, f"full-text hit covers {best_cov:.0%} of the query", best_sim, best_cov)
    if not candidates:
        return GateDecision(True, "no memories to recall", best_sim, best_cov)
    return GateDecision(
        True,
        f"nothing relates: best similarity {best_sim:.3f} < {threshold}, no entity named and no full-text hit "
        f"covers {p.gate_coverage:.0%} of the query",
        best_sim,
        best_cov,
    )


# A reply style's part of slot_share: above the weakest memories that relate by meaning, below the facts asked and
# the close ones (blind 3: at the full share it pushed a recipe's steps out of the first five).
_REPLY_STYLE_SHARE = 0.5
# A liking's part of slot_share when it shapes the answer (Candidate.shapes), as a reply style's: below the constraints
# asked with it (five liked dishes never push the peanut allergy out of the first five) and the close memories (the
# eval's 去他那边玩应该吃点什么: at 0.75, "I really love sushi" pushed 青岛的辣炒蛤蜊 down to sixth).
_LIKING_SHARE = 0.5


def direct_relevance(c: Candidate, query_terms: Sequence[str], p: ScoringParams,
                     named: frozenset[str] = frozenset(), seen: frozenset[str] | None = None,
                     ) -> tuple[float, float, list[str]]:
    """(relevance, full-text part, matched terms) of a candidate from the dense and full-text stages and
    the entities the input names. seen: the query terms some full-text hit holds (the others count
    p.unseen_term_weight in the coverage)."""
    cov, matched = coverage(query_terms, memory_terms(c.text)) if c.text_rank is not None else (0.0, [])
    if matched and seen is not None and p.unseen_term_weight < 1.0:
        unseen = sum(1 for t in query_terms if t not in seen and has_han(t))  # a word unheld says it does not match
        cov = len(matched) / (len(query_terms) - unseen * (1.0 - p.unseen_term_weight))
    text_part = p.text_share * cov**p.text_exponent if matched else 0.0
    entity_part = p.entity_share if named and any(_normalize(n) in named for n in c.entities) else 0.0
    # a stated fact the input asks for counts as an entity the input names: the better of the two; how the user wants
    # to be answered (a reply style, asked by every request) at half that: it comes along, after the answers
    share = _REPLY_STYLE_SHARE if c.answers == (REPLY_STYLE_PREDICATE,) else _LIKING_SHARE if c.shapes else 1.0
    slot_part = p.slot_share * share if c.answers else 0.0
    entity_part = max(entity_part, slot_part, p.period_share if c.period_answer else 0.0)
    if p.fusion is Fusion.RRF:
        best = 2.0 / (p.rrf_k + 1)
        rrf = 0.0
        if c.dense_rank is not None and c.cosine >= p.sim_floor:
            rrf += 1.0 / (p.rrf_k + c.dense_rank)
        if c.text_rank is not None and matched:
            rrf += 1.0 / (p.rrf_k + c.text_rank)
        return clamp01(rrf / best + entity_part * 0.25), text_part, matched
    parts = sorted((calibrated_similarity(c.cosine, p), text_part, entity_part), reverse=True)
    # The best signal, plus a little of the others: agreement lifts a memory.
    return clamp01(parts[0] + 0.25 * (parts[1] + parts[2])), text_part, matched


def score_candidates(
    candidates: Sequence[Candidate],
    query: str,
    query_terms: Sequence[str],
    p: ScoringParams,
    *,
    damping: Mapping[str, float] | None = None,
    damping_why: Mapping[str, str] | None = None,
    own_fact: bool = False,
    advice_or_task: bool = False,
) -> list[Scored]:
    """Score every candidate (direct relevance, then graph expansion from the directly relevant ones),
    drop those that do not relate, and rank by the final score (ties: relevance, the signals agreeing, the cosine,
    then id). own_fact: the input asks for a fact of the user's own, not of someone else (a slot question, no family
    member named); when a memory states it, one speaking only of someone else ranks with others_factor."""
    damping = damping or {}
    damping_why = damping_why or {}
    stated = own_fact and any(c.answers for c in candidates)
    named = frozenset(named_in(query, {n for c in candidates for n in c.entities}))
    # Chinese is read in bigrams, most of a question's across word boundaries (想试试公园道的跳台: 试公 园道 道的
    # 的跳) and held by no memory: they tell nothing of which memory answers, yet left 我右膝前交叉韧带做过手术，现在
    # 跳台不碰了 at 1/8 of the question's terms (p.unseen_term_weight)
    seen = frozenset(t for t in query_terms
                     if any(t in memory_terms(c.text) for c in candidates if c.text_rank is not None))
    direct: dict[str, tuple[float, float, list[str]]] = {
        c.id: direct_relevance(c, query_terms, p, named, seen) for c in candidates
    }
    out: list[Scored] = []
    for c in candidates:
        rel, text_part, matched = direct[c.id]
        graph, link = 0.0, None
        for lk in c.links:
            seed = direct.get(lk.seed_id)
            if seed is None or lk.seed_id == c.id:
                continue
            g = min(seed[0], seed[0] * lk.strength * p.graph_share)  # never above the seed itself
            if g > graph:
                graph, link = g, lk
        relevance = max(rel, graph)
        if relevance < p.min_relevance or relevance <= 0.0:
            continue
        fresh = freshness(c.hours, p.freshness_lambda_per_hour)
        d = damping.get(c.id, 1.0)
        final = final_score(relevance, fresh, c.weight, p, d)
        if c.said_in_period and not c.period_answer:
            final = clamp01(final * (1.0 + p.period_bonus))
        others = stated and not c.answers and about_someone_else(c.text)
        if others:
            final *= p.others_factor
        liking = advice_or_task and not c.shapes and says_a_liking(c.text)  # one asked ranks on its share alone
        if liking:
            final = clamp01(final * (1.0 + p.liking_bonus))
        # where the user stands now, said in their own words: not a stated fact asked for (the slot answers rank on
        # their own) and not a memory here through an association only
        current = advice_or_task and not liking and not c.answers and graph <= rel and says_own_change(c.text)
        if current:
            final = clamp01(final * (1.0 + p.change_bonus))
        scores = Scores(vector=c.cosine, fulltext=text_part, graph=graph, freshness=fresh, weight=c.weight,
                        relevance=relevance, damping=d, final=final)
        names = [n for n in c.entities if _normalize(n) in named]
        note = "; ".join(x for x in (damping_why.get(c.id),
                                     "speaks of someone else, the input asks for the user's own" if others else None,
                                     "says what the user likes, which shapes the advice or task asked" if liking
                                     else None,
                                     "says a change of the user's, where they stand for the advice or task asked"
                                     if current else None)
                         if x)
        out.append(Scored(candidate=c, scores=scores, why=_why(c, scores, matched, names, link if graph > rel else None,
                                                                note or None),
                          matched_terms=tuple(matched), link=link if graph > rel else None))
    cut = p.task_relative_relevance if advice_or_task and p.task_relative_relevance is not None \
        else p.min_relative_relevance
    if out and cut > 0:
        # Judged on direct relevance: a memory reached through the graph from a seed that passes stays (the
        # second memory of a multi-hop answer shares little with the question itself). A stated allergy or
        # condition brought along by a request for food advice (a constraint on the answer, not the answer: set
        # at 0.85 and up) sets no bar ("Any dinner ideas?" lost "My favourite cuisine is Thai"); slot answers
        # always stay.
        by_meaning = [direct[s.candidate.id][0] for s in out if not s.candidate.constrains]
        floor = cut * max(by_meaning or [direct[s.candidate.id][0] for s in out])
        out = [s for s in out if direct[s.candidate.id][0] >= floor or s.candidate.answers or s.candidate.period_answer
               or any(lk.seed_id != s.candidate.id and lk.seed_id in direct and direct[lk.seed_id][0] >= floor
                      for lk in s.candidate.links)]
    # Relevance is clamped at 1, so two memories well past the ceiling tie on it ("I don't eat cilantro" and "I eat
    # sushi every week" for "What don't I eat?": both 1.0): the tie goes to the one more signals agree on (the
    # full-text part and a stated fact asked for), then to the closer meaning, and only then to the id.
    out.sort(key=lambda s: (-s.scores.final, -s.scores.relevance,
                            -(s.scores.fulltext + (p.slot_share if s.candidate.answers else 0.0)),
                            -s.candidate.cosine, s.candidate.id))
    return out


# A memory saying a change: a new state of something ("R5退了 换了尼康Z8", "I transferred my base to SFO", "badminton
# 不打了 现在改玩 pickleball", 最后还是决定考公), which the older memories on the same thing said otherwise.
_CHANGE_SAID_RE = re.compile(
    r"(?i)\b(?:now|nowadays|these days|anymore|no longer|switched|switching|upgraded|transferred|moved|changed|sold"
    r"|quit|instead|actually|finally|decided|went with|going with|got a raise|promoted|ended up|in the end)\b"
    r"|现在|如今|换了|换成|改成|改了|改[玩用去吃喝坐学做]|退了|终于|最后|决定|搬到|升了|升职|出来了|不再|已经"
    # 想了想还是回国吧: a choice made after all (not 还是 alone: "still", "or")
    r"|(?:想了想|考虑了?一下|琢磨了?一下|算了|最终)[，,\s]*还是"
    r"|涨价|涨到|降价|降到")  # 涨价了 凉皮从8块涨到10块: a price changed
# A model or a grade named with digits (R5, Z8, 4090): content_terms reads words of letters only.
_MODEL_RE = re.compile(r"(?i)(?<![a-z\d])(?:[a-z]+\d+[a-z\d]*|\d+[a-z]+)(?![a-z\d])")  # 佳能R5: beside Han too
# Newer by at least this much: two clauses of one message are no update of each other.
_LATER_HOURS = 1.0


@functools.lru_cache(maxsize=8192)  # a user's memories come back recall after recall: read each text once
def _things(text: str) -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """What a text speaks of, for latest_word_first: its content terms of two characters and more and its model
    names (time words and words that only say a change are left out where two texts share them); and its English
    words by their first three letters (forms of one word share them: base / based). Read only."""
    # (STOP_EN too: "what" of "i don't know what to do" is no thing shared with "what can i do")
    found = frozenset({t for t in content_terms(text) if len(t) > 1 and t not in STOP_EN}
                      | {m.casefold() for m in _MODEL_RE.findall(text)})
    words: dict[str, list[str]] = {}
    for t in found:
        if t.isascii() and len(t) >= 3:
            words.setdefault(t[:3], []).append(t)
    return found, {k: tuple(v) for k, v in words.items()}


@functools.lru_cache(maxsize=8192)
def _change_of_someone_else(text: str) -> bool:
    """Whether the changes the text says are all someone else's: the words before each marker speak of another
    ("my boss moved to Denver", 我老公现在改喝茶了; not "换了尼康Z8 朋友说对焦更好", nor 终于不用给老板打工, nor
    "他图纸改了三次都不对 设计费退了一半 现在我自己找了个工长半包": the designer redrew, the user took a foreman)."""
    changes = [(clause, m) for clause in split_clauses(text) if (m := _CHANGE_SAID_RE.search(clause))]
    return bool(changes) and all(clause[: m.start()].strip() and about_someone_else(clause[: m.start()])
                                 for clause, m in changes)


# Before a change's marker, words saying it was only urged or thought of, not made: "Isla keeps saying I should quit
# the PhD", "if I ever switched", 室友劝我去深圳
_CHANGE_NOT_MADE_RE = re.compile(r"(?i)\b(?:should|could|would|might|if|wants? me to|told me to|tells me to"
                                 r"|keeps? (?:saying|telling)|thinking (?:of|about)|considering)\b"
                                 r"|劝我|让我|建议我|说我应该")


@functools.lru_cache(maxsize=8192)
def change_said(text: str) -> str:
    """The clauses of a text that say a change (now, switched, 换了, 终于 ...), joined: what changed is named there
    ("最后提了比亚迪汉", not the wife of "老婆选的颜色" after it); "" when none does, or only one urged or thought of
    ("Isla keeps saying I should quit the PhD")."""
    return " ".join(c for c in split_clauses(text)
                    if (m := _CHANGE_SAID_RE.search(c)) and not _CHANGE_NOT_MADE_RE.search(c[: m.start()]))


def says_own_change(text: str) -> bool:
    """Whether the text says a change that is the user's own, not someone else's ("my boss moved to Denver")."""
    return bool(change_said(text)) and not _change_of_someone_else(text)


# The top of a ranking latest_word_first reads: recall returns a few (k, 5 by default); a change said far below the
# top is no answer here, and each pair read costs (~0.02 ms).
_LATEST_WORD_WINDOW = 20


def latest_word_first(scored: Sequence[Scored]) -> list[Scored]:
    """The ranking with each memory that says a change lifted just above the best-ranked older memory it shares a
    thing with (a content term, or a form of one: base / based) where it says the change (change_said: "最后提了比亚迪汉
    老婆选的颜色" updates what was said of 比亚迪汉, not of 老婆), at that memory's score, unless only one of them
    speaks of someone else ("my boss moved to Denver" updates nothing of the user's) or the older states the fact
    asked for and the newer does not ("I've stopped rock climbing" is no answer to "What do I listen to?", which
    "indie rock" is): of two memories on one thing, the latest word comes first. Superseding is the conflict
    rules' work (ingest/conflict_rules.py); this orders what they could not tell apart ("刚入了佳能R5" came before
    "R5退了 换了尼康Z8" for "我这相机用啥存储卡好"). Only reorders, within the first _LATEST_WORD_WINDOW: nothing
    joins or leaves. Two memories stating one fact of the user's the input asks for are on one thing too."""
    out = list(scored)
    for s, said in [(s, said) for s in out[:_LATEST_WORD_WINDOW] if (said := change_said(s.candidate.text))]:
        c = s.candidate
        mine: tuple[frozenset[str], dict[str, tuple[str, ...]]] | None = None
        others_change = False
        here = next(i for i, x in enumerate(out) if x is s)  # by identity: Scored compares every field
        for above in out[:here]:
            older = above.candidate
            if older.hours - c.hours < _LATER_HOURS or (older.answers and not c.answers):
                continue  # said together; or the older states the fact asked for and the newer does not
            if mine is None:
                mine, others_change = _things(said), _change_of_someone_else(c.text)
            if about_someone_else(older.text) != others_change:
                continue
            # a thing in common where the change is said; or the same fact of the user's asked that both state
            # ("现在改成晚上吃 就是不吃主食" after "晚饭不吃了", both foods refused, for 晚上吃点啥)
            shared = _shared_things(mine, older.text) or {a for a in c.answers if a in older.answers
                                                          and a != REPLY_STYLE_PREDICATE}
            if not shared:
                continue
            lifted = replace(s, scores=replace(s.scores, final=above.scores.final),
                             why=f"{s.why}; the latest word on {', '.join(sorted(shared)[:3])} (says a change)")
            del out[here]
            out.insert(next(i for i, x in enumerate(out) if x is above), lifted)
            break
    return out


def _shared_things(mine: tuple[frozenset[str], dict[str, tuple[str, ...]]], older_text: str) -> set[str]:
    """The things (_things) of where a change is said that an older text speaks of too: a content term in common, or
    a form of one (base / based), time words and words that only say a change left out."""
    theirs, their_words = _things(older_text)
    common = (mine[0] & theirs) | {t for key, ts in mine[1].items() for t in ts
                                   for o in their_words.get(key, ()) if word_variants(t, o)}
    return {t for t in common if not TIME_TERM_RE.search(t) and not _CHANGE_SAID_RE.fullmatch(t)}


def changes_what_was_said(text: str, older_text: str) -> bool:
    """Whether a text says a change of the user's own on a thing an older text spoke of ("涨价了 凉皮从8块涨到10块" of
    "一份凉皮卖8块"): the latest word on it, which no engagement with the older one (a change lifts the new state,
    never the stale one)."""
    said = change_said(text)
    return bool(said) and not _change_of_someone_else(text) and bool(_shared_things(_things(said), older_text))


def _why(c: Candidate, s: Scores, matched: Sequence[str], names: Sequence[str], link: GraphLink | None,
         note: str | None) -> str:
    parts: list[str] = []
    if c.dense_rank is not None:
        parts.append(f"similar to the input (cosine {c.cosine:.2f}, rank {c.dense_rank})")
    if names:
        parts.append("mentions " + _listed(names, 3))
    if c.answers:  # one slot asked two ways ("lives_in, lives_in") is named once
        parts.append("states the user's " + _listed(c.answers, 3))
    if c.said_in_period:
        parts.append("said in the period the input asks about")
    if matched:
        parts.append("shares the words " + _listed(matched, 5))
    if link is not None:
        via = f"entity {link.entity}" if link.via is Via.ENTITY and link.entity else link.via.value.lower()
        parts.append(f"linked to {link.seed_id} via {via} (strength {link.strength:.2f})")
    if not parts:
        parts.append(f"cosine {c.cosine:.2f}")
    if s.freshness >= 0.5:
        parts.append("recent")
    if note:  # why it was damped, or ranked down as someone else's
        parts.append(note)
    return "; ".join(parts)


def _listed(items: Sequence[str], most: int) -> str:
    """The first `most` distinct items, in their order, comma separated (a why names each thing once)."""
    return ", ".join(list(dict.fromkeys(items))[:most])


def select(scored: Sequence[Scored], *, k: int, min_score: float = 0.0) -> list[Scored]:
    """The top k whose final score reaches min_score."""
    return [s for s in scored if s.scores.final >= min_score][:k]
