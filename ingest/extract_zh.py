"""The Chinese rules of the triple extractor: reading a zh clause, the zh rule tables and their helpers.

The driver (RuleTripleExtractor in ingest/extract.py) splits each clause with zh_subclauses and hands every clause
with Han characters to zh_clause, before the English rules; the rules add triples to the shared _State
(ingest/extract_core.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ingest.extract_core import (
    _EN_NAME,
    _EN_NON_NAMES,
    _LIST_PREDICATES,
    EMAIL_PATTERN,
    KIN_RELATIONS,
    PHONE_PATTERN,
    SINGLE_VALUED_PREDICATES,
    USER,
    WORK_FIELDS_EN,
    Favourite,
    _State,
    activity_name,
    favourite_category,
    is_occupation,
    is_sport,
    normalize_term,
    own_people,
    phone_ok,
)
from ingest.extract_routines import is_medicine_zh
from ingest.lexicon import (
    CONDITIONS_ZH_RE,
    DRINKS_ZH_PATTERN,
    FEELING_ZH_RE,
    GENERIC_PLACES_ZH,
    HAN,
    PLACE_SUFFIX_ZH_RE,
    PLACE_SUFFIXES_ZH,
    PLACES_ZH,
    RELATIONS_ZH,
    ROLE_SUFFIX_ZH_RE,
    is_question,
    simplified,
)

# ---------------------------------------------------------------------------------------------
# object cleaning

_ZH_TRAILING_RE = re.compile(r"(?:了|的|啊|呀|哦|呢|吧|啦|哈|嘛|哟|喔|咯|噢|!|~|\s)+$")
_ZH_QUANTITY_RE = re.compile(r"^(?:[一二两三四五六七八九十几半]|\d+)?(?:杯|碗|瓶|盘|份|块|个|只|点|些|口|罐)(?!人)")
_ZH_COORD_RE = re.compile(r"和|、|跟|以及|还有|及|与")


def _zh_clean(obj: str, *, tails: str = "") -> str:
    obj = obj.strip()
    if tails:
        obj = re.split(tails, obj, maxsplit=1)[0]
    prev = None
    while prev != obj:
        prev = obj
        obj = _ZH_TRAILING_RE.sub("", obj).strip()
    return obj


# An adverb between a topic and its verb (火锅还是我的最爱, 蓝色也是我最喜欢的颜色, 故宫也在北京): a lazy object
# that stops at 是 or 在 takes it along (火锅还); words whose last character is one (成都, 天才) keep it.
_ZH_ADVERB_AFTER_TOPIC = frozenset("还也都就才又却")
_ZH_WORDS_ENDING_LIKE_AN_ADVERB = ("成都", "首都", "京都", "古都", "帝都", "魔都", "天才", "人才", "口才", "成就",
                                   "刚才")


def _zh_topic(obj: str) -> str:
    """A topicalised object without the adverbs said after it: 火锅还 -> 火锅, 成都也 -> 成都 (成都 stays)."""
    while len(obj) > 1 and obj[-1] in _ZH_ADVERB_AFTER_TOPIC and not obj.endswith(_ZH_WORDS_ENDING_LIKE_AN_ADVERB):
        obj = obj[:-1]
    return obj


# 都, 就 and 才 as the adverb, not as the last character of a word (成都, 成就, 天才): for a split at the adverb
_ZH_ADVERB = r"(?:也|还|又|却|(?<![成首京古帝魔])都|(?<![成造])就|(?<![天人口刚])才)"
# The adverb opening another predicate after an object (北京也挺好, 程序员也是作家): where the object ends.
_ZH_ADVERB_THEN_MORE_RE = re.compile(_ZH_ADVERB + r"(?=是|要|在|挺|很|蛮|真|太|特别|非常|比较|不|没|会|能|可以)")


def _zh_object_ends(obj: str) -> str:
    """An object up to an adverb that says more of the subject (北京也挺好 -> 北京), without one left at its end
    (花生也 of 我对花生也过敏 -> 花生)."""
    return _zh_topic(_ZH_ADVERB_THEN_MORE_RE.split(obj, maxsplit=1)[0])


# A second verb phrase in one zh clause, with the subject left out: 我不吃香菜也不吃葱 / 我喜欢猫也喜欢狗.
_ZH_SECOND_VP_RE = re.compile(
    r"(?<=[\u4e00-\u9fffA-Za-z])(?=(?:也|还|又)(?:不太|不|没有?|从不|很|挺|特别|超)?"
    r"(?:吃|喝|喜欢|爱吃|爱喝|爱看|爱玩|讨厌|会说|会讲)(?!了?$))"
)


def zh_subclauses(clause: str) -> list[str]:
    """Split a zh clause before a second subjectless verb phrase (the next part continues the subject)."""
    if re.search(f"[{HAN}]", clause) is None or is_question(clause):
        return [clause]
    parts: list[str] = []
    for part in _ZH_SECOND_VP_RE.split(clause):
        if parts and not _ZH_FIRST_VP_RE.search(parts[-1]):
            parts[-1] += part  # "他也不吃辣": nothing was said before 也, so there is nothing to split
        elif part.strip():
            parts.append(part)
    return parts


_ZH_FIRST_VP_RE = re.compile(r"[吃喝爱欢厌说讲住养是]")


# Chinese names: 2-4 Han characters that are not a role, a time word or a verb phrase.
_ZH_NON_NAME_START = set("一个在很有是不我你他她这那做去都也还就会要想被把给让从对跟和已正太真最每上下教")
_ZH_NON_NAMES = frozenset(
    [
        "今年",
        "现在",
        "已经",
        "每天",
        "去年",
        "明年",
        "今天",
        "明天",
        "昨天",
        "医生",
        "老师",
        "护士",
        "律师",
        "学生",
        "工程师",
        "程序员",
        "设计师",
        "会计",
        "司机",
        "厨师",
        "警察",
        "公务员",
        "全职",
        "退休",
        "上班",
        "什么",
        "一个",
        "我们",
        "他们",
        "她们",
        "大家",
        "别人",
        "身体",
    ]
)
_ZH_NOT_AFTER_XIAO = set("孩时学心姨区组说吃子伙朋猫狗们费号便")
_ZH_SURNAMES = (
    "王李张刘陈杨赵黄周吴徐孙马朱胡林郭何高罗郑梁谢宋唐许韩冯邓曹彭曾肖田董潘袁蔡蒋余杜叶程魏苏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武戴莫孔汤"
)
_ZH_NAME_CHARS = rf"[{HAN}]{{2,4}}"


# What a health reading is of (胆固醇有点高): no name after a kinship word (我爸胆固醇有点高 names no father 胆固醇).
_ZH_HEALTH_MARKERS = r"胆固醇|血压|血糖|血脂|尿酸|甘油三酯"


def _looks_like_zh_name(s: str) -> bool:
    if re.fullmatch(rf"[{HAN}]{{2,4}}", s) is None:
        # a Latin name, not an acronym or type code (我是INFP, 我在做PM)
        return re.fullmatch(_EN_NAME, s) is not None and s.split()[0] not in _EN_NON_NAMES and not s.isupper()
    if s in _ZH_NON_NAMES or s[0] in _ZH_NON_NAME_START or re.match(_ZH_HEALTH_MARKERS, s):
        return False
    if len(s) >= 3 and s.endswith("人"):
        return False  # 重庆人, 东北人: where someone is from
    if re.search(r"[了的过来去到说着呢吗吧啊呀第次]", s):
        return False  # a verb phrase (第一次来, 说真), not a name
    if (re.fullmatch(rf"[小阿][{HAN}]", s) and s[1] not in _ZH_NOT_AFTER_XIAO) or re.fullmatch(
        f"老[{_ZH_SURNAMES}]", s
    ):
        return True  # 小宝, 阿珍, 老王: the familiar two-character forms of a name
    return ROLE_SUFFIX_ZH_RE.search(s) is None


def _looks_like_zh_venue(s: str) -> bool:
    """A named venue (星巴克): 2-6 Han characters that are not a generic place or a pronoun phrase."""
    return (
        re.fullmatch(rf"[{HAN}]{{2,6}}", s) is not None
        and s not in GENERIC_PLACES_ZH
        and not re.search(r"[我你他她这那家里上下]", s)
    )


# A person's name opening a clause about where they live or work (李雷在腾讯工作, 小美住在杭州, 老王搬到深圳了,
# 小美跳槽去了阿里): a surname and one
# or two characters, or 小/阿/老 and one, right before the verb (the person need not be named before).
_ZH_PERSON_LEAD_RE = re.compile(
    rf"(?P<n>[{_ZH_SURNAMES}][{HAN}]{{1,2}}?|[小阿老][{HAN}]|([{HAN}])\2)"
    rf"(?=(?:现在|目前|一直|也|还|刚|已经)?(?:住在|在[^，]{{1,16}}?(?:工作|上班)|搬(?:到|去|回)|跳槽"
    rf"|对[^，]{{1,12}}?过敏|有(?:哮喘|高血压|低血压|糖尿病|心脏病|癫痫)))"
)


def _zh_person_lead(c: str, st: _State) -> str | None:
    """The person a clause opens with: the one named earlier in the turn, or a name before 住在 / 在X工作."""
    if st.last_person and c.startswith(st.last_person) and len(c) > len(st.last_person):
        return st.last_person
    m = _ZH_PERSON_LEAD_RE.match(c)
    return m["n"] if m and _looks_like_zh_name(m["n"]) else None


# A role ending in 人 (自由撰稿人, 经纪人, 创始人): what one is, not where one is from (it read hometown 自由撰稿).
_ROLE_PERSON_ZH_RE = re.compile(r"(?:撰稿|经纪|主持|负责|合伙|创始|制片|候选|代言|发言|承包|继承|投资|监护|联系"
                                r"|介绍|证|手艺|诗|媒|创业|打工|带货|接班|领路|守护|策划|出品|监制|收件|寄件|当事|法"
                                r"|年轻|老|病|客)人$")


def _looks_like_zh_place(s: str) -> bool:
    s = s.strip()
    if not s or s in GENERIC_PLACES_ZH:
        return False
    if s in PLACES_ZH or PLACE_SUFFIX_ZH_RE.search(s):
        return True
    if re.fullmatch(_EN_NAME, s) and s.split()[0] not in _EN_NON_NAMES:
        return True  # a Latin proper noun inside a Chinese sentence (IKEA, Shanghai Disney)
    return any(s.startswith(p) for p in PLACES_ZH if len(p) >= 2) and len(s) <= 6


# ---------------------------------------------------------------------------------------------
# reading one clause


_ZH_REL_ALT = "|".join(sorted(map(re.escape, RELATIONS_ZH), key=len, reverse=True))

# zh adverbs that may sit between the subject and the verb (we read through them).
_ZH_ADV = (
    r"(?:也|还|都|就|真的|其实|现在|目前|已经|一直|平时|一般|基本上|基本|从来|向来|本来|以前|曾经|原来|退休(?:之)?前|每天|每周|早上"
    r"|晚上|中午|今年|最近|只|还是|通常|根本|完全|绝对|几乎|偶尔|经常|常常|天天|很少|比较|特别|非常|挺|很|超级|超"
    r"|最|真|好|蛮|确实|也都|同样|主要|又|更|可|才|倒是|一向|总是|向来都|刚刚|刚|就是|是真的)*"
)
_ZH_NEG = r"(?P<neg>不再|不太|不怎么|不大|一点都不|一点也不|从来不|从不|并不|再也不|已经不|不|没有|没)?"
_ZH_DEG = r"(?:太|怎么|很|特别|非常|挺|超级|超|最|真的|好|蛮|比较|那么)*"
_PAST_STATE_RE = re.compile(r"以前|曾经|原来|之前|过去|退休前")
_ZH_FUTURE_RE = re.compile(r"要去|要飞|打算|准备|计划|想去|将要|会去|下周|下个?月|明天|明年|后天")

_ZhHandler = Callable[[re.Match[str], str, _State, int], None]
# Discourse openers before a statement ("对了", "话说", "还有"): not part of what it says.
_ZH_OPENER_RE = re.compile(r"^(?:哦对了|对了|话说|还有|另外|顺便说一下|顺便说下)[，,]?(?=[^，,])")


def zh_clause(c: str, st: _State, episodic: bool) -> None:
    c = _ZH_OPENER_RE.sub("", c)  # 对了朵朵对花生过敏: what follows the opener is the statement
    if name := _zh_person_lead(c, st):
        st.last_person = name
        c = "她" + c[len(name):]  # 我姐姐叫小美，小美在腾讯工作: the person named, read as 她 would be
    if re.match(r"(?:(?:大|小|二)?(?:女儿|儿子|闺女)|男朋友|女朋友|男友|女友|老公|老婆)(?![们节公婆])"
                r"|(?:领导|老板|上司|主管)(?=叫(?![我你他她]))", c):  # 领导叫Amy 说话很冲: the boss named
        # 女儿转学了，现在在外国语学校读书, 男朋友 Kevin 在新加坡: chat leaves out the 我 of 我女儿 (read before the
        # clauses that open with a topic: 女友在东京读硕士 is no place 女友 is located in)
        c = "我" + c
    if _zh_follow_up(c, st) or _zh_whole_clause(c, st):
        return
    m = re.search(r"(我们|咱们|俺们|本人|我|俺|咱|他|她)", c)
    subject: str | None = None
    rest = c
    if m and _zh_prefix_ok(c[: m.start()]) and not c[m.end() :].startswith("们"):
        who = m.group(1)
        subject = USER if who in {"我", "我们", "咱们", "俺们", "俺", "咱", "本人"} else st.last_person
        rest = re.sub(r"^(?:这人|这个人|本人|自己)", "", c[m.end() :])  # 我这人就是爱吃辣, 我自己就是数学老师
        if subject is None:
            return
    elif st.subject is not None and _CONTINUATION_RE.match(c):
        subject = st.subject
    elif lead := _ZH_DROPPED_SUBJECT_RE.match(c):
        # chat drops the subject: "最近迷上了打羽毛球", "在字节做PM" (the user, or the person just named)
        subject = st.subject or USER
        rest = c[lead.end("lead") :]
    st.subject = subject if subject is not None else st.subject
    if subject == USER:
        unread = _zh_relations(rest, st)
        if unread is None:
            return
        if re.match(r"(?:家里?|家)?的?(?:亲|大|小|二|老)?(?:" + _ZH_REL_ALT + ")(?!毛|皮屑)", unread):
            # 我儿子今年六岁: what is said of an unnamed relative is not said of the user; where they live or
            # work and how to reach them is read, with the relative as the subject (我姐姐住在杭州)
            _zh_kin(unread, st)
            return
        rest = unread
    if subject is not None and subject in _ZH_KIN_SUBJECTS:
        _zh_attributes(rest, subject, st, _ZH_KIN_RULES)  # 我妈住在成都，在医院上班: still the unnamed relative
    elif subject is not None:
        _zh_attributes(rest, subject, st)
    if subject in (USER, None):
        _zh_going(c, st)
        _zh_visited(c, st, episodic)


def _zh_whole_clause(c: str, st: _State) -> bool:
    """Clauses that do not open with their subject: topicalised objects, nicknames, general knowledge."""
    # (not 领导叫我去开会: 叫 asking the speaker to do something, a verb after 叫我)
    if (m := re.search(r"叫我(?P<o>[^，]{1,8}?)(?:就行|就好|吧)?$", c)) \
            and not re.match(r"(?:去|来|做|帮|别|不要|回|给|早|快|多|少|把|在|跟|和|陪|带|写|改|加|开)", m["o"]):
        st.add(USER, "nickname", _zh_clean(m["o"]))
        return True
    # (a particle ending the sentence says nothing more: 北京烤鸭又是我的最爱了)
    if m := re.fullmatch(r"(?P<o>[^我你他她]{1,12}?)是我的?(?:最爱|心头好|命根子|命|本命|最喜欢的\S*)[了啊呀啦]*", c):
        st.add(USER, "likes", _zh_topic(_zh_clean(m["o"])))
        return True
    if (m := re.fullmatch(
        r"(?P<o>[^我你他她]{1,12}?)我(?:是)?"
        + _ZH_ADV
        + r"(?P<neg>一点都不|一点也不|不|从不)?"
        + _ZH_DEG
        + r"(?:爱|喜欢|戒不掉|离不开)(?:吃|喝|看|玩)?[了的啊呀]*",
        c,
    )) and _zh_topic_ok(_zh_clean(m["o"])):
        for part in _split_coord(_zh_clean(m["o"])):
            st.add(USER, "likes", _zh_clean(part), -1 if m["neg"] else 1)
        return True
    # a sport given up or taken up, said the way chat does: "badminton 不打了", 羽毛球早就不打了, 现在改玩 pickleball
    if m := _ZH_SPORT_DROPPED_RE.fullmatch(c):
        sport = _zh_clean(m["o1"]) if m["o1"] else _zh_sport_named(m["rest"])
        if sport and is_sport(sport):
            st.add(USER, "likes", activity_name(sport), -1 if m["o1"] else 1)
            return True
    if m := re.fullmatch(r"(?:我|俺)?(?:是|就是|简直)?无(?P<o>[^，]{1,2})不欢", c):
        st.add(USER, "likes", m["o"])  # 无辣不欢: cannot be happy without X
        return True
    if re.fullmatch(r"(?:我|俺)?" + _ZH_ADV + r"(?:是)?滴酒不沾(?:的)?", c):
        st.add(USER, "drinks", "酒", -1)  # 滴酒不沾: never touches alcohol
        return True
    if (m := _ZH_TOPIC_DISLIKE_RE.fullmatch(c)) and _zh_topic_ok(o := _zh_clean(m["o"])):
        predicate = {"吃不了": "eats", "吃不惯": "eats", "不吃": "eats", "喝不了": "drinks", "喝不惯": "drinks",
                     "不喝": "drinks"}.get(m["v"], "likes")
        for part in _split_coord(o):
            if "碰" in m["v"] or "沾" in m["v"]:  # 海鲜和啤酒都不敢碰: eats or drinks, by the thing
                predicate = "drinks" if re.fullmatch(_ZH_DRINKS, _zh_clean(part)) else "eats"
            st.add(USER, predicate, _zh_clean(part), -1)
        return True
    if (m := _ZH_TOPIC_EATS_RE.fullmatch(c)) and _zh_topic_ok(o := _zh_clean(m["o"])):
        for part in _split_coord(_zh_topic(o)):  # 鸡蛋和牛奶还是吃的: a topicalised food the speaker does eat
            st.add(USER, "eats" if m["v"] == "吃" else "drinks", _zh_clean(part))
        return True
    if st.pending_rel and re.fullmatch(rf"(?:{_ZH_WHICH_ONE}?叫[^，]{{1,8}}?)+", c):
        for m in re.finditer(rf"{_ZH_WHICH_ONE}?叫(?P<o>[^，]{{1,8}}?)(?={_ZH_WHICH_ONE}?叫|$)", c):
            name = _zh_clean(m["o"])
            if _looks_like_zh_name(name):
                st.add(USER, st.pending_rel, name)
                st.last_person = name
        return True
    if (
        (m := re.fullmatch(r"本人(?!是)(?:叫|名叫|姓名)?(?P<o>[^，]{2,12})", c))
        and _looks_like_zh_name(name := _zh_clean(m["o"]))
        and name[0] not in "比很挺太非特有男女较超"
    ):
        st.add(USER, "name", name)  # 本人王小明: a formal self-introduction
        return True
    # general knowledge: no first/second person in the clause, and not a continuation ("现在住在上海")
    if re.search(r"我|你|您|咱|俺|他|她", c) is None and not _CONTINUATION_RE.match(c):
        for pattern, predicate in _ZH_KNOWLEDGE:
            if m := pattern.fullmatch(c):
                subj, obj = _zh_topic(_zh_clean(m["s"])), _zh_clean(m["o"])  # 故宫也在北京: 故宫
                if (
                    predicate == "located_in"
                    and "位于" not in pattern.pattern
                    and (not _looks_like_zh_place(obj) or _zh_prefix_ok(subj))
                ):
                    continue  # "上次在成都吃的…" is an experience, not a fact about 上次
                if "发明" in pattern.pattern and not _looks_like_zh_place(obj):
                    continue  # 饺子是张仲景发明的: invented by a person, not from a place
                st.add(subj, predicate, obj, -1 if m.groupdict().get("neg") else 1, subject_kind="thing")
                return True
    return False


def _zh_relations(rest: str, st: _State) -> str | None:
    """我的妻子叫林静 / 我有一个妹妹 / 我的同事小刘也住在望京. Returns the rest to read, None when consumed."""
    if m := re.match(
        # (a one- or two-character modifier may come before the noun: 养了一只橘猫, 有一个好朋友)
        r"^(?:家里?|家里面)?(?:有|养了|养着|养)(?P<n>[一两二三四几])?(?:个|只|条|位|名)(?:[^，叫]{1,2}?)??(?P<r>"
        + _ZH_REL_ALT + r")"
        r"(?:(?:叫做|名叫|叫|名字叫)(?P<name>[^，]+))?",
        rest,
    ):
        rel = RELATIONS_ZH[m["r"]]
        if m["name"] is None:
            st.pending_rel = rel  # 我有一个妹妹，叫小雨
        elif (nm := _ZH_NAME_THEN_TAIL_RE.match(m["name"])) and _looks_like_zh_name(name := _zh_clean(nm["n"])):
            _zh_named(rel, name, nm["t"], st)  # 我家有只猫叫年糕
        return None
    if (m := re.match(
        # the name before the noun: 我养了一只叫旺财的柯基, 我有一个叫小雨的妹妹 (the whole clause, nothing after it)
        r"^(?:家里?|家里面)?(?:有|养了|养着|养)[一两二三四几]?(?:个|只|条|位|名)(?:叫做|名叫|叫)(?P<name>[^，的]{1,8})的"
        r"(?:[^，]{1,2}?)??(?P<r>" + _ZH_REL_ALT + r")$",
        rest,
    )) and _looks_like_zh_name(name := _zh_clean(m["name"])):
        _zh_named(RELATIONS_ZH[m["r"]], name, None, st)
        return None
    m = re.match(
        r"^(?:家里?|家)?的?(?:亲|大|小|二|老|最好的)?(?P<r>" + _ZH_REL_ALT + r")(?:的名字)?"
        r"(?P<v>叫做|名叫|叫|是|名字叫|名字是)(?:我的?)?(?P<n>[^，]+)$",
        rest,
    )
    if m:
        rel = RELATIONS_ZH[m["r"]]
        tail = m["n"]
        nm = _ZH_NAME_THEN_TAIL_RE.match(tail)
        if nm is not None:
            name = _zh_clean(nm["n"])
            # 是 names with a name (我同事是小李, 我妈是王芳), and describes with anything else (我妈是急性子)
            if _looks_like_zh_name(name) and (m["v"] != "是" or re.match(f"[{_ZH_SURNAMES}小阿老A-Za-z]", name)):
                _zh_named(rel, name, nm["t"], st)
                return None
        if m["v"] == "是" and re.match(r"(?:一)?[个位只条]", tail):
            st.pending_rel = rel  # 我老板是个老外，叫Mike: described, then named in the next clause
            return None
        return rest  # 我哥是医生: a relative's job (_zh_kin)
    m = re.match(
        r"^(?P<with>(?:跟|和|与|同)(?:我的?)?)?(?:家里?|家)?的?(?P<r>" + _ZH_REL_ALT
        + rf")(?!{_ZH_VERB_START})(?P<n>{_ZH_NAME_CHARS}?|[A-Z][A-Za-z]+)(?P<t>"
        + _ZH_NAME_TAIL
        + r".*|)$",
        rest,
    )
    # nothing after the name only for a doubled one, a child's pet name (我女儿朵朵), not 我妈做饭
    if m and not m["t"] and not (len(m["n"]) == 2 and m["n"][0] == m["n"][1] and m["n"] not in RELATIONS_ZH):
        m = None
    if m and _looks_like_zh_name(m["n"]) and not _zh_relation_goes_on(m["r"], rest[m.start("r"):]):
        # "我跟同事小李一起合租": what follows is said of both, so only the relation is read
        _zh_named(RELATIONS_ZH[m["r"]], m["n"], None if m["with"] else m["t"], st)
        return None
    return rest


# What opens a verb phrase right after a relation word, never a name (我妈住在成都: 住在成 is no name; 我爸以前是警察:
# 以前 is no name).
_ZH_VERB_START = (r"(?:住|在|是|也|还|都|就|不|没|很|去|要|想|已经|现在|目前|一直"
                  r"|以前|之前|原来|曾经|本来|平时|今年|去年|最近)")


def _zh_relation_goes_on(rel: str, text: str) -> bool:
    """Whether the relation word matched is the start of a longer one (姐 of 姐姐住在杭州: the name is not 姐住)."""
    return any(len(k) > len(rel) and k.startswith(rel) and text.startswith(k) for k in RELATIONS_ZH)


# The subject an unnamed relative gets: how the speaker calls them, one form per word (我姐 / 我姐姐 -> 姐姐).
_ZH_KIN_FORMS = {
    "姐": "姐姐", "妹": "妹妹", "哥": "哥哥", "弟": "弟弟", "妈": "妈妈", "老妈": "妈妈", "母亲": "妈妈", "爸": "爸爸",
    "老爸": "爸爸", "父亲": "爸爸", "妻子": "老婆", "太太": "老婆", "媳妇": "老婆", "丈夫": "老公", "女友": "女朋友",
    "男友": "男朋友", "小孩": "孩子",
}
_ZH_KIN_SUBJECTS = frozenset(
    f"{mod}{form}"
    for r, rel in RELATIONS_ZH.items()
    if rel in KIN_RELATIONS
    for mod, form in (("", _ZH_KIN_FORMS.get(r, r)), ("大", r), ("小", r), ("二", r))
)
_ZH_KIN_RE = re.compile(r"(?:家里?|家)?的?(?P<mod>亲|大|小|二)?(?P<r>" + _ZH_REL_ALT + r")(?P<t>.*)$")


def _zh_kin(unread: str, st: _State) -> None:
    """我姐姐住在杭州 / 我老公在华为上班 / 我妈的手机号是…: an unnamed relative's home, employer or contact detail;
    the next clauses without a subject are about them too (我妈住在成都，在医院上班), read the same way."""
    m = _ZH_KIN_RE.match(unread)
    if m is None or RELATIONS_ZH[m["r"]] not in KIN_RELATIONS:
        return
    if _zh_relation_goes_on(m["r"], unread[m.start("r"):]):
        return
    subject = m["mod"] + m["r"] if m["mod"] in {"大", "小", "二"} else _ZH_KIN_FORMS.get(m["r"], m["r"])
    st.subject = subject
    _zh_attributes(m["t"], subject, st, _ZH_KIN_RULES)


def _zh_named(rel: str, name: str, tail: str | None, st: _State) -> None:
    """A named person or pet: the relation, then what the same clause and the next subjectless ones say."""
    st.add(USER, rel, name)
    st.last_person = name
    st.subject = name  # "我儿子叫乐乐，刚满三岁": the next clause without a subject is about 乐乐
    if tail:
        _zh_attributes(tail.lstrip("，"), name, st)


def _zh_follow_up(c: str, st: _State) -> bool:
    """尤其是X / 特别是X after a preference, 现在在Y after a job or a home, 不是Z after a fact."""
    last = st.out[-1] if st.out else None
    if last is None:
        return False
    if last.predicate == "studies_at" and (
        m := re.fullmatch(r"(?:学的是|学的|学|专业是|读的是)(?P<o>(?!得)[^，很太挺好真]{2,6}?)(?:专业)?", c)
    ):
        st.add(last.subject, "major", _zh_clean(m["o"]))  # 我在南京大学读大三，学化学
        st.spans.append((0, len(c)))
        return True
    if last.predicate in {"works_at", "lives_in", "studies_at"} and (
        m := re.fullmatch(r"(?:现在|目前|如今|后来)(?:在|去了|到了|跳到了?|搬到了?)(?P<o>[^，]{2,12})", c)
    ):
        if _zh_org_ok(o := _zh_clean(m["o"])) and o != last.object:
            st.add(last.subject, last.predicate, o, 1)  # 我已经不在美团干了，现在在拼多多
            st.spans.append((0, len(c)))
            return True
        return False
    if (
        last.polarity == -1
        and last.subject_kind == "thing"
        and (m := re.fullmatch(r"(?:而)?是(?P<o>[^，]{1,12})", c))
    ):
        if last.predicate == "capital_of":  # X的首都不是Z，是Y: Y is the capital
            st.add(_zh_clean(m["o"]), last.predicate, last.object, subject_kind="thing")
        else:  # 豆腐不是起源于日本，是中国
            st.add(last.subject, last.predicate, _zh_clean(m["o"]), subject_kind="thing")
        st.spans.append((0, len(c)))
        return True
    if m := re.fullmatch(r"(?:而)?不是(?P<o>[^，]{1,12})", c):
        if (o := _zh_clean(m["o"])) in (last.object, last.subject) or not (
            last.subject_kind == "thing" or last.predicate in SINGLE_VALUED_PREDICATES
        ):
            return False
        if last.predicate == "capital_of":  # X的首都是Y，不是Z: Z is not the capital
            st.add(o, last.predicate, last.object, -last.polarity, subject_kind="thing")
        else:  # 我老家在成都，不是重庆 / 豆腐起源于中国，不是日本
            st.add(last.subject, last.predicate, o, -last.polarity, subject_kind=last.subject_kind)
        st.spans.append((0, len(c)))
        return True
    if last.predicate not in _LIST_PREDICATES:
        return False
    if m := re.fullmatch(r"(?:尤其是|特别是|尤其|especially\s*)(?P<o>[^，]{1,16})", c):
        for part in _split_coord(_zh_clean(m["o"])):
            st.add(last.subject, last.predicate, re.sub(r"^(?:吃|喝)", "", _zh_clean(part)), last.polarity)
        st.spans.append((0, len(c)))
        return True
    return False


def _zh_attributes(rest: str, subject: str, st: _State,
                   rules: Sequence[tuple[re.Pattern[str], _ZhHandler]] | None = None) -> None:
    """The subject's attributes in rest, by the rules given (default _ZH_RULES; an unnamed relative's:
    _ZH_KIN_RULES)."""
    rest = re.sub(r"^的", "", rest)
    for pattern, handler in rules if rules is not None else _ZH_RULES:
        for m in pattern.finditer(rest):
            if st.free(m.start(), m.end()):
                handler(m, subject, st, _zh_polarity(m))


def _zh_going(c: str, st: _State) -> None:
    """The places of a plan to go (_ZH_GOING_RE): a plan word before the verb or a time the plan is for; not what
    happened (上个月去东京出差, 去北京玩过), a wish alone (想去京都), a maybe nor someone's words
    (小鹿说五一想去京都)."""
    c = simplified(c)  # 先去墨爾本: the known places are written simplified (one character for one)
    if _ZH_PAST_TIME_RE.search(c):
        return
    for m in _ZH_GOING_RE.finditer(c):
        before, after = c[: m.start()], c[m.end():]
        if not (m["how"] or m["neg"] or _ZH_PLAN_TIME_RE.search(c)) or "说" in before \
                or re.search(r"可能|也许|或许|说不定", before) or (re.search(r"想|希望|梦想", before) and not m["how"]):
            continue  # a wish (想毕业后去日本打工度假), someone's words or a maybe (我明年可能会搬到上海) is no plan
        if re.match(r"(?:旅游|旅行|玩|出差|度假|看看)?过", after) or (not m["how"] and not m["neg"] and "了" in after):
            continue  # 去北京玩过, 国庆我们全家去三亚玩了, 春节去泰国清迈打了五天球: it happened
        if not re.search(r"我|咱|俺", before) and re.search(rf"[{HAN}A-Za-z]", _ZH_GOING_LEAD_RE.sub("", before)):
            continue  # someone else's (小鹿要去上海学新娘造型, Kevin 要去深圳常驻了, 公司年底团建要去舟山)
        place = _zh_clean(m["o"])
        if _looks_like_zh_place(place) and not _ZH_NOT_A_PLACE_START_RE.match(place):
            st.add(USER, "going_to", place, -1 if m["neg"] else 1)


def _zh_visited(c: str, st: _State, episodic: bool) -> None:
    if _ZH_FUTURE_RE.search(c) and not re.search(r"去[了过]", c):
        return
    for pattern in _ZH_VISITED:
        for m in pattern.finditer(c):
            place = _zh_clean(
                m["o"], tails=r"两次|好几次|一次|几次|旅游|旅行|玩|出差|度假|看|买|吃|边|那边|这边|的时候"
            )
            loose = pattern in _ZH_VISITED_LOOSE  # "在X<verb>": any specific-looking name will do
            if not (_looks_like_zh_place(place) or (loose and _looks_like_zh_venue(place))):
                continue
            if pattern in _ZH_VISITED_STRICT and not (episodic and _zh_strong_place(place, c)):
                continue
            needs_past = pattern not in _ZH_VISITED_DONE
            if needs_past and not (episodic or re.search(r"[了过]", c) or _ZH_PAST_TIME_RE.search(c)):
                continue
            if pattern is _ZH_VISITED[7] and not _ZH_PAST_TIME_RE.search(c):
                continue
            if re.search(r"(?:没|没有|从没|从来没|未曾|还没)去", c[: m.start("o")]):
                continue  # 我没去过厦门: never went
            if c[max(0, m.start() - 1): m.start()] in {"现", "正", "实", "存", "所"} and m.group(0).startswith("在"):
                continue  # 我现在可以吃辣了: 在 of 现在 is no place
            if st.free(m.start("o"), m.end("o")):
                st.add(USER, "visited", place)


# ---------------------------------------------------------------------------------------------
# favourites

_ZH_FAVOURITE_RE = re.compile(
    r"(?:^|我|俺)的?(?:现在|目前|最近|一直)*最(?:喜欢|爱)(?P<verb>吃|喝|看|听|玩|去)?的(?P<cat>[^，是的]{0,6}?)"
    r"(?:现在|目前|已经|就|还|其实|一直|都|也)*是(?P<o>[^，]+)"
    r"|^(?P<o2>[^我你他她，]{1,12}?)(?:现在|已经|就|才|一直)*是我的?(?:现在|目前)?最(?:喜欢|爱)(?P<verb2>吃|喝|看|听|玩|去)?的"
    r"(?P<cat2>[^，]{0,6}?)(?:了|啦|啊|呀)*$"
)


# A sport topicalised and given up (badminton 不打了), or switched to with no subject (现在改玩 pickleball): is_sport
# decides (不打了 of a game on a phone is none of it).
_ZH_SPORT_DROPPED_RE = re.compile(
    r"(?P<o1>[A-Za-z][A-Za-z ]{1,20}?|[\u4e00-\u9fff]{2,5}?)\s*(?:也|都|就|早就|已经)?不(?:打|玩|练|踢|跑|跳)了"
    r"|(?:现在|后来|最近|已经)?(?:改|换)(?:成|为)?(?:打|玩|练|踢)?了?\s*(?P<rest>.+)"
)


def _zh_sport_named(rest: str) -> str | None:
    """The sport a text opens with, if any: pickleball of "pickleball比较gentle", 羽毛球 of 羽毛球比较累."""
    if latin := re.match(r"[A-Za-z][A-Za-z ]*[A-Za-z]", rest):
        return latin[0] if is_sport(latin[0]) else None
    return next((rest[:n] for n in range(min(5, len(rest)), 1, -1) if is_sport(rest[:n])), None)


# 我现在不怎么打乒乓球了，改成羽毛球了: a sport no longer (the clause before), another now (this clause)
_ZH_SPORT_STOPPED_RE = re.compile(r"我(?:现在|最近|已经|后来)?(?:不怎么|不太|不再|没怎么|很少|不)"
                                  r"(?:打|玩|练|踢|去|做|跑)?(?P<old>[\u4e00-\u9fff]{2,6}?)了")
_ZH_SPORT_SWITCHED_RE = re.compile(r"(?:现在|后来|最近)?(?:改成|换成|改为|换为|改|换)了?"
                                   r"(?P<o>[\u4e00-\u9fff]{2,7}?)了?")


def zh_switched_sport(clause: str, before: str) -> tuple[str, str] | None:
    """(the sport given up, the sport taken up) when the clause switches to a sport the clause before stopped, as in
    我不怎么打乒乓球了，改成羽毛球了; None otherwise (我不怎么加班了，改成远程了 is no sport)."""
    stopped = _ZH_SPORT_STOPPED_RE.fullmatch(before.strip().rstrip("。！!.，,"))
    switched = _ZH_SPORT_SWITCHED_RE.fullmatch(clause.strip().rstrip("。！!.，,"))
    if stopped is None or switched is None:
        return None
    old, new = activity_name(stopped["old"]), activity_name(switched["o"])
    return (old, new) if is_sport(old) and is_sport(new) else None


def zh_favourites(c: str) -> list[Favourite]:
    """我最喜欢的颜色是蓝色 / 周杰伦是我最喜欢的歌手 / 我最喜欢吃的是火锅: (kind, value) for each value named
    (the kind is the noun, else the verb: 吃 = the favourite thing to eat)."""
    m = _ZH_FAVOURITE_RE.search(c)
    if m is None:
        return []
    category = favourite_category(m["cat"] or m["cat2"] or m["verb"] or m["verb2"] or "")
    if not category or category in {"东西", "事", "事情"}:
        return []  # 我最喜欢的是…: no kind; 最喜欢的事情: not one kind of thing
    out: list[Favourite] = []
    said = _zh_clean(m["o"] or m["o2"], tails=r"，|了|啦|吧|呀|啊")
    for part in _split_coord(said if m["o"] else _zh_topic(said)):  # 蓝色也是我最喜欢的颜色: 蓝色
        if value := normalize_term(_zh_clean(part)):
            out.append(Favourite(category, value, c))
    return out


# ---------------------------------------------------------------------------------------------
# helpers for the rule tables


# Which of several pets or children a name belongs to (一只叫橘子，另一只叫…).
_ZH_WHICH_ONE = r"(?:另?一[个只条位]|老大|老二|老三|小的|大的|大的那只|小的那只)"

# A topicalised object the speaker cannot stand, with the subject dropped or after it (香菜真的受不了, 香菜我吃不了).
_ZH_TOPIC_DISLIKE_RE = re.compile(
    r"(?:一点|一口|一滴|一点儿)?(?P<o>[^我你他她俺咱，]{1,8}?|[^我你他她俺咱，]{1,8}(?:、|和|跟)[^我你他她俺咱，]{1,8}?)"
    r"(?:(?:这些|这类|这种|之类的?|什么的)(?:东西|食物)?)?(?:我|俺)?(?:是)?(?:一点|一口|一滴|一点儿)?"
    + _ZH_ADV
    + _ZH_DEG
    + r"(?P<v>受不了|接受不了|忍不了|讨厌|不喜欢|不爱|无感|没感觉|不感冒|吃不了|吃不惯|喝不了|喝不惯|不吃|不喝"
    r"|不敢碰|不能碰|不碰|不沾|碰不了)"
    r"[了的啊呀]*"
)


# A topicalised food or drink the speaker does take, after a restriction (蛋和奶还是吃的, 咖啡倒是喝).
_ZH_TOPIC_EATS_RE = re.compile(
    r"(?P<o>[^我你他她俺咱，]{1,10}?)(?:我|俺)?(?:还是|倒是|也还是|照样|照常)(?:会|能|可以)?(?P<v>吃|喝)的?"
)


def _zh_topic_ok(o: str) -> bool:
    """A thing, not a time, a degree complement (热得受不了) or a feeling."""
    return (
        bool(o)
        and not _zh_prefix_ok(o)
        and not o.endswith(("得", "到", "死"))
        and re.match(r"[太好真很超挺]", o) is None
        and re.search(r"[了热冷累困疼痛饿吵忙烦掉完]$", o) is None  # (第一泡倒掉不喝: an action, not a thing)
        and FEELING_ZH_RE.search(o) is None
        and re.search(r"[这那]|今天|现在|最近", o) is None
        and re.fullmatch(r"(?:别|其他|其它|别人|其余)的?", o) is None  # 别的我也不爱: the rest, no thing
    )


# Where a Chinese name stops: an adverb, a verb or a time word right after it (小周就住我楼下, 陈浩也在北京).
_ZH_NAME_TAIL = (
    r"(?:也|还|都|就|才|又|刚|已经|正在|一直|现在|目前|平时|最近|去年|今年|明年|每天|住|在|是|很|特别|非常|超|挺|真|喜欢"
    r"|爱|讨厌|不|没|会|对|有|和|跟|当|做|学|读|上|从|下个?月|下周|上个?月|上周|昨天|前天|明天|后天|刚刚|一起|一块"
    r"|结婚|要|想|去|来|教|开|养|玩|打|练|带|，"
    # an age or a school year (我女儿朵朵三岁了, 女儿甜甜初二)
    r"|[一二三四五六七八九十两\d]+(?:岁|个月)|初[一二三]|高[一二三]|[一二三四五六]年级|大[一二三四]|研[一二三])"
)
# (a Latin name ends where Han characters begin: 领导叫Amy 说话很冲)
_ZH_NAME_THEN_TAIL_RE = re.compile(
    rf"(?P<n>[A-Za-z][A-Za-z' \-]*[A-Za-z]|{_ZH_NAME_CHARS}?)(?P<t>(?:{_ZH_NAME_TAIL}|(?<=[A-Za-z])\s*[{HAN}]).*)?$"
)

# A clause without its own subject that continues the previous one ("我爱猫，不太喜欢狗").
_CONTINUATION_RE = re.compile(
    r"^(?:也|还|都|不|却|现在|目前|以前|退休(?:之)?前|又|就|平时|一般|特别|最|很|挺|超|从不|只|更|反而|倒是|同时|是|专业|生日|名字|老家"
    r"|爱好|今年|在|刚|当|做|学的|读的|住|会说|养了|来自|base|戒|喜欢|爱|讨厌|受不了|迷上|对|一直)"
)

# What may follow the place gone back to (回老家潮州过年, 过年回成都待几天): not part of its name.
_HOME_VISIT_TAIL_ZH = r"过年|过节|看看|一趟|待|住|玩|了"
# Time words and discourse openers that may come before a dropped subject ("去年搬到了苏州").
_ZH_TIME_LEAD = (
    r"(?:去年|今年|前年|上个?月|这个?月|上周末?|上星期|这周|昨天|前天|今天|刚才|那次|上次|小时候|\d{4}年|周末|过年|春节|其实|说实话"
    r"|对了|另外|而且|所以|后来|那时候|当时|嗯|哦|啊|家里|最后|最终|终于|结果)*"
)
# A clause with no subject that opens with a verb only a person's own statement would (the first person dropped).
_ZH_DROPPED_SUBJECT_RE = re.compile(
    r"^(?P<lead>" + _ZH_TIME_LEAD + ")" + _ZH_ADV + r"(?:不太|不怎么|一点都不|不|没)?"
    r"(?:紧急联系人|迷上|爱上|喜欢|热爱|爱(?=[吃喝看玩听去打逛])|讨厌|受不了|接受不了|戒|吃不了|喝不了|吃不惯|不吃|不喝|不能吃|不能喝|住在|来自|会说|会讲"
    # 住 Richmond (with 在 dropped too): before a Latin place only (住院, 住校, 住一晚 are no home), and no lodging
    r"|住(?=\s?[A-Z][A-Za-z]+(?:\s[A-Z][A-Za-z]+)*\s?(?:，|$))(?![^，]*(?:酒店|宾馆|民宿|(?i:hotel|inn|hostel|airbnb)))"
    r"|养了|沉迷|对[^，]{1,12}?(?:过敏|感兴趣|不感兴趣|情有独钟)"
    r"|(?=(?!最近|现在|一直|经常|有点|容易)[^，对我你他她们]{2,8}?过敏$)"  # 海鲜过敏 (not 最近过敏: 最 is an adverb)
    r"|(?=(?:" + _ZH_HEALTH_MARKERS + r")[^，我你他她]{0,6}?(?:高|低|超标))"  # 血糖有点低: a reading of the user's
    r"|在[^，]{1,16}?(?:工作|上班|实习|任职|读研|读博|读书|上学"
    r"|做|当|干)|base在?|搬到|搬去|老家|回老家|学的是|读的是|专业是|租在|入职|跳槽(?=到|去)"
    r"|(?:下周|下个?星期|下个?月|明天|这周|本周|月底|年后)?(?:就|要|会)?去[^，]{1,12}?(?:当|担任)"  # 下周去阿里当设计师
    r"|(?:过年|春节)(?:要|准备|打算|得|就)?回|升(?=职?(?:成|为|到|做|当)?了?\s*[A-Za-z\u4e00-\u9fff])"
    r"|(?:被)?(?:调到|调去|调往|派到)(?=了?[^，]{1,10}?(?:分公司|子公司|分部|分行|分店|办事处|分院|总部))"
    r"|(?=(?:改喝|换喝|改成喝?|换成喝?)(?:" + DRINKS_ZH_PATTERN + ")))"  # 改喝茶了, 换成绿茶: a drink switched to
    r"(?![就啦吧呀啊你您的]|了?$)"
)

_ZH_PREFIX_OK_RE = re.compile(
    r"^(?:(?:去年|今年|明年|前年|上个?月|下个?月|这个?月|上周末?|下周[一二三四五六日天]?|上星期|这周|昨天|前天|今天|明天|后天"
    r"|刚才|最近|那次|上次|小时候|小学的时候|大学毕业那年|毕业那年|\d{4}年|周末|平时|每天|每周|其实|说实话|记住|所以|后来"
    r"|现在|以前|那时候|那天|春节|国庆|另外|对了|还有|而且|当时|这几天|前几天|就是|因为|嗯|哦|啊|好吧|[A-Za-z ]"
    # what a check found of the speaker (体检说我胆固醇偏高, 医生说我尿酸超标了)
    r"|(?:体检|检查|化验|复查)(?:报告|结果|单)?(?:说|显示|查出)|(?:医生|大夫)(?:说|讲))"
    r"(?:早上|晚上|下午|上午|中午|夏天|冬天|春天|秋天|的时候)?)*$"
)  # (Latin letters one at a time: "[A-Za-z ]+" inside the "*" backtracked exponentially, 0.15 s on "I have been
#    learning弹吉"; the strings matched are the same.)


def _zh_prefix_ok(prefix: str) -> bool:
    return _ZH_PREFIX_OK_RE.match(prefix) is not None


def _zh_polarity(m: re.Match[str]) -> int:
    groups = m.groupdict()
    neg = groups.get("neg")
    pre = groups.get("pre") or ""
    flip = groups.get("flip")
    polarity = -1 if neg else 1
    if flip:
        polarity = -polarity
    if polarity == 1 and _PAST_STATE_RE.search(pre):
        polarity = -1  # 我以前住在北京: used to, no longer
    return polarity


_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _zh_number(s: str) -> str:
    """ "二十八" -> "28" (ages are stored as digits); digits pass through."""
    if s.isdigit():
        return s
    if "十" in s:
        tens, _, ones = s.partition("十")
        return str((_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0))
    return str(_ZH_DIGITS.get(s, 0)) if len(s) == 1 else s


# Degree and quantity words opening one item of a list (粤语和一点日语 -> 日语).
_ZH_PART_DEGREE_RE = re.compile(r"^(?:一点点|一点儿|一点|一些|少量的|点|些|流利的|简单的|基本的|基础的)")


def _split_coord(obj: str) -> list[str]:
    parts = [p for p in _ZH_COORD_RE.split(obj) if p.strip()]
    return parts if len(parts) > 1 and all(len(p) >= 1 for p in parts) else [obj]


# A birthday is a day: a month or a day's number, a weekday, a festival, a day counted from today (下周三), not
# 快到 (我生日快到了), 那天去吃了火锅, or the 蛋糕 of 做生日蛋糕.
_ZH_DATE_LIKE_RE = re.compile(
    r"[\d零一二三四五六七八九十两]+\s*(?:月|日|号)|农历|阴历|正月|腊月|(?:周|星期|礼拜)[一二三四五六日天]|明天|后天|今天"
    r"|下个?月|这个?月|月底|月初|圣诞|元旦|春节|国庆|情人节|\d{1,2}[/.-]\d{1,2}")


def _zh_date_like(obj: str) -> bool:
    return _ZH_DATE_LIKE_RE.search(obj) is not None


# The people named by a relation whom later clauses speak of, by name or by 他 / 她: relatives and friends (not a
# boss or a colleague).
_ZH_NAMED_PERSON = (KIN_RELATIONS - {"boss"}) | {"friend"}


def _zh(
    predicate: str,
    *,
    tails: str = "",
    coord: bool = False,
    strip_verb: bool = False,
    check: Callable[[str], bool] | None = None,
) -> _ZhHandler:
    def handle(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
        obj = _zh_clean(m["o"], tails=tails)
        if predicate not in ("name", "nickname"):  # (小才, 阿才 are names)
            obj = _zh_object_ends(obj)
        if strip_verb:
            obj = re.sub(r"^(?:吃|喝|去(?=[爬跑游看打逛玩唱骑滑钓听徒露蹦泡]))", "", obj)  # 爱去爬山 -> 爬山
            obj = _ZH_QUANTITY_RE.sub("", obj)
        if re.match(r"一家|一个(?!人)|一所|某", obj) or (check is not None and not check(obj)):
            return
        if coord and _ZH_COORD_RE.search(obj):
            obj = re.sub(r"都$", "", obj)  # 对花粉和尘螨都过敏: 都 closes the list
        if predicate == "likes":
            if own_people(obj):
                return  # 我爱我老婆和孩子: the user's people, no liking (read whole: 孩子 alone is people in general)
            obj = re.sub(r"^太(?=[甜辣咸油酸苦腻淡]$)", "", obj)  # 不喜欢太甜的 -> 甜: a taste without its degree
        for part in _split_coord(obj) if coord else [obj]:
            st.add(subject, predicate, _zh_clean(_ZH_PART_DEGREE_RE.sub("", part.strip())), polarity)
        if predicate in _ZH_NAMED_PERSON:
            st.last_person = obj

    return handle


def _zh_is_a(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    raw = m["o"].split("，")[0].strip()
    obj = _zh_object_ends(_zh_clean(m["o"], tails=r"，|主要|平时|已经"))  # 程序员也是作家: 程序员
    obj = re.sub(r"^(?:一名|一个|一位|个|名|位|土生土长的|地道的|正宗的|纯正的)", "", obj)
    if not obj or re.search(r"我|你|的员工$", obj):
        return
    if allergy := re.fullmatch(r"对(?P<o>[^，]{1,16}?)过敏", obj):
        st.add(subject, "allergic_to", allergy["o"], polarity)  # 我不是对海鲜过敏，是对芒果过敏
        return
    if obj.endswith("人") and obj[:-1] in GENERIC_PLACES_ZH:
        return  # 我不是本地人: says where they are not from, without a place
    if obj.endswith("人") and len(obj) >= 3 and not ROLE_SUFFIX_ZH_RE.search(obj[:-1]) \
            and not _ROLE_PERSON_ZH_RE.search(obj):
        st.add(subject, "hometown", obj[:-1], polarity)  # 我是四川人 -> hometown 四川
        return
    if re.search(r"第.次|[了过着来去]$", obj):
        return  # 我是第一次来: an event, not an identity
    if re.match(r"(?:一)?[只条头匹]", obj):
        return  # 是只柯基: a breed said of a pet, not an identity
    if re.fullmatch(_ZH_NAMED_CONDITIONS, obj):
        st.add(subject, "has_condition", obj, polarity)  # 就是高血压 (after 我没有糖尿病): a condition, not a name
        return
    if raw.endswith("的"):
        if _looks_like_zh_place(obj):
            st.add(subject, "hometown", obj, polarity)  # 俺是东北的 -> hometown 东北
        return  # 我是认真的 / 我是坐地铁来的: a 是…的 statement, not an identity
    if subject == USER and _looks_like_zh_name(obj) and not ROLE_SUFFIX_ZH_RE.search(obj) and not is_occupation(obj):
        st.add(subject, "name", obj, polarity)  # 我是小明
        return
    st.add(subject, "is_a", obj, polarity)


# Work that names a job (在腾讯做后端开发, 在字节做PM), not any activity (在家做饭, 在健身房做瑜伽).
_ZH_JOB_RE = re.compile(
    r"[A-Za-z]{2,}|开发|设计|运营|产品|销售|测试|市场|财务|会计|人事|行政|客服|研发|算法|工程|编辑|记者|翻译|咨询|审计|法务"
    r"|采购|投资|分析|前端|后端|数据|运维|研究|实习|管理|项目|教学|老师|医生|护士|律师|策划"
)


def _zh_org_ok(obj: str) -> bool:
    """An employer or school, not a generic or possessed place (在家工作, 在我们这边上班)."""
    return (
        bool(obj)
        and obj not in GENERIC_PLACES_ZH
        and re.search(r"[我你他她这那]|家$|^家|^(?:一家|一个|一所|某)", obj) is None
        and re.search(r"考虑|打算|准备|想|换|找", obj) is None  # 我在考虑换工作: a thought, no employer
    )


def _zh_home_ok(obj: str) -> bool:
    """Where someone lives: not a generic or possessed place (住我楼下, 住在公司附近)."""
    return bool(obj) and obj not in GENERIC_PLACES_ZH and re.search(r"[我你他她这那]", obj) is None


# The measure word before a job (一名护士, 个老师): not part of it
_ZH_JOB_MEASURE = r"(?:一名|一个|一位|个|名|位)"


def _zh_job_at(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """在X当律师 / 在腾讯做后端开发: the employer (not a mere city) and, for 当/担任, the role."""
    org = _zh_clean(m["o"])
    job = re.sub(r"^(?:了|过)?(?:[\d一两二三四五六七八九十几半]+(?:年|个月|天))?(?:的)?", "", _zh_clean(m["job"]))
    # how long or how well after the job (在上海做HR做得好好的, 做会计做了三年): the job is before it
    job = re.sub(r"(?<=.)(?:做|干|当)(?:得|了[\d一两二三四五六七八九十几半]+(?:年|个月)).*$", "", job)
    if not _zh_names_work(job):
        return
    employer = _zh_employer(org)
    if employer:
        st.add(subject, "works_at", org, polarity)
    # 在阿里做产品经理 / 在南宁做会计 as 在南宁当会计 when 做 names a job (not 做项目; 不在美团做开发了 ends the
    # employer, not the trade)
    if m["v"] in {"当", "担任"} or (m["v"] == "做" and polarity == 1 and _zh_role_like(job)) \
            or (m.groupdict().get("up") and _zh_role_like(job)):  # 在阿里升职为设计主管
        st.add(subject, "is_a", re.sub("^" + _ZH_JOB_MEASURE, "", job), polarity)


def _zh_employer(org: str) -> bool:
    """Where one works is an employer when it is not a mere city or district (在南宁做会计 names no employer)."""
    return _zh_org_ok(org) and org not in PLACES_ZH and not PLACE_SUFFIX_ZH_RE.search(org)


def _zh_names_work(job: str) -> bool:
    """Work named by a role or a trade (律师, 后端开发, PM), for where one works; not any activity (做饭, 做瑜伽)."""
    return ROLE_SUFFIX_ZH_RE.search(job) is not None or _ZH_JOB_RE.search(job) is not None


def _zh_role_like(job: str) -> bool:
    """A job's name (会计, 产品经理, HR, product), not a task or a field of work (做饭, 做项目, 做研究)."""
    # in English: a job's name, a field (product) or a short title (PM, HR), not any activity (做 yoga)
    return (ROLE_SUFFIX_ZH_RE.search(job) is not None or is_occupation(job)
            or re.fullmatch(r"[A-Za-z]{2,3}", job.strip()) is not None or normalize_term(job) in WORK_FIELDS_EN)


_ZH_IS_A_SAID = _zh("is_a")  # the object as said (是做HR的)


def _zh_does_for_work(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我是做HR的: what the subject does for work; 我做会计的 (no 是) only when it names a job (not 我做饭的)."""
    if m["o"]:
        _ZH_IS_A_SAID(m, subject, st, polarity)
    elif _zh_role_like(job := _zh_clean(m["o2"])):
        st.add(subject, "is_a", job, polarity)


def _zh_job_of(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我是小红书的UI设计师: a job at a named employer (not a city: 我是北京的老师 says only the job)."""
    org, job = _zh_clean(m["o"]), _zh_clean(m["job"])
    if not _zh_names_work(job) or job.endswith("人"):
        return
    if (
        _zh_org_ok(org)
        and not _looks_like_zh_place(org)
        and not (org[0] in _ZH_SURNAMES and len(org) <= 3)
        and re.search(r"[里上中内外边]$", org) is None  # 我是班上的学生, 公司里的: a where, not an employer
    ):
        st.add(subject, "works_at", org, polarity)
    st.add(subject, "is_a", job, polarity)


# Where one moved to and the job there (字节做产品经理, 一个 startup 做 Head of People)
_ZH_NEW_JOB = r"[^，]{1,16}?(?:做|当|担任)(?:\s*[A-Za-z][A-Za-z &/-]{1,40}|[^，]{1,12})"


def _zh_job_change(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """(从X)跳槽到Y: Y is the employer now, X no longer; 跳槽到Y做Z: Z the job now, when it names one (我 switch 到一个
    startup 做 Head of People 了)."""
    if m["old"] and _zh_org_ok(old := _zh_clean(m["old"])):
        st.add(subject, "works_at", old, -1)
    new = _zh_clean(m["o"], tails=_STOP_TAIL_ZH)
    job = None
    if as_job := re.fullmatch(r"(?P<org>.+?)(?:做|当|担任)(?P<job>.+?)了?", new):
        new, job = as_job["org"].strip(), re.sub("^" + _ZH_JOB_MEASURE, "", as_job["job"].strip())
    if _zh_org_ok(new):
        st.add(subject, "works_at", new, 1)
    if job and _zh_role_like(job):
        st.add(subject, "is_a", job, 1)


# 要 / 会 / 得 before what is drunk says a habit after a word of one (我每天早上都要喝一杯美式咖啡, 我平时不会喝酒), a
# wish or a plan otherwise (我要喝一杯咖啡); not read before 吃 (我每天早上要吃一片优甲乐: a medicine by brand)
_ZH_HABIT_MODAL = r"(?P<must>要|会|得)?"
_ZH_HABIT_RE = re.compile(r"每天|天天|每[周晚早日]|每个(?:早上|晚上|周末)|平时|一般|通常|总是|经常|习惯|向来|一向")


def _zh_habit(handler: _ZhHandler) -> _ZhHandler:
    """handler, for a match whose 要 / 会 / 得 (group must) follows a word of a habit; a match without one as is."""
    def handle(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
        if m["must"] and not _ZH_HABIT_RE.search(m["pre"] or ""):
            return
        handler(m, subject, st, polarity)
    return handle


# A job left in the turn: what one goes to take next is the job now (我从网易离职了，下周去阿里当设计师)
_ZH_JOB_LEFT_RE = re.compile(r"离职|辞职|辞了职|裸辞|跳槽|(?:工作|公司)不干了|(?i:\b(?:quit|left)\b)")


def _zh_go_work_as(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """去阿里当高级产品设计师: the employer (not a city) and the role, when said as done (了) or with the old job left
    in the same turn; no wish, maybe or plan word before it."""
    org, job = _zh_clean(m["o"]), re.sub("^" + _ZH_JOB_MEASURE, "", _zh_clean(m["job"]))
    if subject != USER or polarity != 1 or not _zh_role_like(job) \
            or re.search(r"想|可能|也许|打算|准备|考虑|希望|计划", m["pre"]) \
            or not ((m["done"] and not m["when"]) or _ZH_JOB_LEFT_RE.search(st.turn)):
        return
    if _zh_employer(org):
        st.add(subject, "works_at", org)
    st.add(subject, "is_a", job)


# What one gives up (戒酒, 戒了咖啡, 戒糖): drinks, else foods; 戒烟 has no predicate.
_ZH_DRINKS = r"酒|白酒|啤酒|红酒|咖啡|奶茶|可乐|饮料|茶|碳酸饮料"
_ZH_GIVE_UP = _ZH_DRINKS + r"|糖|甜食|碳水|肉|零食|夜宵|宵夜|辣|油炸食品|烟酒"


# What is eaten or drunk, to the clause's end: not 过 (我没吃过榴莲), nor a clause going on with a person
# (不喝咖啡我上班会死的 says the opposite of a no to coffee).
_ZH_DIET_OBJECT = r"(?P<o>[^，了过我你他她][^，了我你他她]*)(?=$|[，了])"


def _zh_school_and_major(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    st.add(subject, "studies_at", _zh_clean(m["o"]))
    st.add(subject, "major", _zh_clean(m["major"]))


# Where a food or drink refused ends (不吃晚饭坚持了一周: 晚饭; how long the user kept it up is no part of it)
_ZH_FOOD_TAILS = r"，|已经|了|也|的|啊|坚持|持续"


def _zh_cannot(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我喝不了咖啡 / 我不能吃辣 / 我吃不惯香菜: the food or drink, negated."""
    verb = m["v"] or m.groupdict().get("v2")
    predicate = "eats" if verb == "吃" else "drinks"
    obj = _ZH_QUANTITY_RE.sub("", _zh_clean(m["o"], tails=_ZH_FOOD_TAILS + r"|太|一"))
    st.add(subject, predicate, obj, -1)


def _zh_gave_up(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我戒酒两年了 -> (drinks, 酒, -1); 我戒糖了 -> (eats, 糖, -1)."""
    obj = "酒" if m["o"] == "烟酒" else m["o"]
    st.add(subject, "drinks" if re.fullmatch(_ZH_DRINKS, obj) else "eats", obj, -1)


def _zh_favourite(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我最喜欢的颜色是蓝色 / 我的爱好是摄影和爬山."""
    for part in _split_coord(_zh_clean(m["o"] or m["o2"] or m["o3"])):
        st.add(subject, "likes", _zh_clean(part))


def _zh_dislike(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """讨厌 / 受不了 X: a dislike is likes with polarity -1."""
    for part in _split_coord(_zh_clean(m["o"], tails=r"，|的味道|的气味")):
        st.add(subject, "likes", re.sub(r"^(?:吃|喝)", "", part), -1)


def _zh_emergency(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """紧急联系人是我姐姐王丽 / 紧急联系人写我老公: the contact, and the relation when a name follows it."""
    obj = _zh_clean(m["o"], tails=r"，|电话|手机|吧|就行|就好")
    if m["r"] and _looks_like_zh_name(obj):
        st.add(subject, RELATIONS_ZH[m["r"]], obj)
    elif m["r"]:
        obj = _zh_clean(m["r"] + m["o"], tails=r"，|电话|手机|吧|就行|就好")  # 紧急联系人是我姐姐: the relative
    st.add(subject, "emergency_contact", obj)


# The conditions a speaker names bare after the subject (我痛风 / 我高血压): the explicit ones only.
_ZH_NAMED_CONDITIONS = CONDITIONS_ZH_RE.pattern.split("|[")[0].removeprefix("(?:")

# How long, closing the clause (跳槽到字节三个月了, 搬到上海快一年了, 搬到杭州也三年了): not part of the place (nor
# is the 都 of 成都: 搬到成都三年了)
_ZH_HOW_LONG_TAIL = (rf"(?:快|{_ZH_ADVERB}|刚|差不多|将近|已经)?(?:[一两二三四五六七八九十半几\d]+|好几)"
                     r"(?:个多?|多个?)?(?:月|年|周|星期|礼拜|天)多?(?=了?$)")
_STOP_TAIL_ZH = r"，|已经|了|工作|上班|生活|的时候|这个|一定|每天|吃了|不能|" + _ZH_HOW_LONG_TAIL

_P = _ZH_ADV

# A move still to come (我明年可能会搬到上海, 我打算搬到深圳): no home yet, as "I might move to Berlin next year"
# is not.
_ZH_MOVE_TO_COME_RE = re.compile(
    r"(?:可能|也许|或许|大概|打算|准备|计划|考虑|想|要|会|将|即将|快)(?:会|要)?搬"
    r"|明年|下个?月|下周|下星期|下礼拜|将来|以后|过几天|过段时间|年底前"
)
# Where one lives now, said beside a trip (我们全家去年去杭州玩了一周，住在西湖边: a stay, not a home, unless said so).
_ZH_HOME_NOW_RE = re.compile(r"现在|目前|一直|如今|平时|家(?:在|住)")


def _zh_lives(*, tails: str) -> _ZhHandler:
    """lives_in, but not where the turn's trip stayed (a visit read before it, no word of now) nor a move to come."""
    lives = _zh("lives_in", tails=tails, check=_zh_home_ok)

    def handle(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
        said = m.string[: m.end()]
        if "搬" in m.group(0) and _ZH_MOVE_TO_COME_RE.search(said):
            return
        if any(t.predicate == "visited" and t.subject == subject for t in st.out) and not _ZH_HOME_NOW_RE.search(said):
            return
        lives(m, subject, st, polarity)

    return handle


# Where one lives and works, and how to reach one: read of the speaker and of an unnamed relative (_ZH_KIN_RULES).
_ZH_LIVES_RULES: list[tuple[re.Pattern[str], _ZhHandler]] = [
    (
        # (我租房住在海淀: rented, still where one lives)
        re.compile(r"^(?P<pre>" + _P + r")(?:租房子?|租了?房子?)?" + _ZH_NEG
                   + r"(?:住在|住|生活在|定居在|定居|居住在|租在)(?P<o>[^，]+)"),
        _zh_lives(tails=_STOP_TAIL_ZH + r"|附近|那边|这边|(?:好|这)?几年|多年|[一两三四五六七八九十\d]+年(?:多)?"),
    ),
    (
        re.compile(
            r"^(?P<pre>" + _P + ")" + _ZH_NEG + r"在(?P<o>[^，]{1,12}?)(?:生活|定居|居住|住过|租房子?住|租房"
            r"|租了?房子?|安家|住(?=了?$|了?[\d一两二三四五六七八九十几半]+年))"
        ),
        _zh_lives(tails=""),
    ),
    (re.compile(r"搬(?:到|去|来)了?(?P<o>[^，]+)"), _zh_lives(tails=_STOP_TAIL_ZH + r"|住|去了?$|来了?$")),
]
_ZH_WORKS_AT_RULE: tuple[re.Pattern[str], _ZhHandler] = (
    re.compile(
        r"^(?P<pre>" + _P + ")" + _ZH_NEG + r"在(?P<o>[^，]{1,16}?)(?:工作|上班|上过班|工作过|任职|实习|打工"
        r"|干(?=了?$|过)|送外卖|跑外卖|送快递|跑腿|开网约车)"  # (gig work: 在美团送外卖)
    ),
    _zh("works_at", check=_zh_org_ok),
)
_ZH_CONTACT_RULES: list[tuple[re.Pattern[str], _ZhHandler]] = [
    # 我的手机号是138… / 我电话换成了… (not a work line, which is another number)
    (
        re.compile(
            r"^(?:" + _P + r")(?:手机号码|手机号|手机|电话号码|电话|联系电话)(?:也|还|现在|已经)*"
            r"(?:是|为|换成了?|改成了?)(?P<o>" + PHONE_PATTERN + ")"
        ),
        lambda m, s, st, p: st.add(s, "phone", m["o"].strip(), p) if phone_ok(m["o"]) else None,
    ),
    (
        re.compile(
            r"^(?:" + _P + r")(?:邮箱地址|邮箱|电子邮箱|电子邮件|邮件地址|(?i:e-?mail)(?:地址)?)(?:也|还|现在|已经)*"
            r"(?:是|为|换成了?|改成了?)(?P<o>" + EMAIL_PATTERN + ")"
        ),
        lambda m, s, st, p: st.add(s, "email", m["o"], p),
    ),
    # 我的新地址是上海市浦东新区...: the city the address is in is where the speaker lives
    (
        re.compile(r"^(?:" + _P + r")(?:新|家庭|家里的|现在的|家)?(?:住址|地址)(?:也|还|现在|已经)*"
                   r"(?:是|为|换成了?|改成了?)(?:中国)?(?P<o>[\u4e00-\u9fff]{2,3}?)市(?!场)"),
        # 华联超市楼上 names a supermarket, no city
        lambda m, s, st, p: st.add(s, "lives_in", m["o"], p) if not m["o"].endswith("超") else None,
    ),
]
# Allergies and conditions, of the speaker or a person named (朵朵对花生过敏); an unnamed relative's are not read
# (tests/data/README.md: 我女儿对牛奶过敏 is labelled without a triple). "什么都不过敏" is no allergy.
_ZH_HEALTH_RULES: list[tuple[re.Pattern[str], _ZhHandler]] = [
    # a reading out of range (胆固醇有点高, 血糖偏低): a condition a meal or a plan must respect; not asked (血压高吗)
    (re.compile(r"(?P<o>" + _ZH_HEALTH_MARKERS + r")(?:指标|值|水平)?(?:有点|有些|比较|很|挺|太|偏|超|一直|还是"
                r"|都|也|又|特别|非常)*(?P<lvl>偏高|偏低|超标|高|低)(?![^，]*(?:吗|么|不高|不低))"),
     lambda m, s, st, p: st.add(s, "has_condition", m["o"] + ("低" if "低" in m["lvl"] else "高"))),
    (re.compile(r"对(?P<o>(?!什么|啥|任何)[^，]{1,16}?)" + _ZH_NEG + r"过敏"), _zh("allergic_to", coord=True)),
    # 我有点花粉过敏, 我轻微猫毛过敏: how much is no allergen (我有点过敏 names none)
    (re.compile(r"^(?P<pre>" + _P + r")(?:有点|有些|有|轻微|轻度|严重|重度)?"
                r"(?P<o>(?![^，]*(?:什么|啥|任何)[^，]*都)(?!有点|有些)[^，对]{1,10}?)过敏"),
     _zh("allergic_to", coord=True)),
    (
        re.compile(r"(?:(?P<neg>没)有|患有|得了|患了|确诊了?|有)(?P<o>" + CONDITIONS_ZH_RE.pattern + ")"),
        _zh("has_condition"),
    ),
]
# An unnamed child's school, by a school's name (我女儿在实验小学上三年级, 现在在外国语学校读书): one at a time
_ZH_KIN_SCHOOL_RULE: tuple[re.Pattern[str], _ZhHandler] = (
    re.compile(r"^(?P<pre>" + _P + r")在(?P<o>[^，在]{1,10}?(?:小学|中学|学校|幼儿园|学院|大学|附小|附中"
               r"|[一二三四五六七八九十]中|高中|初中))"
               r"(?:上学|读书|念书|上课|读|上|念)"),
    _zh("studies_at", check=_zh_org_ok),
)
# 在X当律师 / 在腾讯做后端开发 (the speaker's job and a relative's: _zh_job_at, _zh_kin_job_at); a job title in
# English is longer as written (在一家外企做 brand marketing manager)
_ZH_JOB_AT_RE = re.compile(r"^(?P<pre>" + _P + ")" + _ZH_NEG + r"在(?P<o>[^，]{1,16}?)"
                           r"(?P<up>升职|晋升|被提拔|被提升|升)?(?P<v>当|做|干|担任|(?<=[职升拔])(?:成|为|到))"
                           r"(?P<job>[^，]{1,12}|\s*[A-Za-z][A-Za-z &/-]{1,40})$")
# Job words that also name a task (我在做测试: testing today): no job read from 在做 / 做了
_ZH_WORK_OF_THE_DAY = frozenset({"测试", "开发", "设计", "运营", "产品", "销售", "翻译", "编辑", "前端", "后端"})


def _zh_kin_job_at(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我妹在墨尔本当护士 / 我哥在腾讯做后端开发: a relative's employer (not a mere city) and the job, when it names
    one (在医院做手术 names none)."""
    org = _zh_clean(m["o"])
    job = re.sub("^" + _ZH_JOB_MEASURE, "", _zh_clean(m["job"]))
    if not is_occupation(job):
        return
    if _zh_employer(org):
        st.add(subject, "works_at", org, polarity)
    st.add(subject, "is_a", job, polarity)


# A relative's job (我哥是医生, 我老婆当老师, 我弟在深圳做程序员): only a job's name, as a relative "是" much else
# (我妈是急性子, 我爸是河南人, 我姐是个吃货).
_ZH_KIN_JOB_RULES: list[tuple[re.Pattern[str], _ZhHandler]] = [
    (_ZH_JOB_AT_RE, _zh_kin_job_at),
    (re.compile(r"^(?P<pre>" + _P + ")" + _ZH_NEG + r"(?:是|当|在做|在当|做了|当了)" + _ZH_JOB_MEASURE
                + r"?(?P<o>[^，的]{1,12})$"),
     _zh("is_a", check=is_occupation)),
]
_ZH_KIN_RULES: list[tuple[re.Pattern[str], _ZhHandler]] = [*_ZH_LIVES_RULES, _ZH_WORKS_AT_RULE, *_ZH_CONTACT_RULES,
                                                           _ZH_KIN_SCHOOL_RULE, *_ZH_KIN_JOB_RULES]


def _zh_parted(m: re.Match[str], subject: str, st: _State, polarity: int) -> None:
    """我和小美分手了 -> (partner, 小美, -1); 我和王强离婚了 -> (spouse, 王强, -1)."""
    name = _zh_clean(m["o"])
    if subject == USER and _looks_like_zh_name(name):
        st.add(subject, "spouse" if m["how"] == "离婚" else "partner", name, -1)


_ZH_RULES: list[tuple[re.Pattern[str], _ZhHandler]] = [
    *_ZH_CONTACT_RULES,
    # 我教小学数学 / 我在一中教高中英语: a teacher
    (re.compile(r"^(?:现在|目前|一直)?(?:在[^，]{1,12}?)?教(?:小学|初中|高中|中学|大学|幼儿园|[一二三四五六七八九]年级|高[一二三]"
                r"|初[一二三])"),
     lambda m, s, st, p: st.add(s, "is_a", "老师", p)),
    # 我升 branch manager 了 / 升主管了 / 升成了店长: the role promoted to (a role, not 升级 or 升学)
    (re.compile(r"^(?:刚|已经|终于|总算)?(?:升|被提拔|被提升|晋升)(?:职)?(?:成|为|到|做|当)?了?\s*(?P<o>[^，了]{1,20}?)\s*了?$"),
     lambda m, s, st, p: st.add(s, "is_a", job, p) if _zh_role_like(job := _zh_clean(m["o"])) else None),
    (re.compile(rf"^(?:已经)?(?:和|跟)(?P<o>[{HAN}A-Za-z]{{2,4}}?)(?:已经|上个月|前段时间|最近)?(?P<how>分手|离婚)"),
     _zh_parted),
    # 我和小王结婚了 / 我最近在和小王谈恋爱: the spouse, the partner now (not 想和小王在一起, 下个月结婚: to come)
    (re.compile(rf"^(?:最近|现在|已经|去年|今年|上个月)*在?(?:和|跟)(?P<o>[{HAN}A-Za-z]{{2,4}}?)(?:已经|去年|今年|上个月|最近)?"
                rf"(?P<how>结婚了|领证了|谈恋爱|交往|在一起了)"),
     lambda m, s, st, p: st.add(s, "spouse" if m["how"] in ("结婚了", "领证了") else "partner", m["o"])
     if s == USER and _looks_like_zh_name(m["o"]) and not _ZH_FUTURE_RE.search(m.string) else None),
    # 我现在单身 / 我是单身: no partner now (relationship_conflict)
    (re.compile(r"^(?:现在|目前|还|还是|一直|也)*(?P<neg>不是|并不是)?(?:是)?单身(?:狗|一人)?(?:了|呢|啊)?$"),
     lambda m, s, st, p: st.add(s, "is_a", "单身", -1 if m["neg"] else 1) if s == USER else None),
    (
        re.compile(r"^的?(?:英文名字?|小名|外号|网名|昵称|绰号|花名)(?:是|叫)(?P<o>[^，]{1,16})$"),
        _zh("nickname", tails=r"，|就行|就好"),
    ),
    (re.compile(r"^(?:的)?名字(?:是|叫)(?P<o>.+)$"), _zh("name")),
    (re.compile(r"^" + _P + r"叫(?P<o>[^，]{1,12})$"), _zh("name", check=_looks_like_zh_name)),
    (re.compile(r"生日(?:是|在|为)?(?P<o>[^，]+)$"), _zh("birthday", tails=r"，|啊|呀", check=_zh_date_like)),
    (
        re.compile(
            r"今年(?P<o>[\d零一二两三四五六七八九十]{1,3})(?:周岁|岁|了|$)|(?P<o2>[\d零一二两三四五六七八九十]{1,3})(?:周岁|岁)"
        ),
        lambda m, s, st, p: st.add(s, "age", _zh_number(m["o"] or m["o2"])),
    ),
    (
        re.compile(r"紧急联系人(?:是|为|写|填|填写|就写|就填)(?:我的?)?(?P<r>" + _ZH_REL_ALT + r")?(?P<o>[^，]+)"),
        _zh_emergency,
    ),
    (
        re.compile(
            r"(?:学的|读的|念的|专业)是(?P<o>[^，]+?)(?:专业)?(?:的)?$|学(?P<o2>[^，]{2,8})专业|是(?:学|读)(?P<o3>[^，]{2,8}?)"
            r"(?:专业)?的$|^学的(?!是)(?P<o4>[^，是很挺太不还也都就真好特非]{2,10}?)(?:专业)?$"
        ),
        lambda m, s, st, p: st.add(s, "major", _zh_clean(m["o"] or m["o2"] or m["o3"] or m["o4"])),
    ),
    *_ZH_LIVES_RULES,
    (
        re.compile(r"从(?P<o>[^，]{1,10}?)(?=搬(?:到|去|走|出来))"),
        lambda m, s, st, p: st.add(s, "lives_in", o, -1) if _looks_like_zh_place(o := _zh_clean(m["o"])) else None,
    ),
    (re.compile(r"老家(?:在|是)(?P<o>[^，]+)"), _zh("hometown", tails=_STOP_TAIL_ZH)),
    (re.compile(r"回(?:了)?老家(?P<o>[^，了]{2,6})"),
     _zh("hometown", tails=_HOME_VISIT_TAIL_ZH, check=_looks_like_zh_place)),  # 回老家长沙
    # 过年回潮州: where one goes back to for the New Year is one's home town; 我老家潮州的
    (re.compile(r"(?:过年|春节|过春节)(?:要|准备|打算|得|就)?回(?:了)?(?P<o>[^，了]{2,6})"),
     _zh("hometown", tails=_HOME_VISIT_TAIL_ZH, check=_looks_like_zh_place)),
    (re.compile(r"^(?P<pre>" + _P + r")老家(?P<o>[^，在是]{2,6}?)(?:的|人)?$"),
     _zh("hometown", check=_looks_like_zh_place)),
    (re.compile(r"^(?P<pre>" + _P + r")来自(?P<o>[^，]{1,12})"), _zh("hometown", check=_looks_like_zh_place)),
    (re.compile(r"^(?P<pre>" + _P + r")是从(?P<o>[^，]{1,10}?)来的"), _zh("hometown", check=_looks_like_zh_place)),
    (
        re.compile(r"^(?P<pre>" + _P + r")(?:base在?|常驻|长居)(?P<o>[^，]{1,12})"),
        _zh("lives_in", tails=_STOP_TAIL_ZH, check=_looks_like_zh_place),
    ),
    (
        re.compile(r"(?:从小)?在(?P<o>[^，]{1,10}?)长大|出生(?:在|于)(?P<o2>[^，]+)"),
        lambda m, s, st, p: st.add(s, "hometown", o) if _zh_home_ok(o := _zh_clean(m["o"] or m["o2"])) else None,
    ),
    _ZH_WORKS_AT_RULE,
    (_ZH_JOB_AT_RE, _zh_job_at),
    (re.compile(r"入职了?(?P<o>[^，]{1,12})"), _zh("works_at", tails=_ZH_HOW_LONG_TAIL, check=_zh_org_ok)),
    # 我去腾讯上班了 / 现在去字节工作了: started there (not 下个月去腾讯上班, nor 想去腾讯上班: still to come)
    (
        re.compile(r"^(?P<pre>" + _P + r")去(?P<o>[^，]{1,12}?)(?:上班|工作)了$"),
        lambda m, s, st, p: st.add(s, "works_at", o)
        if _zh_org_ok(o := _zh_clean(m["o"])) and not _ZH_FUTURE_RE.search(m.string)
        and re.search(r"要|会|想|可能|打算|准备", m["pre"]) is None else None,
    ),
    # 下周去阿里当高级产品设计师 after 我从网易离职了, 去字节当产品经理了: the employer and the job one goes to take,
    # said as done or with the old job left in the turn (not a wish or a plan alone: 想去腾讯当产品经理,
    # 下个月去腾讯上班)
    (
        re.compile(r"^(?P<pre>" + _P + r")(?P<when>下周|下个?星期|下个?月|明天|这周|本周|月底|年后)?(?:就|要|会)?"
                   r"去(?P<o>[^，]{1,12}?)(?:当|担任)(?P<job>[^，]{1,12}?)(?P<done>了)?$"),
        _zh_go_work_as,
    ),
    # 现在调到深圳分公司了: the branch one works at now (not a move still to come: 明年要调到...)
    (
        re.compile(r"^(?P<pre>" + _P + r")(?:被)?(?:公司)?(?:调到|调去|调往|派到|派驻到?|外派到)了?"
                   r"(?P<o>[^，]{1,10}?(?:分公司|子公司|分部|分行|分店|办事处|分院|总部))了?$"),
        lambda m, s, st, p: st.add(s, "works_at", _zh_clean(m["o"]))
        if not _ZH_FUTURE_RE.search(m.string) and re.search(r"要|会|想|可能", m["pre"]) is None else None,
    ),
    # 现在在做自由撰稿人 / 我做了老师: the job one does (在做饭, 做了一个梦 name none; nor 在做测试, 在做设计: the work
    # of the day, said in a job's words)
    (
        re.compile(r"^(?P<pre>" + _P + r")(?:在做|在当|做了|当了)(?:一名|一个|一位)?(?P<o>[^，]{2,10})$"),
        _zh("is_a", check=lambda o: is_occupation(o) and o not in _ZH_WORK_OF_THE_DAY),
    ),
    (
        re.compile(r"(?:从(?P<old>[^，]{1,12}?))?跳槽(?:到|去)了?(?P<o>" + _ZH_NEW_JOB + r"|[^，]{1,12})"),
        _zh_job_change,
    ),
    # in mixed chat, with the job said (我 switch 到一个 startup 做 Head of People 了; not "switch 到 morning run")
    (
        re.compile(r"(?:从(?P<old>[^，]{1,12}?))?(?i:switch(?:ed)?) ?(?:到|去)了?(?P<o>" + _ZH_NEW_JOB + ")"),
        _zh_job_change,
    ),
    (re.compile(r"是(?P<o>[^，]{1,16}?)的(?:员工|职员)$"), _zh("works_at", check=_zh_org_ok)),
    (
        re.compile(r"(?:从|在)(?P<o>[^，]{1,12}?)(?:离职|辞职)(?P<flip>)"),
        lambda m, s, st, p: st.add(s, "works_at", _zh_clean(m["o"]), -1),
    ),
    # 在NYU读金融: the school, then the subject read there (a year or level such as 大三 / 研二 is no subject)
    (
        re.compile(
            r"^(?P<pre>" + _P + ")在(?P<o>[^，]{1,12}?)(?:读|念)(?P<major>(?!书|研|本科|博|大学|高中|初中|小学|硕士|MBA"
            r"|[大研高初博][一二三四]|[一二三四五六]年级)[^，了的]{2,6})$"
        ),
        _zh_school_and_major,
    ),
    (
        re.compile(
            r"^(?P<pre>" + _P + ")在(?P<o>[^，]{1,12}?)(?:读书|读研究生|读研|读本科|读博士?|读大学|上大学|上学|念书|读)"
        ),
        _zh("studies_at"),
    ),
    (
        re.compile(
            r"^(?P<pre>" + _P + r")是在(?P<o>[^，]{1,12}?)(?:读|上|念)的(?:本科|研究生|硕士|博士|大学|高中|书)?$"
        ),
        _zh("studies_at", check=_zh_org_ok),
    ),
    (
        re.compile(
            r"^(?P<pre>" + _P + r")是(?P<o>[^，]{1,16}?)的(?:铁粉|死忠粉|忠实粉丝|脑残粉|粉丝|老粉|真爱粉|粉|歌迷|影迷"
            r"|球迷|书迷)$"
        ),
        _zh("likes"),
    ),
    (re.compile(r"^(?P<pre>" + _P + r")是(?!在|真的)(?P<o>[^，的]{1,12}?)的(?P<job>[^，的]{2,10})$"), _zh_job_of),
    # 我是做HR的, and in chat without the 是: 我做会计的 (not 我做的, 我做饭的时候: the clause ends at 的)
    (re.compile(r"^(?P<pre>" + _P + ")" + _ZH_NEG + r"(?:是做(?P<o>[^，]{1,10})的|做(?P<o2>[^，的]{1,10})的$)"),
     _zh_does_for_work),
    # (not 是真的…, nor a cleft about an event: 是2015年在大理结的婚)
    (
        re.compile(
            r"^(?P<pre>" + _P + ")" + _ZH_NEG + r"(?:是|当)(?!爱|喜欢|讨厌|不|真的|[^，]*在[^，]*的)(?P<o>[^，]{1,12})$"
        ),
        _zh_is_a,
    ),
    *_ZH_HEALTH_RULES,
    (re.compile(r"(?P<neg>不|不太)?会(?:说|讲)(?P<o>[^，]+)"), _zh("speaks", coord=True)),
    # 还会一点上海话: 会 + a language without 说
    (re.compile(r"(?P<neg>不|不太)?会(?:一点|一些|点)?(?P<o>[^，说讲]{1,6}(?:话|语|文))$"), _zh("speaks")),
    (re.compile(r"^的?(?i:MBTI)(?:类型)?(?:是|为)?(?P<o>[A-Za-z]{4}(?:-[ATat])?)$"), _zh("is_a")),
    (re.compile(r"^(?P<pre>" + _P + r")(?P<o>" + _ZH_NAMED_CONDITIONS + r")(?:了|的)?$"), _zh("has_condition")),
    # preferences
    (
        re.compile(
            # 最爱吃的水果是芒果: the verb before 的 too (it read likes 的水果是芒果)
            r"最喜欢(?:吃|喝|看|听|玩|去)?的[^，是]{0,6}是(?P<o>[^，]+)|最爱(?:吃|喝|看|听|玩|去)?的[^，是]{0,6}是(?P<o2>[^，]+)"
            r"|(?:爱好|兴趣)是(?P<o3>[^，]+)"
        ),
        _zh_favourite,
    ),
    (
        re.compile(
            r"对(?P<o>[^，]{1,16}?)" + _ZH_DEG + r"(?:一点)?(?P<neg>兴趣都没有|都没有?兴趣|没有?(?:什么)?兴趣|不感兴趣"
            r"|不感冒)"
        ),
        _zh("likes"),
    ),
    (re.compile(r"对(?P<o>[^，]{1,16}?)" + _ZH_DEG + r"(?:感兴趣|情有独钟|着迷|上瘾)"), _zh("likes", coord=True)),
    (
        re.compile(
            r"^(?P<pre>" + _P + ")" + _ZH_NEG + _ZH_DEG + r"(?:喜欢上了?|喜欢|迷上了?|爱上了?|热爱|钟爱|偏爱|爱|沉迷于?"
            r"|痴迷于?|着迷于?|迷恋|中意|钟情于?|离不开|戒不掉|少不了|享受)(?P<o>[^，]+)"
        ),
        _zh("likes", strip_verb=True, coord=True, tails=r"，|的味道|的气味"),
    ),
    (
        re.compile(
            r"^(?P<pre>" + _P + r")(?P<flip>)(?:讨厌|受不了|反感|恨|烦|厌恶|接受不了|忍不了|忍受不了|看不惯"
            r"|嫌弃|不待见)"
            r"(?P<o>[^，]+)"
        ),
        _zh_dislike,
    ),
    # diet: what they cannot eat or drink, what they gave up (戒酒), then plain 吃 / 喝 with negation
    (
        re.compile(
            r"^(?P<pre>" + _P + r")(?:(?:不能|不敢|没法|不可以|不太能|不怎么能)再?(?P<v>吃|喝)"
            r"|(?P<v2>吃|喝)(?:不了|不惯|不得))"
            r"(?P<o>[^，]+)"
        ),
        _zh_cannot,
    ),
    (
        re.compile(
            r"^(?P<pre>" + _P + r")(?:一点|一口|一滴|一点儿)(?P<o>[^，都]{1,6})都(?:不能|不敢|不)?(?P<v>吃|喝)"
            r"(?:不了|不下)?"
        ),
        _zh_cannot,
    ),
    (re.compile(r"^(?P<pre>" + _P + r")(?:已经|正在|在)?戒(?:掉了?|了)?(?P<o>" + _ZH_GIVE_UP + ")"), _zh_gave_up),
    # 我超级能吃辣: the user handles spicy food (能吃 alone is eating a lot); 不能再吃辣了 above is its no (the
    # labelled data reads no diet of another person's 能吃辣: 我同事小赵是四川人，特别能吃辣)
    (re.compile(r"^(?P<pre>" + _P + r")(?:很|超级|超|特别|挺|比较|非常|还挺|还算)?能吃(?P<o>辣)"),
     lambda m, s, st, p: st.add(s, "eats", "辣", 1) if s == USER else None),
    (
        re.compile(r"^(?P<pre>" + _P + ")" + _ZH_NEG + _P + r"吃过?" + _ZH_DIET_OBJECT),
        # (a medicine is taken, not eaten: 我现在吃着氨氯地平, ingest/extract_routines.py)
        _zh("eats", strip_verb=True, tails=_ZH_FOOD_TAILS, check=lambda o: not is_medicine_zh(o)),
    ),
    (
        re.compile(r"^(?P<pre>" + _P + ")" + _ZH_NEG + _P + _ZH_HABIT_MODAL + r"喝过?" + _ZH_DIET_OBJECT),
        _zh_habit(_zh("drinks", strip_verb=True, tails=r"，|已经|了|也|的|啊")),
    ),
    # 改喝抹茶了, 咖啡戒了，换成绿茶: a drink switched to, drunk now; the one of its kind it replaced ends
    # (conflict_rules.drink_switch_conflict)
    (
        re.compile(r"^(?P<pre>" + _P + r")(?:现在|最近|已经|后来|都)?(?:改喝|换喝|改成喝?|换成喝?)"
                   r"(?P<o>" + DRINKS_ZH_PATTERN + r")(?![^，]*(?:吧|吗|呢|？|\?))"),  # (换成绿茶吧: a suggestion)
        lambda m, s, st, p: st.add(s, "drinks", m["o"], 1) if s == USER else None,
    ),
]

# A place name the stricter rules accept: a Latin proper name, a place-suffixed name or a well-known place.
_ZH_KNOWN_PLACE = (
    rf"[A-Z][A-Za-z'&.\-]*(?: [A-Z][A-Za-z'&.\-]*)*|[{HAN}]{{1,6}}?(?:{PLACE_SUFFIXES_ZH})|"
    + "|".join(sorted(PLACES_ZH, key=len, reverse=True))
)
_ZH_VISITED: list[re.Pattern[str]] = [
    re.compile(r"去[了过](?:一?趟)?(?P<o>[^，]{1,12})"),
    re.compile(r"(?:是|就)去(?P<o>[^，]{1,8})$"),
    re.compile(r"去(?:爬|玩|逛|登)了?(?P<o>[^，]{1,8})"),
    re.compile(r"去(?!年)(?P<o>[^，了]{1,10}?)(?:买|玩|吃|逛|看|旅行|旅游|度假|出差|喝|拍|爬|见)(?:了|过|的)"),
    re.compile(
        r"在(?P<o>[A-Za-z][A-Za-z'&.\- ]{1,30}[A-Za-z]|[^，在]{1,12}?)(?:边|那边)?"
        r"(?:吃|玩|看|度假|旅游|旅行|留学|遇到|逛|拍|参加|过年|待了|住了|见到|碰到"
        r"|过[的了]?(?:生日|年|节|纪念日)|结[的了]?婚|办[的了]?(?:婚礼|婚宴|生日))"  # 在海底捞过的生日, 在大理结的婚
    ),
    # "昨天在西湖边跑了十公里", "上个月在Costco办了张卡": a known place (or a Latin name) where something was done
    re.compile(r"在(?P<o>" + _ZH_KNOWN_PLACE + r")(?:边|那边|附近|门口)?(?=[^，]{1,8}?[了过])"),
    re.compile(r"(?:从|刚从)(?P<o>" + _ZH_KNOWN_PLACE + r")回来"),
    re.compile(r"(?:爬|登)[了过](?P<o>[^，]{1,6}山)"),  # 去年爬了泰山: a named mountain climbed
]

def _zh_strong_place(place: str, clause: str) -> bool:
    """The stricter visited rules: a known place, a place-suffixed name or a Latin name, not work/home/school."""
    if re.search(r"工作|上班|实习|住|生活|定居|读|上学|长大|出生", clause):
        return False
    return (
        place in PLACES_ZH
        or PLACE_SUFFIX_ZH_RE.search(place) is not None
        or re.fullmatch(_EN_NAME, place) is not None
    )


# "上个月去东京出差": the trip is past because of its time word, though no 了 or 过 marks it.
_ZH_PAST_TIME_RE = re.compile(r"昨天|前天|上次|那次|上周|上个?星期|上个?月|去年|前年|那年|前几天|前阵子|上周末|\d{4}年")
_ZH_VISITED.append(
    re.compile(
        r"(?<![过失])去(?!年)(?P<o>[^，了]{1,10}?)(?:旅行|旅游|度假|出差|玩|逛|爬山|看展|看演出|参加)(?![了过的])"
    )
)

_ZH_VISITED_LOOSE = (_ZH_VISITED[3], _ZH_VISITED[4])
_ZH_VISITED_STRICT = (_ZH_VISITED[5],)
_ZH_VISITED_DONE = (_ZH_VISITED[0], _ZH_VISITED[6])  # 去了X / 从X回来 say it happened

# A place the user is headed for, said as a plan (a trip, a season away, a move): 下个月要去日本出差, 改去广西北海,
# 先去墨尔本, 准备搬到杭州; 不去三亚了 drops it. _ZH_KNOWN_PLACE after the verb, so 去年 is none.
_ZH_GOING_RE = re.compile(
    r"(?P<neg>不再|不|没打算)?(?P<how>要|打算|准备|计划|决定|会|将|改|先|得)?(?:再|也|一起|一块儿?)?"
    r"(?:飞去|飞到|去|飞|搬到|搬去|搬回|调去|调到)(?P<o>" + _ZH_KNOWN_PLACE + r")"
)
# When a plan is for (国庆去云南玩, 毕业后去深圳): with one, the bare verb says a plan too.
_ZH_PLAN_TIME_RE = re.compile(r"下周|下个?星期|下个?月|明天|明年|后天|今年|国庆|五一|十一|寒假|暑假|春节|过年|年底|月底"
                              r"|\d{1,2}月|[一二三四五六七八九十]{1,2}月|冬天|夏天|每年|毕业后|到时候")
# What may come before the verb of the user's own plan said without 我 (下个月去 Bali, 计划明年去大阪, 最近改去 Manly):
# times, plan words and adverbs; anything else there is someone else going (小鹿要去上海).
_ZH_GOING_LEAD_RE = re.compile(_ZH_PLAN_TIME_RE.pattern + r"|最近|现在|以后|之后|然后|马上|经常|常常|每周末?|一起"
                               r"|还|也|就|都|再|快|又|要|打算|准备|计划|决定|会|将|改|先|[\s，,。！!？?'\"“”‘’]")
# A verb or a particle where a place would start (要去吃海鲜自助 is no place 吃海, 去爬泰山 none 爬泰山, 去了趟青岛)
_ZH_NOT_A_PLACE_START_RE = re.compile(r"[吃喝玩爬看买逛打做见找住了趟]")

_ZH_KNOWLEDGE_ADV = r"(?:其实|本来|原本|最早|最初|据说)?"
_ZH_KNOWLEDGE: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"(?P<s>[^，]{1,12}?)(?:起源于|源于|源自|发源于|起源自|产自|产于|原产于|原产自|诞生于)(?P<o>[^，]+)"),
        "originates_from",
    ),
    (
        re.compile(
            r"(?P<s>[^，]{1,12}?)" + _ZH_KNOWLEDGE_ADV + r"(?:是|最早是|最初是)?从(?P<o>[^，]{1,10}?)"
            r"(?:传|引进|传入)(?:过来|进来|进|入|到中国|来)?的?"
        ),
        "originates_from",
    ),
    # 珍珠奶茶是台湾发明的: invented in a place (a person as inventor is dropped by the caller)
    (
        re.compile(r"(?P<s>[^，]{1,12}?)(?:是|最早是|最初是)(?P<o>[^，]{1,10}?)(?:人)?(?:发明|首创|最先做出来)的"),
        "originates_from",
    ),
    (re.compile(r"(?P<s>[^，]{1,12}?)是(?P<o>[^，]{1,10}?)的(?:首都|首府|省会)"), "capital_of"),
    (re.compile(r"(?P<o>[^，]{1,10}?)的(?:首都|首府|省会)(?:是|为|在)(?P<s>[^，]{1,10})"), "capital_of"),
    # 巴西的首都不是里约: a denied capital (a following 是Y names the real one)
    (re.compile(r"(?P<o>[^，]{1,10}?)的(?:首都|首府|省会)(?P<neg>不是)(?P<s>[^，]{1,10})"), "capital_of"),
    (re.compile(r"(?P<s>[^，]{1,12}?)(?:位于|坐落在|坐落于)(?P<o>[^，]+)"), "located_in"),
    (re.compile(r"(?P<s>[^，]{1,12}?)(?<![现正存实所自住活待呆])在(?P<o>[^，]{2,10})"), "located_in"),
]
