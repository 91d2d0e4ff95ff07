# ruff: noqa: E501
"""Recall eval data (issue 4): generated multi-session conversations of several users, Chinese and English,
with planted facts, preferences, changes of mind and distractors, and several hundred questions whose
answers are known memories: single-fact, multi-hop (two memories linked by an entity), changes of mind
(the newer memory is the answer), cross-lingual, and unrelated ones that must be gated.

Deterministic for a seed. bench/recall_eval.py loads it into Neo4j and scores dense, full-text and bmam, on
the questions and again on their held-out phrasings (EvalSet.held_out), which no rule was tuned on.
Every user speaks mostly one language (zh or en) and sometimes the other; each planted fact carries the
triples an ideal extractor would find ("oracle"), and the eval can use the rule extractor instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
Triple = tuple[str, str, str, str, str, int]  # subject, subject_kind, predicate, object, object_kind, polarity

SESSION_DAYS = (0.0, 5.0, 11.0, 17.0, 23.0, 29.0)  # six sessions over a month
ASK_AFTER_LAST_SESSION_HOURS = 3.0


@dataclass
class EvalMemory:
    key: str
    user: str
    text: str
    type: str
    session: int
    triples: list[Triple] = field(default_factory=list)
    preset: str = "default"
    lang: str = "zh"


@dataclass
class EvalQuestion:
    user: str
    text: str
    answers: list[str]  # memory keys; empty for unrelated questions
    kind: str  # single | entity (names a person, pet, place) | multi | change | unrelated
    lang: str
    cross_lingual: bool = False
    about_user: bool = False  # an unrelated question about the user's own life ("my passport")


@dataclass
class EvalUser:
    user_id: str
    lang: str
    memories: list[EvalMemory] = field(default_factory=list)
    questions: list[EvalQuestion] = field(default_factory=list)
    held_out: list[EvalQuestion] = field(default_factory=list)  # the same asks in phrasings no rule was tuned on


@dataclass
class EvalSet:
    seed: int
    users: list[EvalUser]

    @property
    def questions(self) -> list[EvalQuestion]:
        return [q for u in self.users for q in u.questions]

    @property
    def held_out(self) -> list[EvalQuestion]:
        """Every question again in a held-out phrasing (see the note above ZH_UNRELATED_HELD); the unrelated ones
        are new questions."""
        return [q for u in self.users for q in u.held_out]

    @property
    def memories(self) -> list[EvalMemory]:
        return [m for u in self.users for m in u.memories]


# ----- pools ------------------------------------------------------------------------------------

ZH_NAMES = ["李娜", "王强", "张伟", "刘洋", "陈静", "赵磊", "孙丽", "周杰", "吴敏", "郑浩", "黄婷", "何军", "林芳", "马超"]
EN_NAMES = ["Emma", "Oliver", "Sophia", "Liam", "Mia", "Noah", "Ava", "Lucas", "Chloe", "Ethan", "Grace", "Henry",
            "Isla", "Jack"]

# (zh city, its dish), (en city, its dish)
ZH_CITIES = [("成都", "兔头"), ("杭州", "西湖醋鱼"), ("西安", "肉夹馍"), ("重庆", "小面"), ("广州", "肠粉"),
             ("武汉", "热干面"), ("南京", "盐水鸭"), ("厦门", "沙茶面"), ("长沙", "臭豆腐"), ("青岛", "辣炒蛤蜊"),
             ("昆明", "过桥米线"), ("苏州", "松鼠鳜鱼")]
EN_CITIES = [("Berlin", "currywurst"), ("Lisbon", "pastel de nata"), ("Seattle", "clam chowder"),
             ("Toronto", "peameal bacon sandwich"), ("Melbourne", "meat pie"), ("Dublin", "Irish stew"),
             ("Austin", "brisket tacos"), ("Vienna", "Wiener schnitzel"), ("Osaka", "takoyaki"),
             ("Denver", "green chile"), ("Prague", "trdelnik"), ("Edinburgh", "haggis")]

ZH_JOBS = ["老师", "护士", "程序员", "律师", "设计师", "医生", "会计", "工程师", "记者", "厨师"]
EN_JOBS = ["teacher", "nurse", "software engineer", "lawyer", "graphic designer", "doctor", "accountant",
           "architect", "journalist", "chef"]
ZH_COMPANIES = [("华为", "坂田"), ("腾讯", "南山区"), ("阿里巴巴", "余杭区"), ("字节跳动", "海淀区"), ("小米", "亦庄"),
                ("美团", "望京"), ("京东", "大兴区"), ("网易", "滨江区")]
EN_COMPANIES = [("Siemens", "the business park north of town"), ("Spotify", "the old harbour district"),
                ("Shopify", "the downtown tech hub"), ("Atlassian", "the riverside campus"),
                ("Deloitte", "the financial district"), ("Zalando", "the warehouse quarter by the canal"),
                ("Airbus", "the industrial zone near the airport"), ("Philips", "the science park")]

ZH_SIBLINGS = [("姐姐", "她"), ("哥哥", "他"), ("妹妹", "她"), ("弟弟", "他")]
EN_SIBLINGS = [("sister", "she"), ("brother", "he")]

ZH_PETS = [("狗", "只"), ("猫", "只"), ("兔子", "只")]
ZH_PET_NAMES = ["豆豆", "旺财", "咪咪", "球球", "可乐", "年糕", "团子", "布丁"]
EN_PETS = ["dog", "cat", "rabbit"]
EN_PET_NAMES = ["Biscuit", "Luna", "Max", "Pepper", "Milo", "Daisy", "Waffles", "Ziggy"]
ZH_TOYS = [("飞盘", "小区花园"), ("毛线球", "阳台"), ("网球", "公园"), ("逗猫棒", "沙发上")]
EN_TOYS = [("a frisbee", "the park"), ("a yarn ball", "the balcony"), ("an old tennis ball", "the backyard"),
           ("a squeaky duck", "the living room")]

ZH_FOODS = ["火锅", "饺子", "烤鸭", "麻辣烫", "寿司", "披萨", "煎饼果子", "小笼包"]
EN_FOODS = ["sushi", "ramen", "tacos", "lasagna", "dumplings", "pad thai", "pho", "paella"]
ZH_DISLIKES = ["香菜", "榴莲", "苦瓜", "肥肉", "羊肉", "芹菜"]
EN_DISLIKES = ["cilantro", "olives", "mushrooms", "blue cheese", "anchovies", "eggplant"]
ZH_ALLERGENS = ["花生", "海鲜", "芒果", "牛奶", "青霉素"]
EN_ALLERGENS = ["peanuts", "shellfish", "penicillin", "bee stings", "latex"]

ZH_SPORTS = ["篮球", "羽毛球", "跑步", "游泳", "瑜伽", "乒乓球", "网球", "骑行"]
EN_SPORTS = ["basketball", "badminton", "running", "swimming", "yoga", "tennis", "rock climbing", "cycling"]
ZH_DRINKS = ["咖啡", "奶茶", "绿茶", "豆浆", "红茶", "柠檬水"]
EN_DRINKS = ["coffee", "black tea", "green tea", "orange juice", "matcha latte", "hot chocolate"]
ZH_MUSIC = [("民谣", "赵雷"), ("摇滚", "五月天"), ("古典音乐", "肖邦"), ("爵士乐", "邓丽君的爵士改编"), ("流行歌", "周杰伦")]
EN_MUSIC = [("jazz", "Miles Davis"), ("indie rock", "Arctic Monkeys"), ("classical music", "Bach"),
            ("hip hop", "Kendrick Lamar"), ("country", "Dolly Parton")]
ZH_WORRIES = ["考研", "找工作", "房贷", "体检结果", "搬家", "论文答辩"]
EN_WORRIES = ["my thesis defense", "a job interview next week", "the mortgage payments", "my mom's surgery",
              "moving abroad", "a big presentation at work"]
ZH_TRIPS = [("大理", "每天都去洱海边骑车"), ("三亚", "天天在海边晒太阳"), ("桂林", "坐船游了漓江"),
            ("拉萨", "去了布达拉宫"), ("哈尔滨", "看了冰雕展")]
EN_TRIPS = [("Iceland", "we saw the northern lights"), ("Kyoto", "we visited a hundred temples"),
            ("Barcelona", "we took a paella cooking class"), ("Cape Town", "we hiked Table Mountain"),
            ("Marrakech", "we got lost in the souks")]
ZH_RECIPES = [("番茄炒蛋", "先把鸡蛋炒散盛出来", "再下番茄炒出汁，最后把蛋倒回去"),
              ("红烧肉", "先把五花肉焯水", "再加冰糖和酱油小火炖一个小时"),
              ("蛋炒饭", "先用隔夜饭", "大火把蛋和饭一起翻炒，最后撒葱花")]
EN_RECIPES = [("pancakes", "whisk flour, eggs and milk", "rest the batter ten minutes and fry on low heat"),
              ("chili", "brown the beef with onions", "add beans and tomatoes and simmer for two hours"),
              ("banana bread", "mash three ripe bananas", "fold in flour and bake for an hour")]
ZH_MONTHS = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]
EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December"]

# Distractors: everyday remarks, composed from a time, an activity and an afterthought (a few hundred
# distinct sentences per language), so a user has far more chatter than facts, as in real conversations.
ZH_WHEN = ["今天", "昨天", "前天", "周末", "早上", "晚上", "下午", "上周", "刚才", "这两天"]
ZH_ACTIVITIES = [
    "地铁特别挤", "吃了一碗牛肉面", "看了一部科幻电影", "开了三个会", "打扫了整个房间", "把灯泡换了", "出门忘带钥匙了",
    "发现楼下新开了一家面包店", "做了个很奇怪的梦", "加班到十点", "去超市买了一堆零食", "把手机屏幕摔裂了",
    "追了好几集古装剧", "路上堵车堵了一个小时", "给阳台上的花浇了水", "快递送错了地址", "收到了同事的婚礼请柬",
    "学会了用洗碗机", "一直在下雨", "起晚了没吃早饭", "碰到了老同学", "把旧衣服捐给了社区", "开始学做手账",
    "去图书馆借了两本书", "会议推迟了", "电脑又卡死了", "给爸妈打了视频电话", "换了新的手机壳", "点的外卖送得很慢",
    "交了这个月的电费", "在公园散了半小时步", "买了一盏新台灯", "楼上邻居一直在装修", "把车送去保养了",
    "背了二十个单词", "整理了衣柜", "下班路上买了一束花", "家里断网了一下午", "去了一家新开的咖啡馆", "睡到了中午",
    "修好了漏水的水龙头", "排队办了银行卡", "拼了一个一千片的拼图", "在网上买了一双运动鞋", "把冰箱清理了一遍",
    "陪邻居家小孩写了作业", "整理了电脑里的照片", "去理发店剪了头发", "参加了小区的消防演练", "帮朋友搬了家",
]
ZH_AFTER = ["", "", "，有点累", "，还挺开心的", "，真是够了", "，感觉还行", "，下次不这样了", "，挺有意思"]
EN_WHEN = ["Today", "Yesterday", "This morning", "Tonight", "This weekend", "Last week", "This afternoon",
           "Earlier", "On Monday", "Last night"]
EN_ACTIVITIES = [
    "the subway was packed", "I had a bowl of soup for lunch", "I watched a sci-fi movie", "I sat through three meetings",
    "I cleaned the whole flat", "I replaced the hallway bulb", "I forgot my keys", "I noticed a new bakery downstairs",
    "I had a weird dream", "I worked until ten", "I bought way too many snacks", "I cracked my phone screen",
    "I binge-watched a period drama", "I was stuck in traffic for an hour", "I watered the balcony plants",
    "the courier lost my parcel", "I got a wedding invitation from a coworker", "I figured out the dishwasher",
    "it rained nonstop", "I overslept and skipped breakfast", "I ran into an old classmate", "I donated old clothes",
    "I started a bullet journal", "I borrowed two library books", "a meeting got pushed back", "my laptop froze again",
    "I video-called my parents", "I got a new phone case", "the takeout took forever", "I paid the electricity bill",
    "I walked in the park for half an hour", "I bought a new desk lamp", "the neighbours were drilling all day",
    "I took the car in for a service", "I learned twenty new words", "I reorganized my closet",
    "I bought flowers on the way home", "the internet was down for hours", "I tried a new cafe", "I slept until noon",
    "I fixed the leaking tap", "I queued at the bank for ages", "I finished a thousand-piece puzzle",
    "I ordered new sneakers online", "I cleaned out the fridge", "I helped the neighbour's kid with homework",
    "I sorted the photos on my laptop", "I got a haircut", "there was a fire drill in the building",
    "I helped a friend move house",
]
EN_AFTER = ["", "", ", kind of tiring", ", which was nice", ", never again", ", not bad", ", oh well", ", quite fun"]


def fillers(rng: random.Random, lang: str, n: int) -> list[str]:
    """n everyday remarks in one language, each activity at most twice (ingest merges near-duplicates, so a
    user's store does not hold the same remark ten times)."""
    when, acts, after = (ZH_WHEN, ZH_ACTIVITIES, ZH_AFTER) if lang == "zh" else (EN_WHEN, EN_ACTIVITIES, EN_AFTER)
    pool = (acts * 2)[:]
    rng.shuffle(pool)
    out = []
    for a in pool[: min(n, len(pool))]:
        w, f = rng.choice(when), rng.choice(after)
        out.append(f"{w}{a}{f}" if lang == "zh" else f"{w} {a}{f}")
    return out


ZH_UNRELATED = [
    "澳大利亚的首都是哪里？", "帮我写一首关于秋天的诗", "量子计算机是怎么工作的？", "一光年有多远？",
    "帮我把这句话翻译成法语：早上好", "二战是哪一年结束的？", "怎么用 Python 反转一个链表？", "给我讲个笑话吧",
    "珠穆朗玛峰有多高？", "光合作用的原理是什么？", "推荐几本关于经济学的书", "如何计算圆的面积？",
    "黑洞是怎么形成的？", "太阳系有几颗行星？", "解释一下区块链是什么", "罗马帝国为什么会灭亡？",
    "帮我起草一封请假邮件", "什么是相对论？", "怎么写一个快速排序算法？", "世界上最长的河流是哪条？",
    "莎士比亚写过哪些悲剧？", "鲸鱼是鱼类吗？", "如何提高英语口语？", "蜜蜂为什么会跳舞？",
]
EN_UNRELATED = [
    "What is the capital of Australia?", "Write me a short poem about autumn", "How does a quantum computer work?",
    "How far is a light year?", "Translate 'good morning' into French", "When did World War II end?",
    "How do I reverse a linked list in Python?", "Tell me a joke", "How tall is Mount Everest?",
    "Explain photosynthesis in simple terms", "Recommend some books on economics", "How do you compute the area of a circle?",
    "How do black holes form?", "How many planets are in the solar system?", "Explain what a blockchain is",
    "Why did the Roman Empire fall?", "Draft an email asking for a day off", "What is the theory of relativity?",
    "How do I write a quicksort?", "What is the longest river in the world?", "Which tragedies did Shakespeare write?",
    "Are whales fish?", "How do volcanoes erupt?", "Why do bees dance?",
]

# Questions about the user's own life that no memory answers: they must be gated too.
ZH_PERSONAL_UNRELATED = [
    "我的电脑蓝屏了怎么办？", "我想学吉他，应该从哪开始？", "我该怎么开始理财？", "我应该买什么牌子的洗衣机？",
    "我想换个发型，有什么建议？", "我的签证快过期了，怎么续签？", "我想给自己起个英文名", "我想去学潜水，需要准备什么？",
    "我的牙最近有点疼，可能是什么原因？", "我想考驾照，要多久？",
]
EN_PERSONAL_UNRELATED = [
    "How can I improve my public speaking?", "What should I name my startup?", "How do I renew my passport?",
    "Can you help me plan a monthly budget for my savings?", "What haircut would suit my face shape?",
    "How should I prepare for my driving test?", "Which guitar should I buy as my first one?",
    "My tooth has been aching, what could it be?", "How do I get my credit score up?",
    "What's a good way to learn my first programming language?",
]

# Held-out phrasings (EvalSet.held_out): each question again in a phrasing written once, apart from the ones
# above, and never read while tuning the rules (slots, gate, extraction) on the eval; new unrelated questions
# (none on the planted topics: food, drink, sport, music, pets, trips, work, family, birthdays; the ones about the
# user none on the everyday remarks' either: laptops, haircuts, repairs, moving). A score that
# holds here and drops on them is a rule fitted to the eval's words, not a recall that generalises.
ZH_UNRELATED_HELD = [
    "地球到月球有多远？", "水的沸点是多少度？", "为什么天空是蓝色的？", "中国有多少个省级行政区？", "恐龙是怎么灭绝的？",
    "长城有多长？", "什么是机器学习？", "帮我解释一下通货膨胀", "火星上有水吗？", "元素周期表是谁发明的？",
    "怎么用 Excel 做数据透视表？", "病毒和细菌有什么区别？",
]
EN_UNRELATED_HELD = [
    "How far away is the Moon?", "At what temperature does water boil?", "Why is the sky blue?",
    "How many countries are there in Africa?", "What killed the dinosaurs?", "How long is the Great Wall of China?",
    "What is machine learning?", "Explain inflation in plain words", "Is there water on Mars?",
    "Who came up with the periodic table?", "How do I make a pivot table in Excel?",
    "What's the difference between a virus and a bacterium?",
]
ZH_PERSONAL_UNRELATED_HELD = [
    "我想学下围棋，从哪里入门？", "我想提高记忆力，有什么办法？", "我该怎么准备雅思考试？", "我想开一家网店，要注意什么？",
    "我的信用分太低了怎么提高？", "我想写一本小说，怎么开头？", "我想练字，用什么字帖好？", "我想学会做PPT，有什么技巧？",
]
EN_PERSONAL_UNRELATED_HELD = [
    "How should I prepare for the IELTS exam?", "I want to open an online shop, what should I watch out for?",
    "How do I start writing a novel?", "What's a good way to improve my memory?",
    "How can I stop procrastinating on my side project?", "How do I get better at chess?",
    "How should I start learning calligraphy?", "How can I make my slides look more professional?",
]

# ----- generation --------------------------------------------------------------------------------


class _Builder:
    def __init__(self, rng: random.Random, user: EvalUser, held: random.Random) -> None:
        self.rng = rng
        self.held = held  # draws for the held-out phrasings only: the main draws (and so the data) stay as they were
        self.user = user
        self.n = 0

    def mem(self, text: str, type_: str, session: int, triples: list[Triple], *, lang: str,
            preset: str = "default") -> str:
        self.n += 1
        key = f"{self.user.user_id}/m{self.n:03d}"
        self.user.memories.append(EvalMemory(key=key, user=self.user.user_id, text=text, type=type_,
                                             session=session, triples=triples, preset=preset, lang=lang))
        return key

    def ask(self, zh: list[str], en: list[str], answers: list[str], kind: str, *, cross_rate: float = 0.2,
            held: tuple[list[str], list[str]] = ([], [])) -> None:
        """One question: in the user's language, or (sometimes) in the other one; and the same question in one of
        the held-out phrasings (held: zh, en), in the same language."""
        cross = self.rng.random() < cross_rate
        lang = self.user.lang if not cross else ("en" if self.user.lang == "zh" else "zh")
        text = self.rng.choice(zh if lang == "zh" else en)
        self.user.questions.append(EvalQuestion(user=self.user.user_id, text=text, answers=answers, kind=kind,
                                                lang=lang, cross_lingual=cross))
        if phrasings := held[0] if lang == "zh" else held[1]:
            self.user.held_out.append(EvalQuestion(user=self.user.user_id, text=self.held.choice(phrasings),
                                                   answers=answers, kind=kind, lang=lang, cross_lingual=cross))


def _pick(rng: random.Random, pool: Sequence[T], taken: set[object]) -> T:
    options = [x for x in pool if x not in taken]
    choice = rng.choice(options or pool)
    taken.add(choice)
    return choice


def _user(rng: random.Random, user_id: str, lang: str, fillers_per_user: int, held: random.Random) -> EvalUser:
    u = EvalUser(user_id=user_id, lang=lang)
    b = _Builder(rng, u, held)
    zh_main = lang == "zh"
    s = lambda: rng.randrange(len(SESSION_DAYS))  # noqa: E731
    taken: set[object] = set()
    # questions naming an entity, third person: zh, en, answers, held-out zh, held-out en
    named: list[tuple[list[str], list[str], list[str], list[str], list[str]]] = []

    def speak_zh() -> bool:
        """Which language the user says this fact in: mostly their own."""
        return zh_main if rng.random() < 0.85 else not zh_main

    # residence
    zh_city, _ = _pick(rng, ZH_CITIES, taken)
    en_city, _ = _pick(rng, EN_CITIES, taken)
    years = rng.randint(2, 9)
    if speak_zh():
        city = zh_city
        k_home = b.mem(f"我住在{city}，已经{years}年了", "FACTUAL", s(), [("user", "user", "lives_in", city, "place", 1)],
                       lang="zh")
    else:
        city = en_city
        k_home = b.mem(f"I've been living in {city} for {years} years now", "FACTUAL", s(),
                       [("user", "user", "lives_in", city, "place", 1)], lang="en")
    b.ask(["我现在住在哪个城市？", "我家在哪儿？"], ["Which city do I live in?", "Where is home for me these days?"],
          [k_home], "single", held=(["我在哪座城市生活？", "我目前定居在哪里？"],
                                    ["What city am I based in?", "Remind me where I live."]))

    # job and employer (+ multi-hop: the office)
    if speak_zh():
        job = rng.choice(ZH_JOBS)
        company, district = rng.choice(ZH_COMPANIES)
        k_job = b.mem(f"我在{company}做{job}", "FACTUAL", s(),
                      [("user", "user", "works_at", company, "org", 1), ("user", "user", "job", job, "role", 1)],
                      lang="zh")
        k_office = b.mem(f"{company}的办公室在{district}，离地铁站不远", "FACTUAL", s(),
                         [(company, "org", "located_in", district, "place", 1)], lang="zh")
    else:
        job = rng.choice(EN_JOBS)
        company, district = rng.choice(EN_COMPANIES)
        k_job = b.mem(f"I work as a {job} at {company}", "FACTUAL", s(),
                      [("user", "user", "works_at", company, "org", 1), ("user", "user", "job", job, "role", 1)],
                      lang="en")
        k_office = b.mem(f"The {company} office is in {district}, close to a metro stop", "FACTUAL", s(),
                         [(company, "org", "located_in", district, "place", 1)], lang="en")
    named.append(([f"{company}的办公室在哪里？"], [f"Where is the {company} office?"], [k_office],
                  [f"{company}在哪个区办公？"], [f"Which part of town is {company}'s office in?"]))
    b.ask(["我是做什么工作的？", "我的职业是什么？"], ["What do I do for a living?", "What's my job?"], [k_job], "single",
          held=(["我从事什么职业？", "我的工作是干什么的？"], ["What's my line of work?", "What do I work as?"]))
    b.ask(["我上班的地方在哪个区？", "我每天去哪里上班？"], ["Which part of town is my office in?",
                                                           "Where do I commute to every day?"],
          [k_job, k_office], "multi", held=(["我的办公地点在哪一带？", "我上班要去城里哪个地方？"],
                                            ["Where's my workplace located?", "What area do I go to for work?"]))

    # sibling, their city, and that city's dish (multi-hop)
    if speak_zh():
        rel, pron = rng.choice(ZH_SIBLINGS)
        name = _pick(rng, ZH_NAMES, taken)
        (scity, sdish) = _pick(rng, ZH_CITIES, taken)
        sjob = rng.choice(ZH_JOBS)
        # the kin predicate as the extractor names it (哥哥 -> brother: ingest/extract_core.py PREDICATES)
        kin = {"姐姐": "sister", "妹妹": "sister", "哥哥": "brother", "弟弟": "brother"}[rel]
        k_sib = b.mem(f"我{rel}叫{name}，{pron}在{scity}当{sjob}", "FACTUAL", s(),
                      [("user", "user", kin, name, "person", 1), (name, "person", "lives_in", scity, "place", 1),
                       (name, "person", "job", sjob, "role", 1)], lang="zh")
        k_dish = b.mem(f"{scity}的{sdish}特别好吃，每次去都要吃", "SEMANTIC", s(),
                       [("user", "user", "likes", sdish, "food", 1), (sdish, "food", "from", scity, "place", 1)],
                       lang="zh")
        rel_en = {"姐姐": "older sister", "哥哥": "older brother", "妹妹": "younger sister", "弟弟": "younger brother"}[rel]
        qn_zh = [f"我{rel}叫什么名字？"]
        qn_en = [f"What's my {rel_en}'s name?"]
        qj_zh = [f"我{rel}是做什么的？"]
        qj_en = [f"What does my {rel_en} do for work?"]
        qm_zh = [f"我{rel}住的那个城市有什么好吃的？", f"去{pron}那边玩应该吃点什么？"]
        qm_en = [f"What should I eat when I visit the city where my {rel_en} lives?"]
        held_n = ([f"我{rel}的名字是什么？"], [f"What is my {rel_en} called?"])
        held_j = ([f"我{rel}从事什么工作？"], [f"What is my {rel_en}'s job?"])
        held_m = ([f"我{rel}所在的城市有什么特色菜？"], [f"Which local dish should I have in my {rel_en}'s city?"])
    else:
        rel, pron = rng.choice(EN_SIBLINGS)
        name = _pick(rng, EN_NAMES, taken)
        (scity, sdish) = _pick(rng, EN_CITIES, taken)
        sjob = rng.choice(EN_JOBS)
        k_sib = b.mem(f"My {rel} {name} works as a {sjob} in {scity}", "FACTUAL", s(),
                      [("user", "user", rel, name, "person", 1), (name, "person", "lives_in", scity, "place", 1),
                       (name, "person", "job", sjob, "role", 1)], lang="en")
        k_dish = b.mem(f"The {sdish} in {scity} is amazing, I always get it when I'm there", "SEMANTIC", s(),
                       [("user", "user", "likes", sdish, "food", 1), (sdish, "food", "from", scity, "place", 1)],
                       lang="en")
        rel_zh = {"sister": "姐妹", "brother": "兄弟"}[rel]
        qn_zh = [f"我的{rel_zh}叫什么名字？"]
        qn_en = [f"What's my {rel}'s name?", f"Remind me, what is my {rel} called?"]
        qj_zh = [f"我的{rel_zh}是做什么工作的？"]
        qj_en = [f"What does my {rel} do?"]
        qm_zh = [f"我的{rel_zh}住的城市有什么特色美食？"]
        qm_en = [f"What food should I try in the city where my {rel} lives?",
                 f"Any dish I like near my {rel}'s place?"]
        held_n = ([f"我的{rel_zh}名字叫什么？"], [f"What's the name of my {rel}?"])
        held_j = ([f"我的{rel_zh}的职业是什么？"], [f"What's my {rel}'s job?"])
        held_m = ([f"我{rel_zh}住的地方有什么好吃的？"], [f"What's the dish to get where my {rel} lives?"])
    b.ask(qn_zh, qn_en, [k_sib], "single", held=held_n)
    b.ask(qj_zh, qj_en, [k_sib], "single", held=held_j)
    named.append(([f"{name}是做什么工作的？", f"{name}住在哪个城市？"], [f"What does {name} do for work?",
                                                                   f"Which city does {name} live in?"], [k_sib],
                  [f"{name}在哪里工作？"], [f"Where does {name} live and work?"]))
    named.append(([f"{scity}有什么好吃的？"], [f"What's good to eat in {scity}?"], [k_dish],
                  [f"去{scity}应该吃点什么？"], [f"What should I eat in {scity}?"]))
    b.ask(qm_zh, qm_en, [k_sib, k_dish], "multi", cross_rate=0.0, held=held_m)

    # pet, and what it likes (multi-hop)
    if speak_zh():
        kind, _ = rng.choice(ZH_PETS)
        pet = _pick(rng, ZH_PET_NAMES, taken)
        toy, place = rng.choice(ZH_TOYS)
        k_pet = b.mem(f"我养了一只{kind}，叫{pet}", "FACTUAL", s(),
                      [("user", "user", "has_pet", pet, "animal", 1), (pet, "animal", "is_a", kind, "thing", 1)],
                      lang="zh")
        k_toy = b.mem(f"{pet}最喜欢在{place}玩{toy}", "EPISODIC", s(), [(pet, "animal", "likes", toy, "thing", 1)],
                      lang="zh")
        kind_en = {"狗": "dog", "猫": "cat", "兔子": "rabbit"}[kind]
        qp_zh, qp_en = ["我的宠物叫什么名字？", f"我家的{kind}叫啥？"], ["What's my pet called?", f"What's my {kind_en}'s name?"]
        qt_zh, qt_en = [f"我家{kind}平时喜欢玩什么？"], [f"What does my {kind_en} like to play with?"]
        held_p = (["我养的宠物名字是什么？"], [f"What name did I give my {kind_en}?"])
        held_t = ([f"我的{kind}最爱玩的是什么？"], [f"What's my {kind_en}'s favourite toy?"])
    else:
        kind = rng.choice(EN_PETS)
        pet = _pick(rng, EN_PET_NAMES, taken)
        toy, place = rng.choice(EN_TOYS)
        k_pet = b.mem(f"I have a {kind} named {pet}", "FACTUAL", s(),
                      [("user", "user", "has_pet", pet, "animal", 1), (pet, "animal", "is_a", kind, "thing", 1)],
                      lang="en")
        k_toy = b.mem(f"{pet} loves playing with {toy} in {place}", "EPISODIC", s(),
                      [(pet, "animal", "likes", toy, "thing", 1)], lang="en")
        kind_zh = {"dog": "狗", "cat": "猫", "rabbit": "兔子"}[kind]
        qp_zh, qp_en = [f"我养的{kind_zh}叫什么？"], ["What's my pet's name?", f"What did I name my {kind}?"]
        qt_zh, qt_en = [f"我的{kind_zh}喜欢玩什么？"], [f"What toy does my {kind} love?", f"What does my {kind} like playing with?"]
        held_p = ([f"我的{kind_zh}叫什么名字？"], [f"Remind me of my {kind}'s name."])
        held_t = ([f"我家{kind_zh}最喜欢玩什么玩具？"], [f"Which toy is my {kind}'s favourite?"])
    b.ask(qp_zh, qp_en, [k_pet], "single", held=held_p)
    named.append(([f"{pet}喜欢玩什么？"], [f"What does {pet} like to play with?"], [k_toy],
                  [f"{pet}平时爱玩什么？"], [f"What's {pet}'s favourite thing to play with?"]))
    b.ask(qt_zh, qt_en, [k_pet, k_toy], "multi", cross_rate=0.0, held=held_t)

    # best friend and their new hobby (multi-hop)
    hobby_zh = rng.choice(["攀岩", "冲浪", "陶艺", "滑雪", "钓鱼", "摄影"])
    hobby_en = rng.choice(["bouldering", "surfing", "pottery", "skiing", "fly fishing", "film photography"])
    if speak_zh():
        friend = _pick(rng, ZH_NAMES, taken)
        k_friend = b.mem(f"我最好的朋友是{friend}，我们是大学同学", "FACTUAL", s(),
                         [("user", "user", "best_friend", friend, "person", 1)], lang="zh")
        k_hobby = b.mem(f"{friend}最近迷上了{hobby_zh}，每个周末都去", "EPISODIC", s(),
                        [(friend, "person", "likes", hobby_zh, "activity", 1)], lang="zh")
    else:
        friend = _pick(rng, EN_NAMES, taken)
        k_friend = b.mem(f"My best friend is {friend}, we met at university", "FACTUAL", s(),
                         [("user", "user", "best_friend", friend, "person", 1)], lang="en")
        k_hobby = b.mem(f"{friend} has recently gotten really into {hobby_en}, goes every weekend", "EPISODIC", s(),
                        [(friend, "person", "likes", hobby_en, "activity", 1)], lang="en")
    b.ask(["我最好的朋友是谁？"], ["Who is my best friend?"], [k_friend], "single",
          held=(["谁是我最要好的朋友？"], ["Who's my closest friend?"]))
    named.append(([f"{friend}最近在玩什么？"], [f"What is {friend} into these days?"], [k_hobby],
                  [f"{friend}最近有什么新爱好？"], [f"What hobby has {friend} picked up?"]))
    b.ask(["我最好的朋友最近在玩什么？", "我好朋友最近迷上了什么？"],
          ["What has my best friend been into lately?", "What's my best friend's new hobby?"],
          [k_friend, k_hobby], "multi", cross_rate=0.0,
          held=(["我最好的朋友最近爱上了什么活动？"], ["What does my best friend do on weekends these days?"]))

    # food likes and dislikes
    if speak_zh():
        food = rng.choice(ZH_FOODS)
        k_food = b.mem(f"我特别喜欢吃{food}，一周能吃好几次", "FACTUAL", s(), [("user", "user", "likes", food, "food", 1)],
                       lang="zh")
    else:
        food = rng.choice(EN_FOODS)
        k_food = b.mem(f"I really love {food}, could eat it several times a week", "FACTUAL", s(),
                       [("user", "user", "likes", food, "food", 1)], lang="en")
    b.ask(["我最爱吃什么？", "我平时喜欢吃啥？"], ["What's my favourite food?", "What do I love to eat?"], [k_food], "single",
          held=(["我最喜欢的食物是什么？"], ["Which dish do I like most?"]))
    if speak_zh():
        bad = rng.choice(ZH_DISLIKES)
        k_bad = b.mem(f"我不吃{bad}，从小就受不了那个味道", "FACTUAL", s(), [("user", "user", "eats", bad, "food", -1)],
                      lang="zh")
    else:
        bad = rng.choice(EN_DISLIKES)
        k_bad = b.mem(f"I don't eat {bad}, never could stand the taste", "FACTUAL", s(),
                      [("user", "user", "eats", bad, "food", -1)], lang="en")
    b.ask(["有什么东西是我不吃的？", "我忌口什么？"], ["Is there anything I refuse to eat?", "Which food do I avoid?"],
          [k_bad], "single", held=(["我不爱吃哪样东西？"], ["What food can't I stand?"]))

    # allergy (safety-critical)
    if speak_zh():
        allergen = rng.choice(ZH_ALLERGENS)
        k_all = b.mem(f"我对{allergen}过敏，碰了会起疹子", "FACTUAL", s(),
                      [("user", "user", "allergic_to", allergen, "thing", 1)], lang="zh", preset="safety")
    else:
        allergen = rng.choice(EN_ALLERGENS)
        k_all = b.mem(f"I'm allergic to {allergen}, it gives me hives", "FACTUAL", s(),
                      [("user", "user", "allergic_to", allergen, "thing", 1)], lang="en", preset="safety")
    b.ask(["我对什么过敏？", "我有没有过敏的东西？"], ["Do I have any allergies?", "What am I allergic to?"], [k_all], "single",
          held=(["我有什么过敏源？"], ["Am I allergic to anything?"]))

    # change of mind: sport (old in an early session, new in a later one)
    early, late = rng.randrange(0, 3), rng.randrange(3, len(SESSION_DAYS))
    if speak_zh():
        sp1, sp2 = rng.sample(ZH_SPORTS, 2)
        b.mem(f"我最喜欢的运动是{sp1}，每周都练", "FACTUAL", early, [("user", "user", "likes", sp1, "activity", 1)],
              lang="zh")
        k_sp = b.mem(f"我现在不怎么{sp1}了，改成{sp2}了，感觉更适合我", "FACTUAL", late,
                     [("user", "user", "likes", sp1, "activity", -1), ("user", "user", "likes", sp2, "activity", 1)],
                     lang="zh")
    else:
        sp1, sp2 = rng.sample(EN_SPORTS, 2)
        b.mem(f"My favourite sport is {sp1}, I practise every week", "FACTUAL", early,
              [("user", "user", "likes", sp1, "activity", 1)], lang="en")
        k_sp = b.mem(f"I've stopped {sp1} and switched to {sp2}, it suits me better", "FACTUAL", late,
                     [("user", "user", "likes", sp1, "activity", -1), ("user", "user", "likes", sp2, "activity", 1)],
                     lang="en")
    b.ask(["我现在喜欢什么运动？", "我最近在练什么运动？"], ["Which sport am I into these days?", "What sport do I do now?"],
          [k_sp], "change", held=(["我这阵子在做什么运动？"], ["What sport have I taken up lately?"]))

    # change of mind: morning drink
    early, late = rng.randrange(0, 3), rng.randrange(3, len(SESSION_DAYS))
    if speak_zh():
        d1, d2 = rng.sample(ZH_DRINKS, 2)
        b.mem(f"我每天早上都要喝一杯{d1}", "PROCEDURAL", early, [("user", "user", "drinks", d1, "drink", 1)], lang="zh")
        k_dr = b.mem(f"我最近把{d1}戒了，早上改喝{d2}", "PROCEDURAL", late,
                     [("user", "user", "drinks", d1, "drink", -1), ("user", "user", "drinks", d2, "drink", 1)],
                     lang="zh")
    else:
        d1, d2 = rng.sample(EN_DRINKS, 2)
        b.mem(f"I need a cup of {d1} every morning", "PROCEDURAL", early, [("user", "user", "drinks", d1, "drink", 1)],
              lang="en")
        k_dr = b.mem(f"I quit {d1} recently and drink {d2} in the morning instead", "PROCEDURAL", late,
                     [("user", "user", "drinks", d1, "drink", -1), ("user", "user", "drinks", d2, "drink", 1)],
                     lang="en")
    b.ask(["我早上一般喝什么？", "我现在每天早上喝啥？"], ["What do I drink in the morning now?",
                                                      "What's my morning drink these days?"], [k_dr], "change",
          held=(["我现在早饭的时候喝什么？"], ["What do I have to drink first thing in the morning?"]))

    # recipe (procedural)
    if speak_zh():
        dish, s1, s2 = rng.choice(ZH_RECIPES)
        k_rec = b.mem(f"我做{dish}的方法：{s1}，{s2}", "PROCEDURAL", s(), [("user", "user", "cooks", dish, "food", 1)],
                      lang="zh")
        b.ask([f"我是怎么做{dish}的？", f"{dish}我一般怎么做来着？"], [f"How do I usually cook {dish}?"], [k_rec], "single",
              held=([f"我做{dish}有哪些步骤？"], [f"What's my recipe for {dish}?"]))
    else:
        dish, s1, s2 = rng.choice(EN_RECIPES)
        k_rec = b.mem(f"My way of making {dish}: {s1}, then {s2}", "PROCEDURAL", s(),
                      [("user", "user", "cooks", dish, "food", 1)], lang="en")
        b.ask([f"我是怎么做{dish}的？"], [f"How do I make {dish}?", f"What's my {dish} method?"], [k_rec], "single",
              held=([f"我做{dish}用的是什么方法？"], [f"Walk me through how I make {dish}."]))

    # emotion
    if speak_zh():
        worry = rng.choice(ZH_WORRIES)
        k_emo = b.mem(f"我最近因为{worry}很焦虑，晚上都睡不好", "EMOTIONAL", s(),
                      [("user", "user", "worried_about", worry, "thing", 1)], lang="zh")
    else:
        worry = rng.choice(EN_WORRIES)
        k_emo = b.mem(f"I've been really anxious about {worry} and can't sleep well", "EMOTIONAL", s(),
                      [("user", "user", "worried_about", worry, "thing", 1)], lang="en")
    b.ask(["我最近在为什么事发愁？", "最近什么事让我睡不着？"], ["What has been stressing me out lately?",
                                                           "Why have I been sleeping badly?"], [k_emo], "single",
          held=(["我这段时间在担心什么？"], ["What's been keeping me up at night?"]))

    # trip (episodic)
    if speak_zh():
        tcity, act = rng.choice(ZH_TRIPS)
        comp = _pick(rng, ZH_NAMES, taken)
        month = rng.choice(ZH_MONTHS)
        k_trip = b.mem(f"去年{month}月我和{comp}去了{tcity}旅行，{act}", "EPISODIC", s(),
                       [("user", "user", "visited", tcity, "place", 1), ("user", "user", "traveled_with", comp, "person", 1)],
                       lang="zh")
        b.ask(["我去年去哪里旅行了？", "我上次出去玩去的是哪儿？"], ["Where did I go on holiday last year?"], [k_trip], "single",
              held=(["我去年去了哪里玩？"], ["Where did I go on vacation last year?"]))
        b.ask([f"我是和谁一起去的{tcity}？"], [f"Who came with me to {tcity}?"], [k_trip], "single",
              held=([f"谁陪我去的{tcity}？"], [f"Who was with me on the {tcity} trip?"]))
    else:
        tcity, act = rng.choice(EN_TRIPS)
        comp = _pick(rng, EN_NAMES, taken)
        month = rng.choice(EN_MONTHS)
        k_trip = b.mem(f"Last {month} I went to {tcity} with {comp} and {act}", "EPISODIC", s(),
                       [("user", "user", "visited", tcity, "place", 1), ("user", "user", "traveled_with", comp, "person", 1)],
                       lang="en")
        b.ask(["我去年去哪里度假了？"], ["Where did I travel last year?", "Where was my last big trip?"], [k_trip], "single",
              held=(["我去年去了哪个地方旅游？"], ["Which place did I visit on my trip last year?"]))
        b.ask([f"我是和谁一起去的{tcity}？"], [f"Who did I go to {tcity} with?"], [k_trip], "single",
              held=([f"谁和我一起去了{tcity}？"], [f"Who was with me on the {tcity} trip?"]))

    # birthday and music
    if speak_zh():
        m, d = rng.randint(1, 12), rng.randint(1, 28)
        k_bd = b.mem(f"我的生日是{m}月{d}日", "FACTUAL", s(), [("user", "user", "birthday", f"{m}月{d}日", "date", 1)],
                     lang="zh")
        genre, artist = rng.choice(ZH_MUSIC)
        k_mu = b.mem(f"我平时最爱听{genre}，尤其是{artist}", "FACTUAL", s(),
                     [("user", "user", "likes", genre, "music", 1), ("user", "user", "likes", artist, "person", 1)],
                     lang="zh")
    else:
        m, d = rng.randint(1, 12), rng.randint(1, 28)
        k_bd = b.mem(f"My birthday is on {EN_MONTHS[m - 1]} {d}", "FACTUAL", s(),
                     [("user", "user", "birthday", f"{EN_MONTHS[m - 1]} {d}", "date", 1)], lang="en")
        genre, artist = rng.choice(EN_MUSIC)
        k_mu = b.mem(f"I mostly listen to {genre}, especially {artist}", "FACTUAL", s(),
                     [("user", "user", "likes", genre, "music", 1), ("user", "user", "likes", artist, "person", 1)],
                     lang="en")
    b.ask(["我的生日是哪天？", "我什么时候过生日？"], ["When is my birthday?", "What's my date of birth?"], [k_bd], "single",
          held=(["我是几月几号出生的？"], ["Which day is my birthday?"]))
    b.ask(["我喜欢听什么音乐？", "我平时听什么歌？"], ["What kind of music do I like?", "What do I listen to?"], [k_mu], "single",
          held=(["我爱听哪种类型的音乐？"], ["What music am I into?"]))

    # questions that name a person, pet, company or city instead of saying "my"
    for zh, en, answers, held_zh, held_en in rng.sample(named, 3):
        b.ask(zh, en, answers, "entity", held=(held_zh, held_en))

    # distractors: everyday remarks in both languages (mostly the user's own)
    own, other = ("zh", "en") if zh_main else ("en", "zh")
    for lang_, count in ((own, fillers_per_user), (other, fillers_per_user // 6)):
        for text in fillers(rng, lang_, count):
            b.mem(text, "EPISODIC", s(), [], lang=lang_)

    # unrelated questions (must be gated): mostly in the user's language
    for text in rng.sample(ZH_UNRELATED if zh_main else EN_UNRELATED, 8):
        u.questions.append(EvalQuestion(user=user_id, text=text, answers=[], kind="unrelated", lang=lang))
    for text in rng.sample(ZH_PERSONAL_UNRELATED if zh_main else EN_PERSONAL_UNRELATED, 4):
        u.questions.append(EvalQuestion(user=user_id, text=text, answers=[], kind="unrelated", lang=lang,
                                        about_user=True))
    for text in rng.sample(EN_UNRELATED if zh_main else ZH_UNRELATED, 3):
        u.questions.append(EvalQuestion(user=user_id, text=text, answers=[], kind="unrelated",
                                        lang="en" if zh_main else "zh", cross_lingual=True))
    # held-out unrelated questions: new ones, as many of each sort
    for texts, about, cross in (((ZH_UNRELATED_HELD, EN_UNRELATED_HELD), False, False),
                                ((ZH_PERSONAL_UNRELATED_HELD, EN_PERSONAL_UNRELATED_HELD), True, False),
                                ((EN_UNRELATED_HELD, ZH_UNRELATED_HELD), False, True)):
        count = 4 if about else 3 if cross else 8
        q_lang = lang if not cross else ("en" if zh_main else "zh")
        for text in held.sample(texts[0] if zh_main else texts[1], count):
            u.held_out.append(EvalQuestion(user=user_id, text=text, answers=[], kind="unrelated", lang=q_lang,
                                           cross_lingual=cross, about_user=about))
    return u


def generate(seed: int = 7, users: int = 12, fillers_per_user: int = 100) -> EvalSet:
    """Half the users speak mostly Chinese, half mostly English; each has about 30 planted facts and
    fillers_per_user (+1/6 in the other language) everyday remarks."""
    rng = random.Random(seed)
    out = [_user(rng, f"u{i:02d}", "zh" if i % 2 == 0 else "en", fillers_per_user, random.Random(f"held-{seed}-{i}"))
           for i in range(users)]
    return EvalSet(seed=seed, users=out)


if __name__ == "__main__":
    data = generate()
    kinds: dict[str, int] = {}
    for q in data.questions:
        kinds[q.kind] = kinds.get(q.kind, 0) + 1
    print(f"{len(data.users)} users, {len(data.memories)} memories, {len(data.questions)} questions: {kinds}")
    for q in data.users[0].questions[:8] + data.users[1].questions[:8]:
        print(q.kind, q.lang, q.text, q.answers)
