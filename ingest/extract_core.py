"""The extractor's shared core: the triple type, the closed vocabulary, and the per-turn state both rule sets fill.

ingest/extract.py is the public face and the driver; ingest/extract_zh.py and ingest/extract_en.py hold each language's
rules and import what they share from here (so neither imports the driver, and the driver imports both).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

from ingest.extract_routines import (
    DOSE_PREDICATE,
    PROVIDER_PREDICATE,
    ROUTINE_PREDICATE,
    SUPPORTS_TEAM_PREDICATE,
    medicine_of,
    routine_of,
)
from ingest.lexicon import PLACES_ZH, RELATIONS_EN, RELATIONS_ZH, has_han
from ingest.reply_style import reply_style_axis

USER = "user"


@dataclass(frozen=True, slots=True)
class ExtractedTriple:
    """One (subject, predicate, object) statement found in a turn, before it becomes graph entities."""

    subject: str
    subject_kind: str
    predicate: str
    object: str
    object_kind: str
    polarity: int = 1

    def key(self) -> tuple[str, str, str, int]:
        """The normalised identity used for de-duplication and evaluation."""
        return (normalize_term(self.subject), self.predicate, normalize_term(self.object), self.polarity)


@dataclass(frozen=True, slots=True)
class PredicateSpec:
    name: str
    object_kind: str
    description: str


# How the user wants the assistant to answer (ingest/reply_style.py): asked by every request for help or advice.
REPLY_STYLE_PREDICATE = "reply_style"

# The closed vocabulary. object_kind is the Entity.kind the object becomes in the graph.
PREDICATES: dict[str, PredicateSpec] = {
    p.name: p
    for p in [
        PredicateSpec("name", "name", "the user's (or a person's) name: 我叫小明 / my name is Alice"),
        PredicateSpec("nickname", "name", "what people call them: 大家都叫我阿杰 / call me Jess"),
        PredicateSpec("age", "number", "age in years, digits: 我今年28岁 / I'm 34"),
        PredicateSpec("birthday", "date", "birthday as written: 7月20日 / March 3rd"),
        PredicateSpec("lives_in", "place", "where they live now (-1: no longer / used to)"),
        PredicateSpec("hometown", "place", "where they are from / grew up: 我是四川人 / I'm from Texas"),
        PredicateSpec("works_at", "organization", "employer or work place (-1: left)"),
        PredicateSpec("studies_at", "organization", "school or university"),
        PredicateSpec("major", "field", "field of study"),
        PredicateSpec("is_a", "role", "what the subject is: job, role, identity (程序员 / nurse / vegetarian)"),
        PredicateSpec("speaks", "language", "a language they speak"),
        PredicateSpec("spouse", "person", "wife / husband, named"),
        PredicateSpec("partner", "person", "girlfriend / boyfriend / fiancé(e), named"),
        PredicateSpec("mother", "person", "mother, named"),
        PredicateSpec("father", "person", "father, named"),
        PredicateSpec("sister", "person", "sister, named"),
        PredicateSpec("brother", "person", "brother, named"),
        PredicateSpec("child", "person", "son / daughter, named"),
        PredicateSpec("grandparent", "person", "grandmother / grandfather, named"),
        PredicateSpec("grandchild", "person", "grandson / granddaughter, named"),
        PredicateSpec("friend", "person", "friend, named"),
        PredicateSpec("colleague", "person", "colleague, named"),
        PredicateSpec("boss", "person", "boss / manager, named"),
        PredicateSpec("pet", "animal", "a pet, by its name"),
        PredicateSpec("emergency_contact", "person", "who to call in an emergency"),
        PredicateSpec("phone", "phone", "phone number as written: 我的手机号是138… / my number is 555-1234"),
        PredicateSpec("email", "email", "their own e-mail address: 我的邮箱是… / my email is anna@example.com"),
        PredicateSpec("likes", "thing", "preference; -1 = dislike (不喜欢 / 讨厌 / hate / can't stand)"),
        PredicateSpec("eats", "food", "diet: what they (don't) eat"),
        PredicateSpec("drinks", "food", "diet: what they (don't) drink"),
        PredicateSpec("allergic_to", "allergen", "allergy (safety-critical)"),
        PredicateSpec("has_condition", "condition", "medical condition (safety-critical)"),
        PredicateSpec("takes_dose", "dose", "a medicine and its dose now: levothyroxine 75 mcg / 二甲双胍 500毫克"),
        PredicateSpec("commutes_by", "transport", "how they get to work now: bus, bike, car, subway, foot"),
        PredicateSpec("uses_phone", "device", "the phone they use now, by its model: iPhone 15 / 华为Mate 40"),
        PredicateSpec("drives", "vehicle", "the car they drive now, by its model: 2015 Honda Civic / 比亚迪汉"),
        PredicateSpec("number_of_children", "number",
                      "how many children they have, digits: we have two kids / our third baby"),
        PredicateSpec("on_team", "team", "the team or department they are in at work now: payments team / 市场部"),
        PredicateSpec("uses_laptop", "device", "the laptop they work on now, by its model: ThinkPad X1 Carbon / MacBook"
                      " Pro"),
        PredicateSpec("uses_camera", "device", "the camera they shoot with now, by its model: Canon R5 / 索尼A7M4"),
        PredicateSpec("has_provider", "provider", "who serves them now, one of each kind: carrier: T-Mobile / bank:"
                      " Chase / gp: Dr. Nguyen"),
        PredicateSpec("supports_team", "team", "the team they support now, one per league: nba: Celtics"),
        PredicateSpec("has_routine", "routine", "a routine's time, days or way now, keyed by the routine: bedtime: 10"
                      " / wake-up: 6:30 / shift: night / gym: mon wed fri / lunch: packed"),
        PredicateSpec("visited", "place", "a named place they went to or were at (past events only)"),
        PredicateSpec("going_to", "place", "a named place they plan to go or move to (a trip, a season away, a"
                      " move; -1: the plan dropped): Lisbon / 北海"),
        PredicateSpec(REPLY_STYLE_PREDICATE, "style", "how they want the assistant to answer, as said: keep it short"
                      " / 说话直接点 / don't tell me to invest in crypto"),
        PredicateSpec("originates_from", "place", "general knowledge: X originated in Y"),
        PredicateSpec("located_in", "place", "general knowledge: X is in Y"),
        PredicateSpec("capital_of", "place", "general knowledge: X is the capital of Y"),
    ]
}

# Durable facts about the user: their identity, attributes, people, pets and health (a FACTUAL memory;
# a time word in the same turn does not make it temporary). Not the way to work: a routine (PROCEDURAL).
PERSONAL_FACT_PREDICATES: frozenset[str] = frozenset(
    {
        "name", "nickname", "age", "birthday", "lives_in", "hometown", "works_at", "studies_at", "major", "is_a",
        "speaks", "spouse", "partner", "mother", "father", "sister", "brother", "child", "grandparent", "grandchild",
        "friend", "colleague",
        "boss", "pet", "emergency_contact", "allergic_to", "has_condition", "phone", "email", "takes_dose",
        "uses_phone", "drives", "on_team", "number_of_children", "uses_laptop", "uses_camera", "has_provider",
    }
)

# Predicates where a subject holds one value at a time: a new value contradicts the old one.
SINGLE_VALUED_PREDICATES: frozenset[str] = frozenset(
    {
        "name",
        "nickname",  # what the user goes by: "I go by Kat these days" replaces "everyone calls me Kate"
        "age",
        "birthday",
        "lives_in",
        "hometown",
        "works_at",
        "studies_at",
        "major",
        "spouse",
        "partner",
        "mother",
        "father",
        "boss",
        "phone",
        "email",
        "capital_of",
        "commutes_by",
        "uses_phone",
        "drives",
        "on_team",
        "number_of_children",
        "uses_laptop",
        "uses_camera",
    }
)

# One value at a time for some objects of a many-valued predicate: is_a holds many identities at once (a nurse,
# a mother, a vegetarian), but one occupation. single_valued_slot names the slot a new value replaces the old in.
OCCUPATION_SLOT = "occupation"
# ... and one diet: "I'm pescatarian now" replaces "I'm a vegetarian" (being a mother and a vegetarian is no change)
DIET_SLOT = "diet"
DIETS: frozenset[str] = frozenset({"vegetarian", "vegan", "pescatarian", "pescetarian", "flexitarian", "carnivore",
                                   "lacto-vegetarian", "ovo-vegetarian", "素食者", "素食主义者", "纯素食者", "吃素的",
                                   "素食主义", "纯素主义者"})


def single_valued_slot(predicate: str, obj: str) -> str | None:
    """The slot in which a (subject, predicate, obj) statement holds one value at a time, or None: the predicate
    itself for a single-valued one (lives_in, phone...), OCCUPATION_SLOT for is_a with a job (nurse, 老师), DIET_SLOT
    for is_a with a diet (vegetarian, 素食者), the medicine for a dose (takes_dose:levothyroxine)."""
    if predicate in SINGLE_VALUED_PREDICATES:
        return predicate
    if predicate == DOSE_PREDICATE:  # one dose of each medicine at a time
        return f"{DOSE_PREDICATE}:{normalize_term(medicine_of(obj))}"
    # one bedtime, one bank, one NBA team
    if predicate in (ROUTINE_PREDICATE, PROVIDER_PREDICATE, SUPPORTS_TEAM_PREDICATE):
        return f"{ROUTINE_PREDICATE}:{normalize_term(routine_of(obj))}"
    if predicate == REPLY_STYLE_PREDICATE and (axis := reply_style_axis(obj)) is not None:
        return f"{REPLY_STYLE_PREDICATE}:{axis}"  # short or long, blunt or gentle, one language
    if predicate == "is_a" and is_occupation(obj):
        return OCCUPATION_SLOT
    if predicate == "is_a" and is_diet(obj):
        return DIET_SLOT
    return None


# Occupations: English head nouns (the last word: software engineer, ER nurse), a few two-word ones, and job
# suffixes; Chinese job words and suffixes. Students, retirees and family roles (mother, 妈妈) are no occupation:
# they go along with one.
_EN_OCCUPATIONS = frozenset(
    {
        "accountant", "actor", "actress", "administrator", "analyst", "architect", "artist", "assistant", "attorney",
        "auditor", "baker", "banker", "barber", "barista", "barrister", "bartender", "beautician", "biologist",
        "bookkeeper", "builder", "butcher", "carpenter", "cashier", "caregiver", "carer", "ceo", "cfo", "chef",
        "chemist", "cleaner", "clerk", "coach", "columnist", "consultant", "cook", "coordinator", "copywriter",
        "counselor", "counsellor", "courier", "cto", "dancer", "dentist", "designer", "detective", "developer",
        "dietitian", "dietician", "director", "doctor", "driver", "economist", "editor", "electrician", "engineer",
        "entrepreneur", "executive", "farmer", "firefighter", "fisherman", "florist", "freelancer", "gardener", "guard",
        "hairdresser", "homemaker", "housewife", "househusband", "hygienist", "illustrator", "instructor",
        "interpreter", "janitor", "journalist", "judge", "landscaper", "lawyer", "lecturer", "librarian", "lifeguard",
        "machinist", "manager", "marketer", "mechanic", "midwife", "musician", "nanny", "novelist", "nurse", "officer",
        "painter", "paralegal", "paramedic", "pastor", "pharmacist", "photographer", "physician", "physicist", "physio",
        "physiotherapist", "pianist", "pilot", "plumber", "poet", "policeman", "policewoman", "postman", "priest",
        "producer", "professor", "programmer", "psychiatrist", "psychologist", "realtor", "receptionist", "recruiter",
        "reporter", "researcher", "sailor", "salesman", "saleswoman", "salesperson", "scientist", "secretary", "singer",
        "soldier", "solicitor", "statistician", "stylist", "surgeon", "surveyor", "tailor", "teacher", "technician",
        "therapist", "translator", "tutor", "vet", "veterinarian", "waiter", "waitress", "welder", "writer", "youtuber",
        # said of a job as often, and missing above (做HR, a bank teller, a PM)
        "hr", "pm", "teller", "trader", "broker", "underwriter", "dispatcher", "inspector", "ranger", "operator",
        "sommelier", "curator", "planner", "strategist", "specialist", "advisor", "adviser", "attendant", "concierge",
        "influencer", "streamer", "animator", "doula", "caretaker", "housekeeper", "chauffeur", "roofer", "handyman",
        "agent", "dev", "trainer", "nutritionist", "lead",  # a team lead, a design lead
    }
)
# Lines of work said as what one does ("I'm in sales", "I work in product", 我做 product 的): a job as people name it.
WORK_FIELDS_EN = (
    "product", "marketing", "sales", "finance", "hr", "human resources", "it", "tech", "consulting", "accounting",
    "engineering", "design", "ux", "operations", "ops", "logistics", "law", "banking", "insurance", "real estate",
    "retail", "hospitality", "healthcare", "education", "publishing", "advertising", "pr", "recruiting",
    "customer service", "customer support", "data science", "procurement", "supply chain", "construction", "pharma",
    "product design", "product management", "graphic design", "web development", "software development",
    "software engineering", "investment banking", "private equity", "venture capital", "digital marketing",
)
_EN_OCCUPATION_PHRASES = (
    "social worker", "care worker", "office worker", "factory worker", "construction worker", "health worker",
    "flight attendant", "real estate agent", "travel agent", "estate agent", "insurance agent", "police officer",
    "stay-at-home mom", "stay-at-home dad", "stay-at-home mum", "stay at home mom", "stay at home dad",
)
_EN_OCCUPATION_SUFFIX_RE = re.compile(r"(?:olog|iatr|ometr)ist$|ician$|ographer$")
_ZH_OCCUPATIONS = (
    "医生", "护士", "警察", "律师", "会计", "司机", "记者", "编辑", "作家", "画家", "科学家", "企业家", "艺术家",
    "音乐家", "经理", "总监", "主管", "老板", "教授", "农民", "工人", "保安", "保姆", "码农", "程序猿", "开发",
    "设计", "销售", "运营", "产品", "测试", "前端", "后端", "家庭主妇", "全职妈妈", "全职太太", "全职爸爸",
    "自由职业者", "主播", "博主", "军人", "空姐", "空乘", "导游", "店主", "教练", "翻译", "法官", "模特", "歌手",
    "秘书", "助理", "前台", "实习生", "外卖小哥", "快递小哥", "up主", "撰稿人", "主持人", "经纪人", "制片人",
)
_ZH_OCCUPATION_SUFFIX_RE = re.compile(r"(?<!大)师$|(?<![会党团成队学])员$")
# Not a job one has now: a judgement (a good cook, a terrible singer), a hope, a hobby or a past one.
_EN_NOT_A_JOB_RE = re.compile(
    r"^(?:(?:very|really|pretty|such) )?(?:good|great|bad|terrible|awful|horrible|decent|lousy|careful|amazing"
    r"|fantastic|excellent|poor|proud|huge|big|aspiring|wannabe|would-be|future|amateur|hobby|hobbyist|former|ex"
    r"|retired|failed|part-time|part time|volunteer|weekend|self-taught)\b"
)


def is_diet(term: str) -> bool:
    """Whether an is_a object names a diet: vegetarian, pescatarian, 素食者 (DIETS)."""
    return normalize_term(term) in DIETS


# Sports and music by name, for a question asking the user's by kind ("Which sport am I into?", 我平时听什么歌;
# ingest/slots.py SPORT, MUSIC) and for a switch between sports ("I've stopped tennis and switched to swimming").
_SPORTS_EN = ("basketball", "badminton", "running", "jogging", "swimming", "yoga", "tennis", "table tennis",
              "ping pong", "climbing", "bouldering", "cycling", "biking", "mountain biking", "hiking", "skiing",
              "snowboarding", "surfing", "soccer", "football", "baseball", "softball", "volleyball", "golf", "boxing",
              "kickboxing", "pilates", "crossfit", "weightlifting", "lifting", "squash", "rowing", "karate", "judo",
              "taekwondo", "kung fu", "tai chi", "martial arts", "skating", "ice skating", "fencing", "archery",
              "cricket", "rugby", "hockey", "marathons", "triathlons", "kayaking", "sailing", "diving", "scuba diving",
              "spinning", "pickleball", "handball", "gymnastics", "trail running", "dance", "dancing", "padel",
              "frisbee", "ultimate frisbee", "ultimate", "netball", "lacrosse", "water polo", "paddleboarding")
_SPORTS_ZH = ("篮球", "羽毛球", "跑步", "慢跑", "游泳", "瑜伽", "乒乓球", "网球", "骑行", "骑车", "自行车", "攀岩",
              "登山", "爬山", "徒步", "滑雪", "冲浪", "足球", "棒球", "排球", "高尔夫", "拳击", "普拉提", "健身",
              "举重",
              "壁球", "划船", "赛艇", "空手道", "柔道", "跆拳道", "太极", "武术", "滑冰", "轮滑", "击剑", "射箭",
              "橄榄球", "冰球", "马拉松", "铁人三项", "皮划艇", "帆船", "潜水", "动感单车", "体操", "跳舞", "舞蹈",
              "飞盘", "匹克球", "桨板", "撸铁", "广场舞")
_MUSIC_EN = ("jazz", "rock", "pop", "classical", "classical music", "hip hop", "hip-hop", "rap", "r&b", "country",
             "folk", "metal", "heavy metal", "blues", "electronic", "electronic music", "edm", "techno", "house music",
             "indie", "punk", "reggae", "soul", "k-pop", "kpop", "j-pop", "opera", "funk", "lo-fi", "lofi",
             "disco", "gospel", "bossa nova", "ambient", "trance", "dubstep", "musicals", "soundtracks")
_MUSIC_ZH = ("爵士", "摇滚", "流行", "古典", "嘻哈", "说唱", "民谣", "电子乐", "电音", "金属", "重金属", "蓝调",
             "乡村", "独立音乐", "朋克", "雷鬼", "灵魂乐", "韩流", "歌剧", "放克", "轻音乐", "纯音乐", "粤语歌",
             "民乐", "古风", "二次元", "京剧", "昆曲", "交响乐", "钢琴曲", "老歌", "情歌", "音乐剧", "原声")
# A sport or music said with its verb: 打篮球, 听爵士乐, "playing tennis", "listening to jazz".
_ZH_ACTIVITY_VERB_RE = re.compile(r"^(?:打|玩|练|踢|去|做|听)(?=[\u4e00-\u9fff]{2})")  # not the 跑 of 跑步
_EN_ACTIVITY_VERB_RE = re.compile(r"^(?:playing|doing|practi[sc]ing|going|listening to|listen to|play|do) ")


def activity_name(term: str) -> str:
    """An activity without the verb said with it (打篮球 -> 篮球, "playing tennis" -> tennis), normalised."""
    t = normalize_term(term)
    return _EN_ACTIVITY_VERB_RE.sub("", _ZH_ACTIVITY_VERB_RE.sub("", t)).strip()


class _KindNames(NamedTuple):
    """The names of one kind (sports, music, food), each matched whole: an English one alone or last ("indoor
    climbing", "smooth jazz", "fish tacos": with the kind's tail, a plural's), a Chinese one last, or with its noun
    (爵士乐, 古典音乐, 流行歌曲, 瑜伽课), not 乡村生活, 流行病."""

    en: re.Pattern[str]
    zh: re.Pattern[str]

    @classmethod
    def of(cls, en: tuple[str, ...], zh: tuple[str, ...], *, en_tail: str = "",
           zh_tail: str = "(?:乐|音乐|歌曲?|曲|风|运动|课)?") -> _KindNames:
        return cls(re.compile(rf"(?:.* )?(?:{'|'.join(map(re.escape, en))}){en_tail}"),
                   re.compile(rf".*(?:{'|'.join(map(re.escape, zh))}){zh_tail}"))

    def named_in(self, term: str) -> bool:
        t = activity_name(term)
        if not t:
            return False
        return (self.zh if has_han(t) else self.en).fullmatch(t) is not None


_SPORTS = _KindNames.of(_SPORTS_EN, _SPORTS_ZH)
_MUSIC = _KindNames.of(_MUSIC_EN, _MUSIC_ZH)


def is_sport(term: str) -> bool:
    """Whether a liked thing names a sport: tennis, rock climbing, 打羽毛球, 瑜伽 (_SPORTS_EN, _SPORTS_ZH)."""
    return _SPORTS.named_in(term)


def is_music(term: str) -> bool:
    """Whether a liked thing names a kind of music: jazz, k-pop, 听爵士乐, 古典 (_MUSIC_EN, _MUSIC_ZH); a singer or
    a band is no kind (the memory naming one names its kind too, or is answered by what it says)."""
    return _MUSIC.named_in(term)


# Food by name, for a request for food advice asking what the user likes to eat or drink (ingest/slots.py
# FOOD_LIKING): cuisines, dishes, foods, desserts and drinks. The cuisines and foods name a place to eat out too
# (ingest/slots.py: "a thai place", "a taco joint"), the drinks do not ("a coffee spot" to work from).
CUISINES_EN = ("thai", "indian", "chinese", "mexican", "italian", "japanese", "korean", "vietnamese", "greek",
               "french", "spanish", "ethiopian", "turkish", "lebanese", "middle eastern", "sichuan", "szechuan",
               "cantonese", "taiwanese", "malaysian", "indonesian", "filipino", "peruvian", "brazilian", "caribbean",
               "moroccan", "persian", "mediterranean", "tex-mex", "cajun", "nepalese", "pakistani", "sri lankan")
FOODS_EN = ("sushi", "sashimi", "ramen", "udon", "pizza", "pasta", "burger", "taco", "burrito", "bbq", "barbecue",
            "curry", "curries", "steak", "seafood", "dim sum", "brunch", "noodle", "pho", "tapas", "hotpot", "hot pot",
            "dumpling", "bao", "kimchi", "bibimbap", "pad thai", "tom yum", "biryani", "naan", "samosa", "falafel",
            "hummus", "kebab", "shawarma", "gyro", "paella", "risotto", "lasagna", "lasagne", "spaghetti",
            "carbonara", "gnocchi", "salad", "soup", "stew", "sandwich", "bagel", "croissant", "pancake", "waffle",
            "fries", "fried chicken", "chicken wing", "wings", "bacon", "cheese", "bread", "sourdough", "rice",
            "fish", "chicken", "beef", "pork", "lamb", "tofu", "lobster", "crab", "shrimp", "prawn", "oyster",
            "mussel", "scallop", "salmon", "tuna", "egg", "avocado", "mushroom", "nut", "peanut", "fruit",
            "mango", "strawberry", "strawberries", "berry", "berries", "peach", "durian", "dessert", "cake",
            "cheesecake", "tiramisu", "ice cream", "gelato", "chocolate", "cookie", "brownie", "pie", "pastry",
            "pastries", "macaron", "donut", "doughnut", "cupcake", "pudding", "mochi", "candy", "sweets", "custard",
            "crepe", "tart", "mousse", "churro", "pastel de nata", "pastéis de nata", "food", "cuisine", "dish",
            "snack", "meal", "takeout", "takeaway", "street food", "spicy",
            # what is liked or disliked as an ingredient ("I can't stand cilantro": a dislike food advice respects)
            "cilantro", "coriander", "olive", "onion", "garlic", "tomato", "tomatoes", "eggplant", "aubergine",
            "celery", "bell pepper", "anchovy", "anchovies", "liver", "okra", "broccoli", "brussels sprout",
            "cauliflower", "beet", "pickle", "mayo", "mayonnaise", "raisin", "coconut", "kale", "spinach",
            "cucumber", "carrot", "bean", "lentil", "pineapple", "banana", "meat", "vegetable", "veggies", "offal",
            "blue cheese", "goat cheese")
DRINKS_EN = ("coffee", "espresso", "latte", "cappuccino", "flat white", "tea", "matcha", "bubble tea", "boba",
             "milk tea", "wine", "beer", "cocktail", "whisky", "whiskey", "sake", "smoothie", "juice", "lemonade",
             "kombucha", "hot chocolate")
_FOODS_ZH = ("菜", "料理", "日料", "韩料", "西餐", "中餐", "快餐", "火锅", "烧烤", "串", "小吃", "甜品", "甜点", "甜食",
             "点心", "早茶", "零食", "美食", "夜宵", "宵夜", "外卖", "面条", "拉面", "面食", "米线", "米粉", "粉", "饭",
             "粥", "汤", "饺子", "包子", "馄饨", "煎饼", "烤鸭", "肉", "鱼", "虾", "蟹", "鸡", "鸡丁", "鸭", "排骨",
             "豆腐", "海鲜", "寿司", "披萨", "汉堡", "牛排", "沙拉", "蛋糕", "蛋挞", "冰淇淋", "雪糕", "巧克力",
             "提拉米苏", "面包", "饼干", "水果", "榴莲", "芒果", "西瓜", "草莓", "辣", "麻辣烫", "卤味", "凉皮",
             "肉夹馍", "月饼", "粽子", "汤圆", "糕", "饼", "酥", "馍", "千层", "班戟", "布丁", "慕斯", "泡芙", "马卡龙",
             "双皮奶", "糖水", "牛奶", "酸奶", "奶酪", "芝士", "春卷", "煲", "干锅", "香锅", "奶茶", "咖啡", "茶", "酒",
             "果汁", "饮料",
             # ingredients said liked or not (我讨厌吃苦瓜, 不吃香菜: 菜 ends it already)
             "苦瓜", "黄瓜", "冬瓜", "南瓜", "茄子", "葱", "蒜", "椒", "萝卜", "蘑菇", "香菇", "木耳", "西兰花", "番茄",
             "西红柿", "土豆", "豆芽", "毛豆", "鸡蛋", "皮蛋", "内脏", "折耳根", "蔬菜")
_FOOD = _KindNames.of((*CUISINES_EN, *FOODS_EN, *DRINKS_EN), _FOODS_ZH, en_tail="(?:e?s)?", zh_tail="")
# Doing, not eating: cooking or growing it ("baking bread", 做饭), a pastime (钓鱼), the body's muscles, a game (吃鸡),
# a promise (画饼).
_NOT_EATEN_RE = re.compile(r"(?:cooking|baking|making|brewing|growing|grilling|roasting|frying|selling|reviewing"
                           r"|photographing|watching) .*|cooking|baking|吃鸡.*"
                           r"|.*(?:做饭|做菜|烧菜|煮饭|下厨|买菜|钓鱼|养鱼|金鱼|斗鱼|鲸鱼|鲨鱼|肌肉|画饼)")
_EATING_RE = re.compile(r"^(?:eating|drinking|having|trying) |^[吃喝](?=[\u4e00-\u9fff])")


def is_food(term: str) -> bool:
    """Whether a liked (or disliked) thing names something eaten or drunk: a cuisine (Thai food, 川菜, "Italian"), a
    dish (green curry, 水煮鱼), a food or an ingredient (cilantro, 苦瓜), a dessert (tiramisu), a drink (milk tea,
    奶茶); not cooking it ("baking bread", 做饭) nor a pastime (钓鱼)."""
    t = _EATING_RE.sub("", normalize_term(term))
    return not _NOT_EATEN_RE.fullmatch(t) and _FOOD.named_in(t)


def is_occupation(term: str) -> bool:
    """Whether an is_a object names a job: nurse, software engineer, 护士, 产品经理 (not mother, student, 妈妈)."""
    t = normalize_term(term)
    if not t:
        return False
    if has_han(t):
        return t.endswith(_ZH_OCCUPATIONS) or _ZH_OCCUPATION_SUFFIX_RE.search(t) is not None
    t = re.sub(r"\s+(?:at|for|with|in)\s.*$", "", t)  # "nurse at st mary's": the job, not where
    if _EN_NOT_A_JOB_RE.match(t):
        return False
    if re.match(r"(?:head|director|vp|vice president|chief \w+ officer) of \w", t):  # head of people: a title
        return True
    if t.endswith(_EN_OCCUPATION_PHRASES) or t in WORK_FIELDS_EN:
        return True
    words = t.split()
    if not words:
        return False
    head = words[-1]
    if head.endswith("s") and head[:-1] in _EN_OCCUPATIONS:
        head = head[:-1]
    return head in _EN_OCCUPATIONS or _EN_OCCUPATION_SUFFIX_RE.search(head) is not None


def normalize_term(term: str) -> str:
    """Comparison form of a subject/object: NFKC, case-folded, no articles, no edge punctuation/particles."""
    t = unicodedata.normalize("NFKC", term).casefold().strip()
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"^(?:the|a|an)\s+", "", t)
    t = t.strip(" \t.,!?;:'\"“”‘’《》()[]")
    return t


# ---------------------------------------------------------------------------------------------
# shared object cleaning

def _valid_object(obj: str) -> bool:
    o = normalize_term(obj)
    if not o or o in {
        "什么",
        "啥",
        "东西",
        "它",
        "这个",
        "那个",
        "这",
        "那",
        "你",
        "您",
        "他",
        "她",
        "他们",
        "她们",
        "你们",
        "it",
        "anything",
        "everything",
        "something",
        "nothing",
        "this",
        "that",
        "them",
        "him",
        "her",
        "you",
        "me",
    }:
        return False
    return len(o) <= 40


# The user's own people, one or a list (my wife and my kids, my two little sisters, our boss, 我老婆和孩子, 我妈): whom
# the user loves or can't stand is no liking of a thing. A relative named is a kin triple (my wife Anna: spouse), one
# unnamed is found by the words for them (ingest/slots.py kin_words); a pet, a thing of theirs (my mom's cooking) and
# people in general (kids) are likings as before.
_PERSON_EN = "|".join(sorted((re.escape(w) for w, r in RELATIONS_EN.items() if r != "pet"), key=len, reverse=True))
_PERSON_ZH = "|".join(sorted((w for w, r in RELATIONS_ZH.items() if r != "pet"), key=len, reverse=True))
_ONE_OF_MINE_EN = rf"(?:[a-z-]+ ){{0,2}}?(?:{_PERSON_EN})s?"
_OWN_PEOPLE_RE = re.compile(
    rf"(?i)(?:my|our) {_ONE_OF_MINE_EN}(?:(?:,|,? and|,? &) (?:(?:my|our) )?{_ONE_OF_MINE_EN})*"
    rf"|(?:我|我们|咱)(?:的|家的?)?(?:{_PERSON_ZH})(?:(?:和|、|跟|还有)(?:我的?)?(?:{_PERSON_ZH}))*")


def own_people(obj: str) -> bool:
    """Whether an object names only people of the user's own: "my wife and kids", 我老婆和孩子 (not "my job")."""
    return _OWN_PEOPLE_RE.fullmatch(obj.strip()) is not None


# Emoji and pictographs at the edge of an object ("rainy days ☔", 下雪天❄️) are decoration, not the thing.
_SYMBOLS_EDGE_RE = re.compile(
    r"^[\s\u2190-\u2bff\u2600-\u27bf\ufe0f\u200d\U0001f000-\U0001faff]+"
    r"|[\s\u2190-\u2bff\u2600-\u27bf\ufe0f\u200d\U0001f000-\U0001faff]+$"
)

# Quotes around an object ("teal", “三体”, 《霸王别姬》) mark it and are no part of it; what follows the closing quote
# is something else ('"teal" & my lucky number is 7'). Quote marks inside one ('the show "Severance"') are the same
# decoration. < and > are markup or an emoticon ("<ok>", "hiking <3"): what starts there is never the thing.
_QUOTE_CLOSES = {'"': '"', "“": "”", "'": "'", "‘": "’", "《": "》", "「": "」", "『": "』"}
_INNER_QUOTES_RE = re.compile(r'["“”]')
_MARKUP_TAIL_RE = re.compile(r"\s*[<>].*$", re.DOTALL)


def unquoted(obj: str) -> str:
    """An object without its quotes and without a markup tail: '"teal" & my ...' -> teal, 'hiking <3' -> hiking."""
    obj = _MARKUP_TAIL_RE.sub("", obj).strip()
    if obj and (close := _QUOTE_CLOSES.get(obj[0])) and (end := obj.find(close, 1)) > 1:
        return obj[1:end].strip()
    return _INNER_QUOTES_RE.sub("", obj).strip()


# A Latin proper name, and capitalised words that are not one (read by both rule sets: my sister Maria, 同事Mike).
# (Each word at most 31 letters: an unbounded one, tried from every capital of a long run joined by apostrophes or
# hyphens, "NYU'NYU'..." over 32,000 characters, cost the rules minutes: quadratic. No name is longer.)
_EN_NAME = r"(?:(?:St|Mt|Dr)\. )?[A-Z][a-zA-Z'\-]{1,30}(?: [A-Z][a-zA-Z'\-]{1,30}){0,2}"
_EN_NON_NAMES = frozenset(
    {"I", "I'm", "I've", "I'd", "I'll", "My", "The", "A", "An", "And", "But", "So", "He", "She", "It", "We", "They",
     "This", "That"}
)


# ---------------------------------------------------------------------------------------------
# the state one turn's clauses share


@dataclass(slots=True)
class _State:
    """What one clause leaves for the next: the carried subject, the last named person, a pending relation."""

    subject: str | None = None
    last_person: str | None = None
    pending_rel: str | None = None
    listing_rel: str | None = None  # the relation of a list being named ("two kids: Maya, who is 7, and Leo")
    listing_left: int = 0  # how many of the list's stated count are still to be named
    pending_count: int = 0  # the count said with the pending relation ("two kids": 2; none said: 0)
    address_before: bool = False  # the clause before gave a street address: the city may follow
    turn: str = ""  # the whole turn, for a rule whose clause is read by what another clause says
    out: list[ExtractedTriple] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)

    def add(
        self,
        subject: str,
        predicate: str,
        obj: str,
        polarity: int = 1,
        *,
        subject_kind: str | None = None,
        object_kind: str | None = None,
    ) -> None:
        obj = _SYMBOLS_EDGE_RE.sub("", obj).strip()
        if predicate != REPLY_STYLE_PREDICATE:  # a reply style is kept as said, its quotes too
            obj = unquoted(obj)
        if not _valid_object(obj) or predicate not in PREDICATES:
            return
        if predicate == "likes" and own_people(obj):
            return  # "I love my wife": a person of the user's, no liking (own_people)
        if subject_kind is None:
            subject_kind = "user" if subject == USER else "person"
        if object_kind is None:
            object_kind = PREDICATES[predicate].object_kind
            if predicate == "works_at" and obj in PLACES_ZH:
                object_kind = "place"
        self.out.append(ExtractedTriple(subject, subject_kind, predicate, obj, object_kind, polarity))

    def free(self, start: int, end: int) -> bool:
        """Claim a span of the current clause unless an earlier rule already used it."""
        if any(start < e and s < end for s, e in self.spans):
            return False
        self.spans.append((start, end))
        return True


# Contact details, as written: a phone number (5 to 15 digits, with +, spaces, dashes, dots or brackets) and an
# e-mail address (ASCII; no class of the address overlaps the dot that follows it, so no backtracking).
PHONE_PATTERN = r"\+?\(?\d[\d\-. ()]{3,22}\d"
EMAIL_PATTERN = r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)+"


def phone_ok(number: str) -> bool:
    return 5 <= sum(ch.isdigit() for ch in number) <= 15


# Relatives whose residence, employer and contact details are read even when unnamed ("my sister lives in
# Hangzhou", 我姐姐住在杭州): one person each as the speaker refers to them (not a friend or a colleague, of whom
# one has many, nor a pet). The subject is how the speaker calls them (my sister, 姐姐).
KIN_RELATIONS = frozenset({"spouse", "partner", "mother", "father", "sister", "brother", "child", "grandparent",
                           "grandchild", "boss"})


class Favourite(NamedTuple):
    """"My favourite colour is blue" / 我最喜欢的颜色是蓝色: the speaker's favourite of a kind, one value at a time
    per kind (the triple is (user, likes, value); the kind is read from the text, see favourite_statements)."""

    category: str
    value: str
    clause: str


# A favourite's kind said in Chinese or in other English words, as its English comparison form: a favourite said
# in one language is changed in the other ("我最喜欢的电影是 Inception", then "my favorite movie is Interstellar now").
_FAVOURITE_KINDS = {
    "颜色": "colour", "电影": "movie", "film": "movie", "歌手": "singer", "乐队": "band", "书": "book", "歌": "song",
    "歌曲": "song", "食物": "food", "菜": "dish", "运动": "sport", "水果": "fruit", "动物": "animal", "城市": "city",
    "国家": "country", "游戏": "game", "饮料": "drink", "作家": "author", "writer": "author", "演员": "actor",
    "电视剧": "show", "tv show": "show", "tv series": "show", "series": "show", "季节": "season", "花": "flower",
    "球队": "team", "品牌": "brand", "甜点": "dessert", "零食": "snack", "导演": "director", "画家": "painter",
}


def favourite_category(words: str) -> str:
    """The comparison form of a favourite's kind: colour / color / colours / 颜色 -> colour (_FAVOURITE_KINDS)."""
    t = normalize_term(words)
    t = re.sub(r"\bcolor\b", "colour", t)
    t = " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in t.split())
    return _FAVOURITE_KINDS.get(t, t)


# Predicates a follow-up clause ("especially X", 尤其是X) may extend.
_LIST_PREDICATES = frozenset({"likes", "eats", "drinks", "allergic_to", "speaks", "visited"})
