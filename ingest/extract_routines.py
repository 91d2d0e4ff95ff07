"""The user's standing routines and things that hold one value at a time, read from a clause (pure): the dose of a
medicine they take ("I take levothyroxine 50 mcg", "My doctor increased my levothyroxine to 75 mcg", 我每天吃二甲双胍
500毫克), how they get to work ("I bike to work", "I'll take the bus to work from now on", 我坐地铁上班), the phone
they use ("I use an iPhone 12", "I switched to a Pixel 8", 手机换成iPhone 15了) and the car they drive ("I drive a
2015 Honda Civic", "We sold the Civic and got a Model 3", 换了一辆比亚迪汉). A new value replaces the old one
(ingest/extract_core.py single_valued_slot: one dose per medicine, one way to work, one phone, one car), so a change
supersedes what was said before instead of standing beside it; a second car or phone ("another", "also", 第二辆)
replaces nothing (ingest/conflict_rules.py)."""

from __future__ import annotations

import re

from ingest.lexicon import HAN, PLAN_RE

DOSE_PREDICATE = "takes_dose"
COMMUTE_PREDICATE = "commutes_by"
PHONE_PREDICATE = "uses_phone"
CAR_PREDICATE = "drives"
TEAM_PREDICATE = "on_team"
CHILDREN_PREDICATE = "number_of_children"

_AMOUNT_EN = r"\d+(?:\.\d+)?\s?(?:mg|mcg|µg|ug|iu|units?)(?![A-Za-z])"
_AMOUNT_ZH = r"\d+(?:\.\d+)?\s?(?:毫克|微克|mg|mcg|单位|IU)"
# a medicine's name: one word, not a food or a measure ("200 mg of caffeine" is no dose of a medicine)
_MEDICINE_EN = r"[A-Za-z][A-Za-z-]{2,30}"
_NOT_A_MEDICINE = frozenset({"about", "around", "approximately", "roughly", "like", "over", "under", "up", "down",
                             "vitamin", "caffeine", "sodium", "protein", "sugar", "calories", "fat", "carbs", "fiber",
                             "fibre", "salt", "it", "that", "this", "them", "dose", "dosage", "meds", "medication",
                             "medicine", "pills", "vitamins", "the", "my", "a", "an"})
_ADVERBS_EN = r"(?:(?:now|still|currently|also|usually|only|just) )?"
_DOSE_EN = (
    # I take levothyroxine 50 mcg / I'm on lisinopril 10 mg
    re.compile(rf"(?i:\bi(?:'m| am)? {_ADVERBS_EN}(?:take|taking|on)) (?P<m>{_MEDICINE_EN}),? (?P<d>{_AMOUNT_EN})"),
    # I take 20 units of Lantus / I'm on 10 mg of lisinopril
    re.compile(rf"(?i:\bi(?:'m| am)? {_ADVERBS_EN}(?:take|taking|on)) (?i:(?:about|around|roughly) )?"
               rf"(?P<d>{_AMOUNT_EN}) (?i:of) (?P<m>{_MEDICINE_EN})"),
    # (my doctor) increased my levothyroxine to 75 mcg / we bumped my Lantus up to 24 units / my Lantus went up to
    re.compile(rf"(?i:\b(?:increased|decreased|raised|lowered|upped|bumped|reduced|cut|changed|adjusted|moved) my)"
               rf" (?P<m>{_MEDICINE_EN})(?i: dose| dosage)?(?i: (?:up|down))? (?i:to) (?P<d>{_AMOUNT_EN})"),
    re.compile(rf"(?i:\bmy) (?P<m>{_MEDICINE_EN})(?i: dose| dosage)?(?i: (?:is|was|went|got) (?:now )?"
               rf"(?:(?:increased|decreased|raised|lowered|reduced|changed|up|down) )?to) (?P<d>{_AMOUNT_EN})"),
)
_DOSE_ZH = (
    # 我每天早上吃二甲双胍500毫克 / 我在服用左甲状腺素50微克
    re.compile(rf"我(?:现在|目前|每天|每晚|早上|晚上|一直|在|都)*(?:吃|服用|服|打)(?P<m>[{HAN}A-Za-z]{{2,8}}?)"
               rf"(?:每次|每天|一次)?(?P<d>{_AMOUNT_ZH})"),
    # 医生把我的二甲双胍加到了每天1000毫克 / 我的胰岛素调到了24单位
    re.compile(rf"我的(?P<m>[{HAN}A-Za-z]{{2,8}}?)(?:的?(?:剂量|药量|用量))?(?:已经)?(?:加到|减到|调到|调整到|增加到|减少到|"
               rf"改成|改为|换成)了?(?:每天|每次|一次)?(?P<d>{_AMOUNT_ZH})"),
)
_PET_WORDS_RE = re.compile(r"(?i)\b(?:vet|vets|dog|dogs|cat|cats|puppy|kitten|pet)\b|兽医|猫|狗|宠物")
_NOT_A_MEDICINE_ZH = re.compile(r"咖啡|钠|蛋白|糖|盐|脂肪|热量|卡路里|维生素|饭|菜|肉")

# The ways to work, by their words: the object is the way, in one word.
_COMMUTE_EN = re.compile(
    r"(?i:\bi(?:'ll| will|'m going to| am going to)? (?:(?:usually|normally|always|mostly|now|still|just|often"
    r"|generally) )?)(?P<v>drive|bike|cycle|ride (?:my|a) bike|walk|take the (?:bus|train|subway|metro|tube|tram"
    r"|ferry)|ride the (?:bus|train|subway|metro|tube|tram)|commute by (?:bus|train|subway|metro|car|bike|bicycle"
    r"|tram|ferry))(?i: to (?:work|the office)\b)"
)
_COMMUTE_ZH = re.compile(
    r"我(?:现在|以后|平时|一般|每天|都|改|就|还是|也|开始)*(?P<v>开车|骑车|骑自行车|骑电动车|坐地铁|乘地铁|搭地铁|坐公交车?|乘公交车?"
    r"|坐公车|坐班车|坐火车|坐高铁|走路|步行)(?:去)?(?:上班|去公司|通勤)"
)
# A way to work for some days only ("tomorrow because my car is in the shop", "when it rains", "on Fridays", 下雨天):
# not the way the user goes.
_NOT_EVERY_DAY_RE = re.compile(r"(?i)\b(?:today|tonight|tomorrow|this (?:morning|week)|when|whenever|if|unless"
                               r"|on (?:mon|tues|wednes|thurs|fri|satur|sun)days?|sometimes|once in a while"
                               r"|occasionally)\b|今天|明天|下雨天|有时|偶尔|如果|的时候|周[一二三四五六日]")
_WAY = {"drive": "car", "开车": "car", "bike": "bike", "cycle": "bike", "ride my bike": "bike", "ride a bike": "bike",
        "骑车": "bike", "骑自行车": "bike", "骑电动车": "e-bike", "walk": "foot", "走路": "foot", "步行": "foot",
        "坐地铁": "subway", "乘地铁": "subway", "搭地铁": "subway", "坐公交": "bus", "坐公交车": "bus", "乘公交": "bus",
        "乘公交车": "bus", "坐公车": "bus", "坐班车": "shuttle", "坐火车": "train", "坐高铁": "train"}


# Phones and cars by their makers and models: a thing named, so "I got a new phone" or "I drive a lot" read none.
_PHONE_MODEL = (r"(?:iPhone|Pixel|Galaxy|OnePlus|Xiaomi|Redmi|Huawei|Honor|Motorola|Moto|Nokia|Xperia|Nothing Phone"
                r"|华为|小米|荣耀|OPPO|vivo|一加|苹果)(?:[ -]?[\w+]{1,12}){0,3}")
_CAR_MODEL = (r"(?:(?:19|20)\d\d )?(?:Honda|Toyota|Tesla|Model [3SXY]|Ford|Chevy|Chevrolet|BMW|Audi|Mercedes|VW"
              r"|Volkswagen|Subaru|Mazda|Kia|Hyundai|Nissan|Jeep|Volvo|Lexus|Prius|Civic|Corolla|Camry|RAV4"
              r"|Porsche|Rivian|Polestar|大众|丰田|本田|比亚迪|特斯拉|宝马|奔驰|奥迪|蔚来|理想|小鹏|吉利|长城|哈弗"
              r"|朗逸|帕萨特|卡罗拉|凯美瑞|雅阁|思域|轩逸)(?:[ -]?[\w]{1,12}){0,3}")
_PHONE_EN = re.compile(rf"(?i:\b(?:i|we)(?:'ve| have)?(?: just| finally| now)? (?:use|using|have|got|bought|switched"
                       rf" to|upgraded to|carry)(?: an?| the| my| a new)?|\bmy (?:phone|cell|mobile) is(?: an?)?) "
                       rf"(?P<x>{_PHONE_MODEL})")
_PHONE_ZH = re.compile(rf"(?:我用的是|我的手机是|手机换成了?|换了(?:一部|个|部)?(?:新的)?|我用|买了(?:一部|个|部)?)"
                       rf"(?P<x>{_PHONE_MODEL})")
_CAR_EN = re.compile(rf"(?i:\b(?:i|we)(?:'ve| have)?(?: just| finally| now)? (?:drive|own|have|got|bought|switched to"
                     rf"|leased|traded (?:it |\w+ )?in for)(?: an?| the| my| our| a new)?) (?P<x>{_CAR_MODEL})")
# "We sold the Civic and got a Model 3": the new car after the sale of the old
_CAR_AFTER_SALE_EN = re.compile(rf"(?i:\b(?:sold|traded in) (?:the |our |my )?[\w -]{{1,20}}? and (?:got|bought|leased)"
                                rf"(?: an?| a new)?) (?P<x>{_CAR_MODEL})")
_NOT_HAD_RE = re.compile(r"(?i)\b(?:don't|do not|never|no longer|not|want|wants|would|might|thinking|considering)\b"
                         r"|不|没|想|打算")
_CAR_ZH = re.compile(rf"(?:我开(?:的是)?|我家的车是|我的车是|换了一辆|买了一辆|我们开)(?:一辆)?(?P<x>{_CAR_MODEL})")
_MODEL_TAIL = re.compile(r"(?i)\s+(?:last|this|next|yesterday|today|now|and|but|because|since|for|from|to|instead"
                         r"|already|too|as)\b.*$|了$")


# The team or department the user is in at work, by its name ("I'm on the payments team", "I got moved to the fraud
# detection team", 我在公司的市场部, 从三月份起我调到了销售部): one at a time, so a move replaces the old one. Only the
# user's own ("My colleague got moved to ..." and 我同事调到了 open with someone else), said as done: "I might switch
# teams", "I'm moving to the X team next month" read none. Not a sports or school team ("I'm on the soccer team"),
# nor "the same / new / other team", which names none.
_TEAM_EN = re.compile(
    r"(?i:\bi(?:'m| am)(?: now| currently| still)? (?:on|(?P<in>in|part of))"
    r"|\bi (?:now |currently |still )?work (?:on|in|for)"
    r"|\bi (?:just |recently |finally )?(?:got |was |have been |'ve been )?(?:moved|transferred|reassigned|switched"
    r"|shifted|rotated)(?: over)? (?:to|onto|into)"
    r"|\bi (?:just |recently |finally )?joined)"
    r" the (?P<x>[\w&/'-]+(?: [\w&/'-]+){0,3}?) (?P<t>(?i:team|department|dept|division))\b"
)
_NOT_A_WORK_TEAM_RE = re.compile(
    r"(?i)\b(?:soccer|football|basketball|volleyball|baseball|hockey|rugby|swim(?:ming)?|track|debate|chess"
    r"|bowling|softball|tennis|cricket|quiz|trivia|dance|cheer(?:leading)?|rowing|running|cycling|golf|lacrosse"
    r"|wrestling|ski|netball|ultimate|robotics|school|varsity|college|national|olympic|same|other|whole|entire|new"
    r"|wrong|right|winning|losing|home|away|a|an|his|her|their|our|my|volunteer(?:ing)?|church|choir|band|book"
    r"|hiking|climbing|community|neighbou?rhood|parent|pta|fantasy|e?sports|gaming|relay|dragon boat"
    # a hospital's or a shop's department one is in for the day ("I'm in the emergency department with my son")
    r"|emergency|accident|casualty|maternity|outpatient|inpatient|radiology|paediatric|pediatric|trauma|shoe"
    r"|produce|electronics|toy|menswear|womenswear|clothing)\b")
# "I'm in the X department" is where one works only said of work (not "I'm in the cosmetics department at Macy's")
_WORK_SAID_RE = re.compile(r"(?i)\b(?:work|job|company|office|employer|colleagues?|coworkers?|boss|manager)\b")
_TEAM_ZH = re.compile(
    rf"(?:^|我)(?:现在|目前|还|也|已经|就|被|又|从[^，我]{{1,8}}(?:起|开始))*"
    rf"(?:在(?:公司|单位)?的?|(?:调到|调去|调进|调往|转到|转岗到|换到)了?)"
    rf"(?P<x>[{HAN}A-Za-z]{{1,6}}?(?:部门|事业部|部|团队|组))(?:工作|上班|任职|了)?[。！!]?$"
)
_NOT_A_DEPARTMENT_ZH = re.compile(r"俱乐部|总部|全部|内部|外部|[东南西北中]部|干部|局部|[这那一哪]部"
                                  r"|[底顶头腹胸背腰脚面眼]部"
                                  r"|小组|[这那一哪]组|剧组|机组")
# A change still to come or only thought of: a plan (ingest/lexicon.py PLAN_RE: "going to", next month, 明年, 打算),
# or a maybe ("might", "if", 可能, 要, 会)
_WILL_RE = re.compile(rf"{PLAN_RE.pattern}|(?i:\b(?:might|could|would|if|when)\b)|要|会|将|想|可能|如果")


# A new home said by the lease or purchase and the move into it ("I just signed a lease on a two-bedroom in Queens and
# moved in on Saturday", 我们在朝阳买了房，已经搬进去了): where the user lives now. Only with the move done, in the
# same sentence (a flat bought to let, "we're moving in next month" give none), and not one for someone else ("for
# my parents", 给爸妈, "they moved in").
_HOME_EN = re.compile(r"(?i:\b(?:i|we)(?: just| finally| recently)? (?:signed (?:a|the) lease (?:on|for)|bought"
                      r"|closed on))(?P<what>[^,.;!?]{0,40}?) (?i:in)"
                      r" (?P<x>[A-Z][a-zA-Z'-]+(?: [A-Z][a-zA-Z'-]+){0,2})")
# a stay ("for the summer", 去三亚度假): no home
_HOLIDAY_RE = re.compile(r"(?i)\b(?:for the (?:week|weekend|summer|winter|holidays?|month)|vacation|holiday|airbnb"
                         r"|trip)\b|度假|旅游|旅行|假期|暑假|寒假|民宿")
_HOME_WORD_EN = re.compile(r"(?i)\b(?:apartment|flat|place|house|home|condo|townhouse|bedroom|studio|loft|unit)\b")
_MOVED_IN_EN = re.compile(r"(?i)\b(?<!they )(?<!he )(?<!she )moved in\b|\bmoved into (?:it|the (?:new )?place)\b")
_HOME_ZH = re.compile(rf"我(?:们|家)?(?:已经|刚|去年|今年|终于)*在(?P<x>[{HAN}]{{2,6}}?)(?:买了|租了|买|租)"
                      rf"(?:一套)?(?:新)?"
                      rf"(?:房子?|公寓|新房)")
_MOVED_IN_ZH = re.compile(r"(?:^|[，。,；;]|我们?|我家)(?:已经|刚|都|也|就|上周|上个月|终于)*"
                          r"(?:搬进去|住进去|搬进来|搬过去|入住)了")
_NOT_A_PLACE_ZH = re.compile(r"[我你他她这那]|附近|老家|公司")


# How many children the user has ("We have two kids", "We had our third baby in August!"): one number at a time, so
# a birth replaces it; not "two kids in college" (some of them), "two kids' birthdays", someone else's ("my sister has
# two kids"), nor kids then named ("two kids, Emma and Leo": their child triples tell who and how many).
_COUNTS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
_CHILDREN_EN = re.compile(
    rf"(?i:\b(?:i|we) (?:now |also )?(?:have|'ve got|have got)) (?P<n>\d|{'|'.join(_COUNTS)})"
    r"(?i: (?:little |young |grown |beautiful |wonderful )?(?:kids|children))\b"
    r"(?=\s*(?:$|[.!,;:(]|(?i:and|now|so|but|together|already|of our own)\b))"
    rf"|(?i:\b(?:i|we) (?:just |finally )?(?:had|welcomed) our) (?P<ord>{'|'.join(_ORDINALS)})"
    r"(?i: (?:baby|child|kid|son|daughter))\b(?!['’])")


# A thing of the maker that is no phone or car ("Pixel Buds", "Galaxy Watch", "an iPhone case", 小米手环, "a Honda
# generator", "Tesla stock"): no phone or car named.
_NOT_THE_THING_RE = re.compile(r"(?i)\b(?:buds|watch|case|charger|cable|tablet|tab|pad|ipad|book|laptop|tv|fridge"
                               r"|generator|mower|lawnmower|stock|stocks|shares|lesson|lessons|bike|scooter|ad|ads"
                               r"|router|speaker|headphones|earbuds|band)\b"
                               r"|手环|手表|耳机|平板|电脑|笔记本|路由器|充电器|音箱|电视|股票|冰箱|自行车|电动车")
# For someone else: "我给我爸买了一部华为Mate 60", "买了一辆小鹏给老婆", "I got my mom an iPhone"
_FOR_SOMEONE_RE = re.compile(r"给|送给|(?i:\bfor (?:my|his|her|our) \w+|\bgot (?:my|his|her) \w+ an?\b)")


def _model(said: str) -> str:
    """The model as named, without what the pattern's last words took after it ("Pixel 8 last week"); "" for a
    thing of the maker that is no phone or car."""
    model = _MODEL_TAIL.sub("", said).strip()  # one bought for someone (给) was left out before (_FOR_SOMEONE_RE)
    return "" if _NOT_THE_THING_RE.search(model) else model


def _way(said: str) -> str:
    s = said.lower()
    if s in _WAY:
        return _WAY[s]
    return re.split(r"\s+", s)[-1].replace("bicycle", "bike").replace("metro", "subway").replace("tube", "subway")


def routine_facts(clause: str, sentence: str = "") -> list[tuple[str, str]]:
    """The (predicate, object) pairs of the user's routines the clause states: ("takes_dose", "levothyroxine 75 mcg"),
    ("commutes_by", "bus"). A negated or one-off clause states none ("I took the bus today" reads no "take").
    sentence: the turn the clause is part of (a home bought in one clause and moved into in the next)."""
    out: list[tuple[str, str]] = []
    pet = _PET_WORDS_RE.search(clause)  # "The vet increased my Rex to 10 mg", 我的猫吃的药: the pet's medicine
    for pattern in _DOSE_EN if not pet else ():
        for m in pattern.finditer(clause):
            if m["m"].lower() not in _NOT_A_MEDICINE:
                amount = " ".join(m["d"].lower().split())
                out.append((DOSE_PREDICATE, f"{m['m']} {amount}"))
    for pattern in _DOSE_ZH if not pet else ():
        for m in pattern.finditer(clause):
            if not _NOT_A_MEDICINE_ZH.search(m["m"]):
                out.append((DOSE_PREDICATE, f"{m['m']} {m['d']}"))
    for m in (*_COMMUTE_EN.finditer(clause), *_COMMUTE_ZH.finditer(clause)):
        if not re.search(r"(?i)\b(?:don't|do not|never|no longer|not)\b|不|没", clause[: m.start("v")][-12:]) \
                and not _NOT_EVERY_DAY_RE.search(clause):
            out.append((COMMUTE_PREDICATE, _way(m["v"])))
    for predicate, patterns in ((PHONE_PREDICATE, (_PHONE_EN, _PHONE_ZH)),
                                (CAR_PREDICATE, (_CAR_EN, _CAR_AFTER_SALE_EN, _CAR_ZH))):
        for pattern in patterns:
            for m in pattern.finditer(clause):
                wished = _NOT_HAD_RE.search(clause[: m.start("x")][-24:])  # "I want to get an iPhone 15"
                after = clause[m.end("x"):][:30]
                if wished or _FOR_SOMEONE_RE.search(clause[: m.start("x")][-16:] + m["x"] + after) \
                        or _NOT_THE_THING_RE.match(after.strip()):
                    continue
                if model := _model(m["x"]):
                    out.append((predicate, model))
    sentence = sentence or clause
    for m in _HOME_EN.finditer(clause):
        if _HOME_WORD_EN.search(m["what"]) and _MOVED_IN_EN.search(sentence) and not _WILL_RE.search(sentence) \
                and not _FOR_SOMEONE_RE.search(sentence) and not _HOLIDAY_RE.search(sentence):
            out.append(("lives_in", m["x"]))
    for m in _HOME_ZH.finditer(clause):
        if _MOVED_IN_ZH.search(sentence) and not _NOT_A_PLACE_ZH.search(m["x"]) and not _WILL_RE.search(sentence) \
                and not _FOR_SOMEONE_RE.search(sentence) and not _HOLIDAY_RE.search(sentence):
            out.append(("lives_in", m["x"]))
    for m in _CHILDREN_EN.finditer(clause):
        named = re.search(rf"{re.escape(m[0])}\s*(?:[,:;(–-]\s*[A-Z]|(?i:named|called)\b)", sentence)
        if not _WILL_RE.search(clause[: m.start()]) and not named:  # the kids named say how many (child triples)
            n = m["n"] or m["ord"]
            out.append((CHILDREN_PREDICATE, n if n.isdigit() else
                        str((_COUNTS.index(n.lower()) if m["n"] else _ORDINALS.index(n.lower())) + 1)))
    for m in _TEAM_EN.finditer(clause):
        if not _NOT_A_WORK_TEAM_RE.search(m["x"]) and not _WILL_RE.search(clause[: m.start("x")]) \
                and (not m["in"] or _WORK_SAID_RE.search(sentence)):
            out.append((TEAM_PREDICATE, f"{m['x']} {'department' if m['t'].lower() == 'dept' else m['t'].lower()}"))
    for m in _TEAM_ZH.finditer(clause):
        if not _NOT_A_DEPARTMENT_ZH.search(m["x"]) and not _WILL_RE.search(clause[: m.start("x")]) \
                and not _NOT_HAD_RE.search(clause[: m.start("x")]):
            out.append((TEAM_PREDICATE, m["x"]))
    return list(dict.fromkeys(out))


def medicine_of(dose: str) -> str:
    """The medicine of a takes_dose object ("levothyroxine 75 mcg" -> "levothyroxine"): one dose per medicine."""
    return re.sub(rf"\s*{_AMOUNT_EN}\s*$|\s*{_AMOUNT_ZH}\s*$", "", dose.strip(), flags=re.IGNORECASE).strip()
