"""Slot questions, pure: which of the user's own facts a question asks for ("Where do I live?" -> lives_in,
我在哪上班 -> works_at / is_a, "my daughter" -> child), in the predicates of the triples ingest extracts
(ingest/extract_core.py PREDICATES).

Recall reads the memories that state such a fact about the user (their triples, graph/recall.py) as
candidates: "Where do I live?" and "Big news: we moved to Seattle last month" share no word and hardly any
meaning (cosine 0.11), yet the second answers the first through its triple (user, lives_in, Seattle).
Only questions about the speaker themself, and only slots a question can name: open preferences ("what do
I like") are left to the dense and full-text stages, whose wording picks the right ones among many. "What
do you know about me?" asks for all that describes the user (the newest memories stating any of it).

A question about the user's people and nothing else ("Tell me about my family", "What about my daughter?",
我女儿, "what does my coworker think?": every predicate asked is one of PEOPLE, people_asked) is also answered by
what the user said about them: the memories naming the value X of a triple (user, child, Lily) asked for, "Lily
started piano lessons on Saturdays" (cypher/recall/slot_match.cypher).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence

from ingest.extract_core import (
    CUISINES_EN,
    DRINKS_EN,
    FOODS_EN,
    REPLY_STYLE_PREDICATE,
    is_diet,
    is_food,
    is_music,
    is_occupation,
    is_sport,
    normalize_term,
)
from ingest.extract_routines import PROVIDER_PREDICATE, ROUTINE_PREDICATE, routine_of
from ingest.lexicon import RELATIONS_EN, RELATIONS_ZH, has_han, is_request, people, simplified
from ingest.scoring import asks_a_task, asks_how_things_are, wants_advice

# The kin predicates ("Tell me about my family" asks for them all).
FAMILY = ("spouse", "partner", "mother", "father", "sister", "brother", "child", "grandparent", "grandchild")
# The people a question may ask about by their relation to the user: a question asking for these alone also reads
# the memories naming them (people_asked).
PEOPLE = (*FAMILY, "colleague", "boss")
# A job question's is_a: the user's job (nurse, 软件工程师; ingest/extract_core.py is_occupation), not any is_a
# ("I'm a vegetarian" states is_a vegetarian, no answer to "What's my job?"). Read as is_a (stored_predicates),
# kept as an answer only by a memory naming an occupation (answered).
OCCUPATION = "is_a (occupation)"
# A former job ("my old job", 我退休前的工作): the employer and the occupation held no longer, their denied triples
# (我退休前是第二机床厂的工程师: works_at and is_a, -1), asked beside the affirmed ones (a job told without
# "used to" may be the former one asked for).
NOT_OCCUPATION = "not is_a (occupation)"
FORMER_JOB = ("works_at", OCCUPATION, "not works_at", NOT_OCCUPATION)
# A diet question's is_a: the user's diet (vegetarian, 素食者: ingest/extract_core.py DIETS), not any is_a.
DIET = "is_a (diet)"
# A liking asked for by its kind ("Which sport am I into these days?", 我平时听什么歌): read as likes, kept as an
# answer only by a memory naming a sport or a kind of music (ingest/extract_core.py is_sport, is_music).
SPORT = "likes (sport)"
MUSIC = "likes (music)"
# What the user likes to eat or drink (Thai food, 水煮鱼, tiramisu: ingest/extract_core.py is_food), asked by a request
# for food advice after what constrains it: "suggest a restaurant" needs both.
FOOD_LIKING = "likes (food)"
# What the user dislikes eating ("I hate mushrooms", 我讨厌吃苦瓜: a denied likes naming a food), asked by a request for
# food advice with the foods refused: it constrains the answer as they do ("What should I cook tonight?" must not
# bring mushrooms back); "What don't I eat?" asks it after the foods refused, as its answer.
FOOD_DISLIKE = "not likes (food)"
# A pet by its kind as the extraction knows it (ingest/lexicon.py RELATIONS_*: hamster, 仓鼠, 柯基), longest first
_PET_EN = "|".join(sorted((re.escape(w) for w, r in RELATIONS_EN.items() if r == "pet"), key=len, reverse=True))
_PET_ZH = "|".join(sorted((w for w, r in RELATIONS_ZH.items() if r == "pet"), key=len, reverse=True))
# An allergy an animal sets off (cats, dog dander, 猫毛, 宠物皮屑): asked by a visit to or a plan for an animal
# (朋友家新养了只布偶 叫我去玩 能去不, "Should we adopt a puppy?"), whose answer it decides; a peanut allergy does not.
ANIMAL_ALLERGY = "allergic_to (animal)"
_ANIMAL_ALLERGEN_RE = re.compile(
    rf"(?i)(?:(?:{_PET_EN}|pet|animal|horse)s?|(?:{_PET_EN}|pet|animal|horse) (?:hair|fur|dander|saliva)"
    rf"|(?:pet |animal )?(?:hair|fur|dander)|(?:{_PET_ZH}|猫狗|动物|宠物|马)(?:毛发?|皮屑)?|毛发|皮屑)")


def _is_animal_allergen(name: str) -> bool:
    return _ANIMAL_ALLERGEN_RE.fullmatch(name.strip()) is not None


# The slots asked by a kind of their predicate's value: the predicate stored, and what a memory's names must hold.
_OF_A_KIND: dict[str, tuple[str, Callable[[str], bool]]] = {
    OCCUPATION: ("is_a", is_occupation), NOT_OCCUPATION: ("not is_a", is_occupation), DIET: ("is_a", is_diet),
    SPORT: ("likes", is_sport), ANIMAL_ALLERGY: ("allergic_to", _is_animal_allergen),
    MUSIC: ("likes", is_music), FOOD_LIKING: ("likes", is_food), FOOD_DISLIKE: ("not likes", is_food),
}
# Slots whose liking no longer held answers nothing: the memory that ended a liked food ("I don't like sushi anymore"
# after "I love sushi") says what to leave out now, no taste to suggest by; one that ended a sport names the new one.
_LIVE_ONLY = (FOOD_LIKING,)
# A routine or a provider asked for by what it is ("When do I go to bed?": bedtime; "Which bank do I use?": bank):
# read as has_routine / has_provider (stored_predicates), kept as an answer only by a memory naming that routine or
# kind (answered), not the gym's days for a bedtime.
BEDTIME, WAKE_UP, SHIFT, GYM, LUNCH, PLANE_SEAT, RUNNING, SWIMMING, CYCLING = (
    f"{ROUTINE_PREDICATE} ({r})" for r in ("bedtime", "wake-up", "shift", "gym", "lunch", "plane seat", "running",
                                           "swimming", "cycling"))
CARRIER, BANK, GP = (f"{PROVIDER_PREDICATE} ({k})" for k in ("carrier", "bank", "gp"))
_KEYED_ASKED_RE = re.compile(rf"^(?P<p>{ROUTINE_PREDICATE}|{PROVIDER_PREDICATE}) \((?P<r>[^)]+)\)$")
# "What do you know about me?": the facts that describe a person, and what they like.
_ABOUT_ME = ("name", "age", "lives_in", "hometown", "works_at", "is_a", "studies_at", *FAMILY, "pet",
             "allergic_to", "likes")

# How the user wants to be answered ("keep it short", 说话直接点): asked by every request for help or advice
# (bmam/usecases/recall.py), never by itself a reason to answer (the gate leaves it out: ingest/scoring.py).
REPLY_STYLE = REPLY_STYLE_PREDICATE
# "What don't I eat?", 我忌口什么: the foods the user said no to, a denied triple (user, eats, cilantro, -1). A slot
# "not P" reads P's denied triples (cypher/recall/slot_match.cypher), every other slot the affirmed ones.
REFUSED_FOOD = "not eats"
_FOOD_SAFETY = ("allergic_to", "has_condition")
# "What don't I eat?", 我不吃什么: the foods refused and the foods disliked ("I can't stand cilantro" is as much an
# answer as "I don't eat cilantro"), then the allergies and conditions that rule foods out.
_REFUSED_ASKED = (REFUSED_FOOD, FOOD_DISLIKE, *_FOOD_SAFETY)
# What the user must not, cannot or will not eat: asked by any request for food advice ("Any dessert ideas for
# tonight?", 晚饭吃什么), whose answer must respect an allergy, a condition, a food refused (我一点葱都不吃) or a diet
# (vegetarian: "学校附近有什么 lunch 推荐？" was gated beside 我是 vegetarian) however far the words are from it.
# The safety first: "What don't I eat?" asks these too, the refused foods first (they are its answer, not a
# constraint on one: is_food_advice tells the two apart by that order).
_FOOD_ADVICE = (*_FOOD_SAFETY, REFUSED_FOOD, DIET)
# What a request for food advice asks: what constrains the answer (the foods disliked too), then what the user likes
# to eat (a liked cuisine shapes "suggest a restaurant" as the allergy does; "What don't I eat?" asks the dislikes as
# its answer and no liking, "Can I eat sushi?" neither).
_FOOD_ADVICE_ASKED = (*_FOOD_ADVICE, FOOD_DISLIKE, FOOD_LIKING)
# "Can I eat / drink X?", 我能喝西柚汁吗: one thing, whose safety the medicines taken decide too (grapefruit and
# amlodipine, alcohol and many): food advice and the doses.
_EAT_OR_DRINK = (*_FOOD_ADVICE, "takes_dose")
# "What should I take for the pain?", 腰又疼了 吃点啥药好: a medicine asked for, which the user's allergies (a drug
# allergy), conditions and the medicines they take (warfarin and ibuprofen) decide; no food slot, though it says 吃什么.
_MEDICINE_ADVICE = (*_FOOD_SAFETY, "takes_dose")
# A medicine as what is eaten (吃什么药, 吃点止痛药): no food asked for
_NO_MEDICINE = r"(?![^，。？！\s]{0,6}药)"
# How long or which way to work or school: the way there, from home, to the work or the school.
_COMMUTE = ("commutes_by", "lives_in", "works_at", "studies_at")
# "my older brother", "my little sister": the sibling asked for all the same
_SIBLING_AGE = r"(?:older|younger|big|little|elder|baby|twin|kid) "
_FOOD = r"(?:dessert|dinner|lunch|breakfast|meal|recipe|snack|food|dish|restaurant|cake|cookie|takeout|takeaway)s?"
_CUISINE = rf"(?:{'|'.join(map(re.escape, (*CUISINES_EN, *FOODS_EN)))})"

# (pattern, predicates): English on the lower-cased question, Chinese on its characters.
_EN: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\bwhat (?:do|did) you (?:know|remember) about me\b|\btell me about (?:me|myself)\b|\bwho am i\b"
     r"|\bwhat have you learn(?:ed|t) about me\b|\bdescribe me\b", _ABOUT_ME),
    (r"\bwhere (?:do|did) (?:i|we) (?:live|stay|reside)\b|\bwhere (?:am i|are we) (?:living|based|staying)\b"
     r"|\bwhere (?:did|have) (?:i|we) move(?:d)?\b|\b(?:what|which) city (?:do|did) (?:i|we) live\b"
     r"|\bmy (?:home )?address\b|\bwhere(?:'s| is) my (?:home|house|place)\b"
     # "Where is home for me these days?" (the flowers bought on the way home answered it)
     r"|\bwhere(?:'s| is) home\b(?! (?:depot|base|page|screen|button|key|directory|folder))"
     r"|\b(?:where|(?:what|which) (?:city|town|country|place)) do (?:i|we) (?:now |currently )?call home\b"
     r"|\b(?:what|which) (?:city|town|country|place) is home\b(?! to\b)"  # not "home to the Louvre"
     # a request for something near the user: where they live says where that is ("a good gym near me")
     r"|\bnear (?:me|home|my (?:place|home|house|flat|apartment))\b|\baround (?:me|here|my (?:place|area))\b"
     r"|\bclose to (?:me|home|where i (?:live|am))\b|\bwhere i(?:'m| am)? (?:live|living|based)\b"
     r"|\bin my (?:area|neighbou?rhood|town|city)\b", ("lives_in",)),
    (r"\bwhere (?:am|was) i (?:from|born)\b|\bmy hometown\b|\bwhere did i grow up\b", ("hometown",)),
    # where and for whom: the employer only (an occupation is no place: "I'm a project manager", left as a remains
    # of the old job, answered "Where do I work?" above the new offer from Brightline)
    (r"\bwhere (?:do|did) i (?:live (?:and|or|&) )?work\b|\bwho (?:do|did) i work for\b"
     r"|\bmy (?:employer|company|workplace|office)\b|\bwhere do i commute to\b|\bmy work address\b", ("works_at",)),
    (r"\bwhat (?:do|did) i do for (?:a )?(?:living|work)\b|\bmy (?:job|occupation|profession)\b"
     r"|\bwhat(?:'s| is) my (?:role|position)\b", ("works_at", OCCUPATION)),
    (r"\bwhere did i (?:use to )?work\b|\bwho did i (?:use to )?work for\b"
     r"|\bwhat did i (?:use to )?do (?:for (?:a )?(?:living|work)|before i retired)\b"
     r"|\bmy (?:old|previous|former|last|past) (?:job|employer|company|work|career|workplace|occupation|profession)\b"
     r"|\bwhat (?:was|used to be) my (?:job|occupation|profession)\b", FORMER_JOB),
    (r"\bwhere (?:do|did) i (?:study|go to school|go to college)\b|\bmy (?:school|university|college)\b",
     ("studies_at",)),
    (r"\bwhat (?:do|did) i (?:study|major in)\b|\bmy major\b", ("major",)),
    (r"\bhow old am i\b|\bmy age\b", ("age",)),
    (r"\bmy birthday\b|\bwhen was i born\b", ("birthday",)),
    (r"\bwhat(?:'s| is) my name\b|\bwhat am i called\b", ("name", "nickname")),
    # what to call the user: the name they go by, else their name ("What should you call me?", "What do I go by?")
    (r"\bwhat (?:should|shall|do|can|will|would) you call me\b|\bwhat do (?:i|people|they|you) (?:go by|call me)\b"
     r"|\bwhat(?:'s| is) my (?:nickname|preferred name)\b|\bhow (?:should|do) you (?:call|address) me\b",
     ("nickname", "name")),
    (r"\b(?:what|which) languages? (?:do|can) i speak\b|\blanguages? i speak\b", ("speaks",)),
    (r"\b(?:what|which) (?:kinds? of )?sports? (?:am i|do i|did i|i'm) (?:into|do|doing|play|playing|practi[sc]e"
     r"|like|love|enjoy)\b|\bmy (?:favou?rite )?sports?\b"
     r"(?! (?:car|shoe|bra|drink|channel|news|bar|injur(?:y|ie)|team|club|watch|gear|bag)s?\b)"
     r"|\bwhat (?:do|did) i do (?:for|to) (?:exercise|keep fit|stay fit|stay in shape)\b", (SPORT,)),
    (r"\bwhat (?:kinds?|sorts?|types?|genres?) of music (?:do|did) i (?:like|love|listen to|enjoy|prefer)\b"
     r"|\bwhat music (?:do|did) i (?:like|love|listen to|enjoy|prefer)\b"
     r"|\bwhat do i (?:usually |mostly |normally )?listen to\b|\bmy favou?rite (?:music|genre)\b", (MUSIC,)),
    (r"\bmy (?:wife|husband|spouse)\b", ("spouse",)),
    (r"\bmy (?:girlfriend|boyfriend|partner|fianc[ée]e?)\b", ("partner",)),
    (r"\bmy (?:mom|mum|mother)\b", ("mother",)),
    (r"\bmy (?:dad|father)\b", ("father",)),
    (rf"\bmy (?:{_SIBLING_AGE})?(?:sisters?)\b", ("sister",)),
    (rf"\bmy (?:{_SIBLING_AGE})?(?:brothers?)\b", ("brother",)),
    (r"\bmy (?:son|daughter|sons|daughters|kids?|child|children)\b", ("child",)),
    # the youngest of the family, unnamed: a child's or a grandchild's ("the little one's birthday")
    (r"\b(?:the|my|our) little ones?\b|\b(?:my|our) (?:little|baby) (?:boy|girl)\b", ("child", "grandchild")),
    (r"\bmy (?:grandma|grandmother|granny|grandpa|grandfather|grandad|granddad|grandparents)\b", ("grandparent",)),
    (r"\bmy (?:grandsons?|granddaughters?|grandkids?|grandchild|grandchildren)\b", ("grandchild",)),
    (r"\bmy (?:family|parents|siblings)\b", FAMILY),
    (r"\bmy (?:boss|manager|supervisor)\b", ("boss",)),
    # what is printed about the user's work: the job ("what should I put on my new business card?")
    # ... on a form or a LinkedIn profile ("What should I put as my occupation on this form?", "Write my LinkedIn
    # summary."; not "How do I delete my LinkedIn account?")
    (r"\b(?:business cards?|email signature|name badge|conference badge|my occupation|my (?:work|job) title"
     r"|linkedin (?:summary|profile|headline|about|bio|title|post))\b"
     r"|\bmy linkedin\b(?! (?:account|password|login|app|notifications?)\b)", ("works_at", OCCUPATION, "on_team")),
    (r"\bmy (?:colleagues?|coworkers?|co-workers?|workmates?)\b", ("colleague",)),
    (rf"\b(?:my|our) (?:{_PET_EN})s?\b|\bdo (?:i|we) (?:still )?have (?:a |any )?(?:{_PET_EN})s?\b", ("pet",)),
    # an animal met or taken in: the user's allergy to it decides
    (rf"\b(?:adopt(?:ing)?|get(?:ting)?|buy(?:ing)?|foster(?:ing)?|rescu(?:e|ing)) (?:a |an |another )?(?:new )?"
     rf"(?:{_PET_EN})s?\b|\b(?:cat|dog|puppy|kitten) caf[eé]s?\b|\b(?:pet|dog|cat)[- ]?sit(?:ting)?\b"
     rf"|\b(?:friend|neighbou?r|colleague|roommate|flatmate|boyfriend|girlfriend|partner|sister|brother|mom|dad|mum"
     rf"|parents|in-laws)(?:'s|s'|s)? new (?:{_PET_EN})s?\b", (ANIMAL_ALLERGY,)),
    (r"\bwhat (?:car|vehicle) do (?:i|we) (?:drive|have|own)\b|\bwhat do (?:i|we) drive\b"
     r"|\bmy (?:\w+ )?(?:car|van|truck|pickup|minivan|suv)\b", ("drives",)),
    (r"\b(?:what|which) (?:phone|cell ?phone|mobile|smartphone) do i (?:have|use|own)\b", ("uses_phone",)),
    (r"\b(?:what|which) (?:team|department|dept|division) (?:am i|do i work) (?:on|in)\b"
     r"|\bmy (?:team|department) at work\b", ("on_team",)),
    (r"\bhow many (?:kids|children) do (?:i|we) have\b", ("number_of_children", "child")),
    (r"\bam i (?:in a relationship|seeing (?:anyone|someone)|dating (?:anyone|someone)|single|married)\b"
     r"|\bdo i have a (?:partner|girlfriend|boyfriend|wife|husband)\b", ("partner", "spouse")),
    (r"\b(?:what|which) (?:laptop|computer|notebook) do i (?:have|use|own|work on)\b|\bmy (?:work )?laptop\b",
     ("uses_laptop",)),
    (r"\b(?:what|which) camera (?:do i|am i) (?:have|use|using|own|shoot (?:on|with)|shooting (?:on|with))\b"
     r"|\bmy (?:camera|camera body)\b", ("uses_camera",)),
    (r"\b(?:am i|i'm|i am) allergic\b|\bmy allerg(?:y|ies)\b", ("allergic_to",)),
    (r"\bwhat(?:'s| is) my diet\b|\bwhat diet (?:am i on|do i (?:follow|keep|have))\b"
     r"|\bam i (?:still )?(?:a )?(?:vegetarian|vegan|pescatarian)\b|\bdo i (?:still )?eat meat\b", (DIET,)),
    (rf"\bwhat (?:should|can|could|shall) (?:i|we) (?:eat|cook|make|bake|order|have for (?:dinner|lunch|breakfast))\b"
     rf"|\bwhat to (?:eat|cook|make|bake|order)\b|\b{_FOOD} (?:ideas?|suggestions?|recommendations?)\b"
     # food laid in for a trip or a week ("What food should I stock up on for Orkney?")
     r"|\bwhat (?:food|foods|groceries|snacks) (?:should|can|could|do) (?:i|we) (?:stock up on|buy|bring|pack|get)\b"
     r"|\bstock up on (?:food|groceries|snacks)\b"
     # (a meal with words before it: "recommend a pre-race breakfast", "recommend me a quick weeknight dinner")
     rf"|\b(?:recommend|suggest) (?:a |an |some |me ){{0,2}}(?:[\w-]+ ){{0,2}}{_FOOD}\b"
     rf"|\bwhere (?:should|can|could) (?:i|we) eat\b"
     # "Can you suggest something for dinner tonight?", "anything I should avoid eating at the team lunch?", "is it
     # safe for me to eat sushi?" (each was gated or answered without the shellfish allergy)
     r"|\b(?:suggest|recommend|ideas?) (?:something|anything|some(?:thing)? ideas?)? ?for (?:dinner|lunch|breakfast"
     r"|brunch|supper)\b|\bwhat(?:'s| is) for (?:dinner|lunch|breakfast)\b|\bavoid eating\b"
     # "I want to bake something for the little one's birthday that I can eat too"
     r"|\b(?:bake|cook) (?:something|anything)\b|\b(?:that|which|something) (?:i|we) can (?:eat|have)\b"
     # ("should I eat", "safe for me to eat": one thing to eat or drink, the pattern after this one)
     # "Is it ok if I have a slice of cake at the barbecue?" (gated with type 2 diabetes stored)
     rf"|\b(?:is it|it's) (?:ok|okay|alright|fine|safe) (?:if|for) (?:i|me) (?:to )?(?:have|eat|try) (?:\w+ ){{0,4}}?"
     rf"{_FOOD}\b"
     # eating out: "going to a thai place with friends tonight, anything i should watch out for?"
     rf"|\b{_CUISINE} (?:place|restaurant|spot|joint|buffet|night)\b|\b(?:at|to) (?:a|an|the|this) (?:new )?"
     r"(?:restaurant|buffet|steakhouse|diner|food court)\b",
     _FOOD_ADVICE_ASKED),
    # "Is it safe for me to eat sushi?", "Can I drink wine tonight?": food advice and the doses
    (r"\b(?:should|can|could|may) (?:i|we) (?:not |safely )?(?:eat|drink)\b"
     r"(?! the loss| into| at \d| out\b| in\b| later)|\b(?:safe|ok|okay) (?:for me )?to (?:eat|drink)\b(?! into)"
     # "I'm making a big kale salad for Linda and me, anything I should think about?" (warfarin and greens)
     rf"|\b(?:making|cooking|preparing|having|eating|drinking|baking|ordering) (?:[\w'-]+ ){{0,4}}?"
     rf"(?:{_FOOD}|salads?|soups?|smoothies?|juices?|stews?|curr(?:y|ies)|pasta|sandwich(?:es)?|cocktails?)\b"
     r"[^.?!]{0,40}\b(?:anything|something|what) (?:should )?(?:i|we) (?:should )?(?:think about|know|watch(?: out)?"
     r"(?: for)?|keep in mind|be careful|avoid|consider|look out for)\b",
     _EAT_OR_DRINK),
    (r"\bmy (?:health|medical) (?:conditions?|issues?|problems?)\b"
     # what to watch at a check-up depends on the user's conditions (a high cholesterol said weeks before)
     r"|\b(?:check-?up|physical|bloodwork|blood ?tests?|lab results?)\b.{0,40}\b(?:watch|look(?: out)? for"
     r"|pay attention|focus on|keep an eye on|ask (?:\w+ )?(?:doctor )?about)\b"
     r"|\b(?:watch|look(?: out)? for|pay attention to|focus on|ask (?:\w+ )?(?:doctor )?about)\b.{0,30}"
     r"\b(?:check-?up|physical|bloodwork|blood ?tests?)\b", ("has_condition",)),
    (r"\bhow (?:do|did) i (?:usually |normally )?(?:get|go|travel|commute) to work\b|\bhow (?:do|did) i commute\b"
     r"|\bmy commute\b", ("commutes_by",)),
    # how long or which way to work or school, when to leave: the way there, and where from and to (a snow day's
    # drive from Richmond to an office in Burnaby)
    (r"\bhow long (?:does|will|would|did|is) it (?:take|be)(?: me)?(?: to)? (?:get|drive|ride|walk|bike|cycle|go)"
     r" to (?:work|the office|my office|school|campus|class)\b|\bhow long (?:is|will|would|does) my (?:commute|drive"
     r"|ride)\b|\bwhat time (?:should|do|must) i (?:leave|head out|set off)(?: home| the house)?"
     r" (?:for|to get to|to be at|to make it to) (?:work|the office|school|class|campus)\b"
     r"|\b(?:which|what|best) (?:route|way)\b.{0,25}\b(?:to|for) (?:work|the office|my office|school|campus)\b",
     _COMMUTE),
    # a medicine by name, not "how much water should I take on a hike", "how much time should I take off"
    (r"\bhow much (?!water\b|time\b|money\b|vacation\b|leave\b|cash\b|food\b)[a-z-]+ do i take\b"
     r"|\bmy (?:[a-z-]+ )?(?:dose|dosage)\b"
     r"|\bwhat (?:dose|dosage|amount) of [a-z-]+ (?:do i take|am i on)\b"
     # "What blood pressure medication do I take?": the medicine's use before it
     r"|\bwhat (?:[a-z-]+ ){0,3}(?:meds|medications?|medicines?|pills) (?:do i take|am i on)\b"
     r"|\bmy (?:meds|medications?|medicines?)\b",
     ("takes_dose",)),
    (r"\bwhat (?:[a-z-]+ ){0,2}(?:medicines?|medications?|meds|pills|painkillers|tablets) (?:should|can|could|shall) i"
     r" (?:take|use|try)\b", _MEDICINE_ADVICE),
    (r"\bwhere (?:did|have) (?:i|we) (?:go|gone|been|fl[oy]w?n?) (?:on|for) (?:(?:a|my|our) )?"
     r"(?:holiday|vacation|trip)s?\b|\bwhere (?:did|have) (?:i|we) travel(?:l?ed)?\b|\bwhere have (?:i|we) been\b"
     r"|\b(?:which|what) (?:places|cities|countries) have (?:i|we) (?:visited|been to)\b"
     r"|\b(?:where|which (?:city|country|place)) (?:was|were) (?:my|our) (?:last |latest |most recent |previous )"
     r"?(?:big |long |summer |winter )?(?:trip|holiday|vacation|getaway)s?\b", ("visited",)),
    # where the user is headed: a trip, a season away, a move planned ("Where are we headed this summer?", "for where
    # we'll be this summer", "pack for my trip", "what birds should I look for up there?")
    (r"\bwhere (?:am|are) (?:i|we) (?:going|headed|heading|flying|moving|off to|travell?ing)\b"
     r"|\bwhere (?:will|shall) (?:i|we) be\b|\bwhere (?:i|we)(?:'ll| will) be\b"
     r"|^(?!.*\b(?:did|was|were|last|ago|visited|went)\b).*\b(?:my|our) (?:upcoming |next |summer |winter |big )?"
     r"(?:trip|travels|vacation|holiday|move)\b"
     r"|\b(?:over|out|up|down) there\b"
     # when the user is away or leaves ("which dates am I away?", "when do we fly out?")
     r"|\b(?:am|are|will) (?:i|we) (?:be )?away\b|\bwhen (?:am|are) (?:i|we) (?:leaving|flying|off)\b"
     r"|\bwhen do (?:i|we) (?:leave|fly out)\b", ("going_to",)),
    (r"\b(?:what|which) (?:foods? )?(?:do|don't|can't) i (?:avoid|not eat|never eat|refuse to eat)\b"
     r"|\b(?:what|which) foods? do i (?:avoid|not eat|never eat|refuse)\b|\bwhat (?:don't|can't|won't) i eat\b"
     r"|\b(?:is there )?anything i (?:refuse to|don't|can't|won't|never) eat\b", _REFUSED_ASKED),
    (r"\b(?:when|what time) do i (?:usually |normally )?(?:go to bed|go to sleep|sleep)\b|\bmy bedtime\b", (BEDTIME,)),
    (r"\b(?:when|what time) do i (?:usually |normally )?(?:wake up|get up)\b", (WAKE_UP,)),
    (r"\bwhat shifts? do i (?:work|have)\b|\bmy (?:work )?shifts?\b", (SHIFT,)),
    (r"\bhow (?:much|far|often|many (?:miles|km|kilometers)) do i (?:usually )?(?:run|jog)\b", (RUNNING,)),
    (r"\bhow (?:much|far|often|many laps) do i (?:usually )?swim\b", (SWIMMING,)),
    (r"\bhow (?:much|far|often|many (?:miles|km|kilometers)) do i (?:usually )?(?:cycle|bike|ride)\b", (CYCLING,)),
    (r"\b(?:which|what) seats? do i (?:like|prefer|pick|take|choose|book|get)\b|\bwindow or aisle\b", (PLANE_SEAT,)),
    (r"\b(?:which|what) days? do i (?:go to the gym|work out|lift)\b|\bwhen do i (?:go to the gym|work out)\b"
     r"|\bmy gym days\b", (GYM,)),
    (r"\bwhat do i (?:usually |normally )?(?:do|eat) for lunch\b|\bwhere do i (?:usually |normally )?(?:eat|get|have)"
     r" lunch\b|\bdo i (?:bring|pack|buy) (?:my )?lunch\b", (LUNCH,)),
    (r"\bwho(?:'s| is) my (?:phone |cell |cellphone |mobile |wireless )?(?:carrier|provider)\b|\b(?:which|what)"
     r" (?:phone |cell |mobile |wireless )?(?:carrier|network) (?:am i (?:with|on)|do i (?:use|have))\b"
     r"|\bmy (?:phone |cell |mobile )?carrier\b", (CARRIER,)),
    (r"\b(?:which|what) bank do i (?:use|bank with|have|go to)\b|\bwhere do i bank\b|\bwho do i bank with\b",
     (BANK,)),
    (r"\bwho(?:'s| is) my (?:doctor|gp|family doctor|primary care (?:doctor|physician)|pcp)\b"
     r"|\b(?:which|what) (?:doctor|gp) do i (?:see|go to|have)\b", (GP,)),
    (r"\b(?:which|what) (?:[a-z]+ )?teams? (?:do i|am i) (?:support|supporting|root for|rooting for|cheer for|follow)\b"
     r"|\bwho do i (?:support|root for|cheer for)\b", ("supports_team",)),
    # the number; the device itself is another fact ("how do I video call my grandson on my phone?": the iPhone)
    (r"\bmy (?:phone|cell ?phone|cell|mobile(?: phone)?) (?:number|no\.?|#)|\bmy number\b(?! one)", ("phone",)),
    (r"\bmy (?:phone|cell ?phone|mobile|smartphone)\b(?!\s*(?:number|no\b|#))", ("uses_phone",)),
    (r"\bmy e-?mail\b", ("email",)),
    (r"\bmy emergency contact\b", ("emergency_contact",)),
)
# A kin word opening the input or a clause, chat's dropped 我 (女儿的 placement 在哪家医院, 妈妈生日送什么): not 你女儿,
# 同事的女儿 (something before it in the clause)
_CLAUSE_START = r"(?:^|(?<=[，,。！？!?\s]))"
_ZH: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"你(?:都)?(?:知道|记得|了解)(?:关于)?我(?:的)?(?:哪些|什么|多少)|介绍一下我|我是(?:个)?(?:谁|什么样的人)"
     r"|说说(?:关于)?我(?:的事)?", _ABOUT_ME),
    (r"我(?:们)?(?:现在)?住(?:在)?(?:哪|什么地方)|我(?:们)?家在哪|我(?:们)?搬(?:到|去)(?:了)?哪|我的(?:家庭)?地址"
     # 附近有什么好吃的, 周末附近有什么好玩的, 我住的地方: a request for something near the user (not 故宫附近, nor
     # 我这边, which is as often "on my side")
     r"|(?:^|[\s，,。!?！？]|我|家|这|周末|今天|明天|今晚|晚上|中午|下午|早上|最近)附近|我(?:们)?(?:住的地方|家那边|家这边)",
     ("lives_in",)),
    (r"我(?:是)?哪(?:里|儿)?人|我的?老家|我的家乡", ("hometown",)),
    # 我每天去哪里上班 / 我上班的地方在哪个区 (the overtime evenings answered them)
    (r"我(?:每天|平时|现在|目前|一般)?(?:在|去|到)哪(?:里|儿|个公司|家公司|个城市)?(?:工作|上班)|我在什么(?:公司|单位)"
     r"|我的?(?:公司|单位)|我(?:上班|工作)的(?:地方|单位|公司)"
     # 帮我更新一下朋友圈里的工作地址: the user's own, unless someone is named on the way (帮我查下我老公的工作地址;
     # 朋友圈, WeChat Moments, names no friend)
     r"|帮我(?:(?!老公|老婆|爸|妈|儿子|女儿|朋友(?!圈)|同事|他|她)[^，。？]){0,12}(?:工作|公司|单位|上班)地址",
     ("works_at",)),
    (r"我(?:现在)?的(?:工作|职业)|我(?:是)?做什么(?:工作)?的|我做什么工作", ("works_at", OCCUPATION)),
    (r"我(?:以前|之前|原来|过去|退休(?:之)?前)的?(?:工作|职业|单位|公司)|我的老本行"
     r"|我(?:以前|之前|原来|过去|退休(?:之)?前)(?:是)?(?:在哪(?:里|儿)?|在什么(?:公司|单位))?(?:上班|工作|(?:做|干)(?:什么|啥))",
     FORMER_JOB),
    (r"我在哪(?:里|儿|个学校)?(?:上学|读书|念书)|我的(?:学校|大学)", ("studies_at",)),
    (r"我(?:学|读)的?什么专业|我的专业", ("major",)),
    (r"我(?:今年)?(?:多大|几岁)|我的年龄", ("age",)),
    (r"我的?生日", ("birthday",)),
    (r"我叫什么|我的名字", ("name", "nickname")),
    (r"怎么称呼我|(?:该|应该)叫我什么|我的(?:昵称|外号|小名|绰号)|大家(?:都)?叫我什么", ("nickname", "name")),
    (r"我会(?:说)?(?:什么|哪(?:些|几)种?)(?:语言|话)", ("speaks",)),
    (r"我(?:现在|最近|平时|一般|主要|经常|还|都)*(?:最)?(?:喜欢|爱|在练|练|玩|打|做|在做|在玩)(?:的)?(?:什么|哪些|哪种|啥)运动"
     r"|我最(?:喜欢|爱)的运动", (SPORT,)),
    (r"我(?:现在|最近|平时|一般|主要|经常|还|都)*(?:最)?(?:喜欢|爱)?听(?:什么|哪些|哪种|啥)(?:样的|类型的?)?(?:音乐|歌|歌曲)?"
     r"|我最(?:喜欢|爱)的音乐", (MUSIC,)),
    # chat leaves out the 我 (去看男朋友要带啥, 老公生日送什么), as the extractor reads it (ingest/extract_zh.py)
    (r"我(?:的)?(?:老婆|妻子|太太|老公|丈夫|爱人)|^(?:老婆|老公)(?![们公婆])", ("spouse",)),
    (r"我(?:的)?(?:女朋友|男朋友|对象|未婚妻|未婚夫)|(?<![她他你的])(?:女朋友|男朋友|女友|男友)(?!们)",
     ("partner",)),
    (rf"我(?:的)?(?:妈妈|母亲|妈)|{_CLAUSE_START}(?:妈妈|老妈)", ("mother",)),
    (rf"我(?:的)?(?:爸爸|父亲|爸)|{_CLAUSE_START}(?:爸爸|老爸)", ("father",)),
    (r"我(?:去年|上次|之前|以前|最近)?(?:去|到)(?:了)?哪(?:里|儿)(?:旅行|旅游|度假|玩)(?:了|过)|我(?:去年|上次|之前|以前|最近)?(?:出去|出门)?"
     r"(?:旅行|旅游|度假|玩)(?:去)?(?:的是|去了|去的是)哪(?:里|儿)|我(?:都)?去过(?:哪些|哪里|哪儿|什么)(?:地方|城市|国家)?",
     ("visited",)),
    # where the user is headed (毕业后我打算去哪发展, 帮我查查去那边的火车, 今年过冬那地方, 这次旅行目的地, 搬过去之后)
    (r"(?:要|打算|准备|计划|会|将)去哪(?:里|儿)?|去哪(?:里|儿)?(?:发展|旅行|旅游|度假|过冬|出差|留学|定居)(?![了过])"
     r"|目的地|落脚|搬过去|(?:去|到了?)那(?:边|里|儿)|(?:过冬|度假|旅行|旅游|打工度假|出差|留学)(?:的)?那(?:边|个?地方|里|儿)"
     r"|这次(?:的)?(?:旅行|旅游|出差|行程)|我(?:们)?(?:什么时候|哪天|几号)(?:出发|动身|飞)",
     ("going_to",)),
    (r"我(?:有)?(?:什么|哪些)忌口|我忌口(?:什么|哪些)|(?:有)?什么(?:东西|食物)?是我不(?:吃|能吃)的|我不吃(?:什么|哪些)",
     _REFUSED_ASKED),
    (rf"我(?:的)?(?:姐姐|妹妹|姐|妹)|{_CLAUSE_START}(?:姐姐|妹妹)", ("sister",)),
    (rf"我(?:的)?(?:哥哥|弟弟|哥|弟)|{_CLAUSE_START}(?:哥哥|弟弟)", ("brother",)),
    (rf"我(?:的|家的?)?(?:儿子|女儿|孩子|小孩|娃)|{_CLAUSE_START}(?:儿子|女儿)", ("child",)),
    (rf"我(?:的)?(?:奶奶|爷爷|外婆|外公|姥姥|姥爷)|{_CLAUSE_START}(?:奶奶|爷爷|外婆|外公|姥姥|姥爷)", ("grandparent",)),
    (rf"我(?:的)?(?:孙女|孙子|外孙女?)|{_CLAUSE_START}(?:孙女|外孙女?)", ("grandchild",)),
    (r"我(?:的)?(?:家人|家里人|父母|兄弟姐妹)", FAMILY),
    (r"我(?:的)?(?:老板|领导|上司)", ("boss",)),
    (r"我(?:的)?同事", ("colleague",)),
    (r"名片|工牌|我的(?:职位|职业|工作单位)"
     r"|(?:更新|改|写)[^，。？]{0,14}(?:职位|邮件签名|email signature)",
     ("works_at", OCCUPATION, "on_team")),
    (rf"我(?:的|家的?)?(?:{_PET_ZH})|家里的(?:{_PET_ZH})|我(?:家)?(?:还)?(?:有|养)(?:没有)?(?:{_PET_ZH})", ("pet",)),
    (rf"(?:朋友|同事|邻居|同学|亲戚|别人|男朋友|女朋友|对象|室友|[他她])(?:家)?(?:新|刚|最近)*(?:养了|有|买了|领养了|捡了)"
     rf"(?:一)?(?:只|条|头)?(?:{_PET_ZH})|(?:想|要|打算|准备|考虑)(?:养|领养|收养|买|捡)(?:一)?(?:只|条)?(?:{_PET_ZH})"
     r"|猫咖|狗咖|(?:宠物|猫|狗)咖啡|撸猫|撸狗", (ANIMAL_ALLERGY,)),
    (r"我开(?:的是)?什么车|我的车是什么", ("drives",)),
    (r"我用(?:的是)?什么手机|我的手机是什么(?:牌子|型号)?", ("uses_phone",)),
    (r"我在(?:哪个|什么)(?:部门|组|团队)|我(?:是)?哪个部门的", ("on_team",)),
    (r"我(?:们)?(?:家)?有(?:几个|多少个?)(?:孩子|小孩)", ("number_of_children", "child")),
    (r"我(?:现在)?(?:有没有|有)(?:女朋友|男朋友|对象)|我(?:现在)?(?:还是|是)?单身|我结婚了(?:吗|没)",
     ("partner", "spouse")),
    (r"我用(?:的是)?什么(?:电脑|笔记本)|我的(?:电脑|笔记本)是什么", ("uses_laptop",)),
    # 新娘问我用什么相机, 我这相机用啥存储卡好 (the camera the user shoots with now)
    (r"我(?:现在)?用(?:的是)?(?:什么|啥|哪个|哪款)(?:相机|机器|机身)|我(?:的|这)(?:台)?相机", ("uses_camera",)),
    (r"我对什么过敏|我的?过敏", ("allergic_to",)),
    (r"我的?(?:身体|健康)(?:有)?(?:什么|哪些)(?:问题|毛病)|体检[^，。？]{0,12}(?:注意|关注|留意|重点|看什么|查什么)"
     r"|(?:注意|关注|留意)[^，。？]{0,6}体检", ("has_condition",)),
    (r"我(?:还)?(?:吃素|是素食者?|是素食主义者)吗|我(?:还)?吃肉吗|我的饮食(?:习惯)?是什么", (DIET,)),
    (r"(?<!喜欢)(?<!爱)吃(?:点)?什么" + _NO_MEDICINE
     + r"|做(?:点)?什么(?:菜|吃的|饭)|点(?:点)?什么(?:菜|吃的|外卖)"
     r"|推荐[^，。？]{0,6}(?:餐厅|饭店|菜|吃的|甜点|零食|馆子|饭馆)"
     r"|推荐[^，。？]{0,4}(?:饭|菜|餐|面|小吃|甜品|火锅|烧烤)店"
     r"|(?:晚饭|午饭|早饭|晚餐|午餐|早餐|夜宵|甜点)(?:有什么推荐|怎么安排)"
     # a meal said in English inside Chinese: 学校附近有什么 lunch 推荐
     r"|(?:lunch|dinner|breakfast|brunch|snack|dessert)s?\s*(?:有什么|有啥)?\s*推荐|推荐[^，。？]{0,6}(?:lunch|dinner|brunch)"
     r"|我(?:能不能|能|可以)吃(?!完)" + _NO_MEDICINE + r"[^，。？]{0,8}吗?"
     r"|我不能吃什么|我要忌口"
     # 中午点个外卖 帮我挑挑, 想吃点甜的 推荐下, 夜宵整点啥 (were no request for food: the refused 葱 not read)
     r"|点(?:个|份|一份)?外卖|(?:想|要)吃点[^，。？]{0,4}(?:的|东西)|吃点[^，。？]{0,6}推荐"
     r"|(?:晚饭|午饭|早饭|晚餐|午餐|早餐|夜宵|宵夜)(?:整|来)点?什么"
     # 朋友请吃饭 点菜要注意啥: ordering at a meal out, with a seafood allergy stored
     r"|点菜[^，。？]{0,4}注意|(?:吃饭|聚餐|下馆子)[^，。？]{0,4}(?:要|该|得)?(?:注意什么|忌口)$", _FOOD_ADVICE_ASKED),
    (r"我(?:能不能|能|可以)(?:吃|喝)(?!完)" + _NO_MEDICINE + r"[^，。？]{0,8}(?:吗|不|$)", _EAT_OR_DRINK),
    # (not 我在吃什么药: the medicines taken, below)
    (r"(?<!在)(?:吃|服用?|用)(?:点|些)?(?:什么|哪种|哪个|哪些)[^，。？！\s]{0,4}药|我(?:能不能|能|可以)(?:吃|服用?|用)[^，。？！\s]{0,6}药",
     _MEDICINE_ADVICE),
    (r"我(?:每天|平时)?(?:怎么|如何)(?:去)?上班|我的通勤|我(?:每天|平时)?(?:坐|乘)什么(?:车)?上班", ("commutes_by",)),
    (r"(?:上班|去公司|去单位|去学校|上学|去上课)[^，。？]{0,6}(?:要多久|多久|多长时间|走哪条路|怎么走|怎么去|咋去)"
     # (not someone else's: 他几点出门)
     r"|(?<![他她们])(?<![他她们][明今]早)(?<![他她们]明天)(?<![他她们]早上)几点(?:出门|出发|动身)"
     r"|通勤(?:要|得)?(?:多久|多长时间|怎么安排|怎么走)", _COMMUTE),
    (r"我(?:每天|现在)?(?:吃|服用|打)(?:多少|几)(?:片|粒|毫克|单位|mg)|我(?:每天|现在)?(?:吃|服用|打)[^，。？]{1,8}?(?:多少|几)"
     r"(?:片|粒|毫克|单位|mg)|我的(?:药量|剂量|用药)|我(?:在|现在)?(?:吃|服用)(?:什么|哪些)药|我每天吃多少[^，。？]{0,6}药",
     ("takes_dose",)),
    (r"我(?:一般|平时|每天|现在)?(?:几点|什么时候)(?:睡觉|睡|上床)", (BEDTIME,)),
    (r"我(?:一般|平时|每天|现在)?(?:几点|什么时候)(?:起床|起来|醒)", (WAKE_UP,)),
    (r"我(?:现在)?上什么班|我的班次", (SHIFT,)),
    (r"我(?:每周|现在)?(?:哪(?:几)?天|星期几|周几|什么时候)去健身房", (GYM,)),
    (r"我(?:一般|平时|每天|现在)?中午(?:一般|平时|都)?(?:在哪(?:里|儿)?|去哪(?:里|儿)?|怎么)吃"
     r"|我的?午饭(?:怎么解决|在哪吃)", (LUNCH,)),
    (r"我(?:的手机号?)?(?:用的是|是|用)?(?:哪个|哪家|什么)运营商|我的运营商", (CARRIER,)),
    (r"我的(?:手机|电话)号|我的电话(?!手表)", ("phone",)),
    (r"我的手机(?!号)|(?:在|用)我(?:的)?手机上", ("uses_phone",)),
    (r"我的邮箱", ("email",)),
    (r"我的紧急联系人", ("emergency_contact",)),
)
# Example questions for the slots most asked, in both languages: a question about the user that no pattern above
# reads asks for a slot when its embedding lies close enough to one of them ("What city am I based in?", 我从事什么
# 职业: ingest/slot_meaning.py). Written from the patterns' own cases; the eval's held-out phrasings measure them
# (bench/recall_eval.py), so none of those belongs here. No slot whose examples lie as close to another's (the
# commute's "How do I get to work?" was the nearest example to "What kind of work do I do?", at 0.82 as the job's).
SLOT_EXAMPLES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("lives_in",), ("Which city do I live in?", "Where do I live?", "Where am I living now?", "我现在住在哪个城市？",
                     "我家在哪儿？", "我住在哪里？")),
    (("hometown",), ("Where am I from?", "Where did I grow up?", "我是哪里人？", "我的老家在哪？")),
    (("works_at",), ("Where do I work?", "Which company do I work for?", "Where is my office?", "我在哪里上班？",
                     "我在哪家公司工作？")),
    (("works_at", OCCUPATION), ("What do I do for a living?", "What's my job?", "我是做什么工作的？",
                                "我的职业是什么？")),
    (FORMER_JOB, ("What was my old job?", "Where did I use to work?", "What did I do before I retired?",
                  "我以前的工作是什么？", "我退休前是做什么的？")),
    (("studies_at",), ("Where do I study?", "Which university do I go to?", "我在哪里上学？", "我在哪个大学读书？")),
    (("birthday",), ("When is my birthday?", "我的生日是哪天？")),
    (("age",), ("How old am I?", "我今年多大？")),
    (("name", "nickname"), ("What's my name?", "我叫什么名字？")),
    (("speaks",), ("What languages do I speak?", "我会说哪些语言？")),
    ((SPORT,), ("Which sport do I play?", "What sport am I into these days?", "我现在喜欢什么运动？",
                "我平时做什么运动？")),
    ((MUSIC,), ("What kind of music do I like?", "What do I listen to?", "我喜欢听什么音乐？", "我平时听什么歌？")),
    (("pet",), ("Do I have a pet?", "What's my pet called?", "我养了什么宠物？", "我的宠物叫什么？")),
    (("allergic_to",), ("What am I allergic to?", "Do I have any allergies?", "我对什么过敏？")),
    ((DIET,), ("What diet am I on?", "Am I a vegetarian?", "我吃素吗？")),
    (("visited",), ("Where did I go on holiday?", "Where did I travel last year?", "我去年去哪里旅行了？",
                    "我去过哪些地方？")),
    (("going_to",), ("Where am I going next month?", "Where are we headed this summer?", "我下个月要去哪？",
                     "我们这次旅行去哪？")),
    (_REFUSED_ASKED, ("What food don't I eat?", "Is there anything I refuse to eat?", "我不吃什么？",
                                      "我忌口什么？")),
    (("drives",), ("What car do I drive?", "我开什么车？")),
    # An open preference asks for no slot (left to the other stages, as by the patterns): "What's my favourite
    # food?" lay closest to "What food don't I eat?" (0.8), and the foods refused came before the one loved.
    ((), ("What's my favourite food?", "What do I love to eat?", "What do I like to eat?", "我最爱吃什么？",
          "我平时喜欢吃啥？", "我喜欢吃什么？")),
)

# Requests whose answer the user's own facts shape, though they ask for none of them (ingest/slot_meaning.py, with
# the model's request_example_similarity): a meal suggested must respect an allergy or a condition, a bio or a CV is
# about their job, a playlist follows their music. Advice and plans are read here too (unlike SLOT_EXAMPLES): a
# request is what these are. No generic "write me ..." example: by meaning it lay as close to a leave email or a poem
# (0.56-0.60) as to a bio. "Near me" is a pattern (_EN / _ZH), not an example: by meaning "What's the weather like
# where I live?" lay at 0.76 from "What's the weather like in Paris?".
REQUEST_EXAMPLES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (_FOOD_ADVICE_ASKED, ("Can you suggest something for dinner tonight?", "Order me some lunch",
                          "What should I cook this weekend?", "Recommend a restaurant for tonight", "帮我点个外卖",
                          "晚饭吃什么好？", "推荐个餐厅", "中午吃什么？")),
    # a bio or a CV says the team too ("I just moved over to the paediatric pharmacy team")
    (("works_at", OCCUPATION, "on_team"), ("Help me write a short bio about my work", "Write my CV summary",
                                "Write my LinkedIn headline", "Update my resume with my current job",
                                "帮我写个自我介绍，说说我的工作", "帮我准备一下面试时介绍我的工作",
                                "帮我写个领英的个人简介")),
    ((MUSIC,), ("Make me a playlist", "给我推荐几首歌", "帮我做个歌单")),
)

_EN_RE = tuple((re.compile(p), s) for p, s in _EN)
_ZH_RE = tuple((re.compile(p), s) for p, s in _ZH)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'"})
# Spoken Chinese asks with 啥 for 什么 and 咋 for 怎么 (我是做啥工作的, 吃啥, 咋办): the patterns are written with the
# standard words, and read the spoken ones as those.
_SPOKEN_ZH = (("啥", "什么"), ("咋", "怎么"))


# A request for advice or a plan asks what to do, not what the user said: by its meaning alone "What should I name
# my startup?" asked for the user's name (0.56 to "What's my name?"), 我想学吉他 where they study (0.57). "What should
# my LinkedIn headline say?" is one too: read by the requests' examples, it asks for the job.
_WHAT_TO_DO_RE = re.compile(r"\b(?:should|shall) (?:i|we|my|our)\b|\bhow (?:do|can|could|should|would) (?:i|we)\b"
                            r"|\bi(?:'d| would)? (?:want|like|plan|hope|need) to\b"
                            r"|\bi'm (?:thinking|planning) (?:of|to)\b"
                            r"|\bhelp me\b|我(?:想|打算|准备|计划)|要不要|应该|怎么办|如何|帮我|教教?我")


def asks_what_to_do(question: str) -> bool:
    """Whether the input asks for advice or says a plan ("How should I prepare for my driving test?", 我想学吉他):
    no slot question by meaning, whatever example it lies close to."""
    return _WHAT_TO_DO_RE.search(_folded(question)) is not None


# What the user did, asked in the past ("What did I do?", "What have I been up to?", 我做了什么): the days' doings, no
# fact of theirs. By its meaning alone "What did I do?" lay closest to 我是做什么工作的 (0.59) and asked for the job,
# which a week's memories then answered, the nurse of "I live in Portland and work as a nurse", though nothing related.
# "for a living", "for work", "before I retired" keep the job's reading; 我是做什么的 (no 了) is the job too.
_WHAT_WAS_DONE_RE = re.compile(
    r"\bwhat (?:did (?:i|we) (?:do|get up to)|have (?:i|we) (?:done|been doing|been up to))\b"
    r"(?! (?:for (?:a )?(?:living|work|job)|as (?:a|my) job|before|when i (?:was|retired)|after i))"
    r"|我(?:们)?(?:都|最近|这几天|昨天|今天|上周)*(?:干|做)了(?:些)?什么")


def asks_what_was_done(question: str) -> bool:
    """Whether the input asks what the user did (their doings, not their job): no slot question by meaning."""
    return _WHAT_WAS_DONE_RE.search(_folded(question)) is not None


def _folded(question: str) -> str:
    """The question as the patterns read it: NFKC, case-folded, curly apostrophes straight, traditional characters
    simplified, spoken 啥 / 咋 as 什么 / 怎么."""
    text = simplified(unicodedata.normalize("NFKC", question).casefold().translate(_APOSTROPHES))
    for spoken, standard in _SPOKEN_ZH:
        text = text.replace(spoken, standard)
    return text


# ----- food advice asked in any words -------------------------------------------------------------------------
# The patterns above read the requests they were written for; with a severe peanut allergy stored, "Should I try the
# satay at the party?", 周末想去吃泰国菜，有什么推荐？ or "Make me a grocery list for the week" were gated (an allergy
# lies at cosine ~0.2 from any food request). Read generally: a request, a question asking what to choose or whether
# to eat, or a plan to eat (asks_for_food) that names something eaten (names_food) asks what food advice asks.

# Dishes a request names that the extraction's food words (ingest/extract_core.py FOODS_EN) lack, and the meals, the
# shopping and the places of eating a request names beside them.
_MORE_FOODS_EN = (
    "satay", "skewer", "laksa", "rendang", "nasi goreng", "spring roll", "tempura", "teriyaki", "katsu", "gyoza",
    "bulgogi", "banh mi", "ceviche", "poke bowl", "nacho", "quesadilla", "enchilada", "mac and cheese", "meatball",
    "omelette", "omelet", "porridge", "oatmeal", "granola", "cereal", "yogurt", "yoghurt", "muffin", "scone",
    "stir-fry", "stir fry", "casserole", "sausage", "hot dog", "dal", "dhal", "paneer", "tikka", "masala", "korma",
    "baklava", "peanut butter", "trail mix", "fondue", "s'mores", "popcorn", "crisps")
_MEALS_EN = ("breakfast", "lunch", "dinner", "supper", "dessert", "appetizer", "groceries", "grocery", "restaurant",
             "cafe", "café", "bakery", "recipe", "menu", "meal plan", "meal prep", "picnic", "potluck", "buffet",
             "cookout", "lunchbox")
_FOOD_WORDS_EN = sorted((*FOODS_EN, *DRINKS_EN, *_MORE_FOODS_EN, *_MEALS_EN), key=len, reverse=True)
_CUISINES_EN = "|".join(map(re.escape, sorted(CUISINES_EN, key=len, reverse=True)))
_FOOD_WORD_EN_RE = re.compile(rf"(?i)\b(?P<food>{'|'.join(map(re.escape, _FOOD_WORDS_EN))})(?:e?s)?\b")
# a cuisine is a language and a people too ("Translate 'good luck' into French"): one eaten, or with its food
_CUISINE_EATEN_RE = re.compile(
    rf"\b(?:{_CUISINES_EN}) (?:food|cuisine|dish|place|restaurant|takeout|takeaway)"
    rf"|\b(?:eat|eating|get|getting|grab|grabbing|order|ordering|have|having|try|trying|cook|cooking|fancy|craving"
    rf"|for) (?:some )?(?:{_CUISINES_EN})\b")
_SENTENCE_START_RE = re.compile(r"(?:^|[.?!:;]\s*|[\"'(]\s*)$")
# A food word naming no food: a pie chart, the browser's cookies, an Easter egg, Python's pickle, the dishes washed,
# "driving me nuts", a wine stain
_NOT_EATEN_EN_RE = re.compile(
    r"\b(?:pie|bar|donut|doughnut) (?:charts?|graphs?)\b|\bcookies?\b(?= (?:banners?|consent|polic(?:y|ies)|settings?"
    r"|files?))|\b(?:clear|delete|block|accept|enable|disable|reject|allow) (?:\w+ )?cookies\b"
    r"|\b(?:browser|tracking|third-party|session) cookies\b|\beaster eggs?\b|\bpickle (?:modules?|files?)\b"
    r"|\b(?:tea|coffee|lunch|dinner) (?:breaks?|tables?|meetings?)\b|\b(?:computer|silicon|memory) chips?\b"
    r"|\b(?:the|do|did|doing|wash|washing|washed|dirty|leaves?|left) dishes\b|\b(?:drives?|driving) (?:me|us) nuts\b"
    r"|\bgo(?:ing|es)? nuts\b|\b\w+ stains?\b")
# Not a request for food advice though it names a food: how something is done ("How long should I boil an egg?",
# "What's the best way to boil an egg?": a how-to, the same for anyone), a translation, a poem or a joke, a
# stain, the user's food business (a supplier, a permit, prices, a caption), what the user did ("what did I plant in
# Ruby's strawberry pot?").
_NOT_FOOD_ADVICE_RE = re.compile(
    r"(?:^|[.?!]\s*)(?:how (?:do|does|can|could|should|would|long|much|many|often|deep|hot)\b|how to\b"
    r"|what(?:'s| is) the (?:best|easiest|quickest|fastest|right|proper) way\b)"
    r"|\btranslat\w*|\b(?:haikus?|poems?|jokes?|limericks?|riddles?|sonnets?|songs?|stories|story)\b|翻译|诗|笑话|谜语|段子"
    r"|\bstains?\b|\bsuppliers?\b|\bpermits?\b|\blicen[cs]es?\b|\blease\b|\bpric(?:e|es|ing)\b|\bcaptions?\b"
    r"|\binstagram\b|\bcustomers?\b|\bvendors?\b|\bwholesale\b|\binvoices?\b|\bdeliveroo\b|\bname ideas?\b"
    r"|定价|价目|选品|进货|供应商|顾客|开店|店里|(?:送|跑)外卖"
    r"|\b(?:what|where|when|who) (?:did|was|were|have) (?:i|we)\b|^\W*(?:did|was|were|have) (?:i|we)\b"
    r"|\bremind me,? (?:what|where|when|who|which|how)\b"
    # something else recommended or written about a meal ("recommend a good book for breakfast reading", "What movie
    # should we watch over dinner?", "help me write a review of the restaurant")
    r"|\b(?:books?|novels?|movies?|films?|podcasts?|songs?|albums?|playlists?|hotels?|reviews?)\b|(?:一本|几本)书|电影"
    r"|电视剧|酒店"
    # what the user can't stand or does not eat, what they eat or drink as a rule: their facts asked, no advice
    r"|\b(?:can't|cannot|don't|won't|didn't|do|does) (?:i|we) (?:\w+ )?(?:stand|eat|drink|like|love|hate|avoid)\b"
    r"|我(?:现在|平时|一般|每天|通常|经常|最近|都)(?:(?!想|该|应该|可以|能)[^，。？]){0,8}(?:吃|喝)什么")
# A medicine taken with or without food ("Can I take ibuprofen with food?", 吃什么药) asks no food advice
_MEDICINE_EN_RE = re.compile(
    r"\b(?:medicines?|medications?|meds|pills?|tablets?|painkillers?|supplements?|vitamins?|antibiotics?|doses?"
    r"|dosage|ibuprofen|paracetamol|acetaminophen|aspirin|tylenol|advil|codeine|penicillin|amoxicillin|metformin"
    r"|warfarin|insulin|statins?)\b|\b(?:take|taking|took) (?:\w+ ){0,3}(?:with|without|on an empty) (?:food|meals?"
    r"|stomach)\b")
# The meals, what is eaten with a verb of eating before it (吃泰国菜, 点杯咖啡: the extraction's words, is_food), and
# a food asked about (泰国菜有什么推荐, 西瓜能吃吗). 菜, 鱼, 粉, 串 are parts of other words too (菜单栏, 鱼缸, 粉丝,
# 字符串): a food word counts where the word ends, before a particle, a request or a pause.
_MEALS_ZH_RE = re.compile(r"三餐|早餐|午餐|晚餐|早饭|午饭|晚饭|中饭|夜宵|宵夜|甜点|甜品|零食|外卖|餐厅|饭店|饭馆"
                          r"|馆子|菜谱|食谱|买菜|聚餐|自助餐|便当|下午茶|年夜饭|吃的|喝的")
# Hunger asks for food though it names none ("I'm starving, any ideas?", 肚子饿了，给我出出主意)
_HUNGRY_RE = re.compile(r"\b(?:hungry|starving|starved|peckish)\b|饿")
_EATING_ZH_RE = re.compile(r"吃|喝|尝|点(?!儿|击|开)|做|烤|煮|炒|炖|订|带")
_ASKED_ABOUT_ZH_RE = re.compile(r"(?:有什么|有啥|有没有)?(?:推荐|好吃|安全|能吃|可以吃|能不能吃|怎么做)")
_WORD_END_ZH = frozenset("有吗呢了的吧啊呀好怎去还和或跟配加要可能就也都是在给")
_SPAN = 8  # the characters a food word may lie after its verb (吃点什么清淡的菜)


def _food_ends_zh(text: str, end: int) -> bool:
    """Whether a food word of the extraction's (is_food) ends at `end`, where a word ends (not 鱼 of 鱼缸)."""
    after = text[end:end + 1]
    return (not after or not has_han(after) or after in _WORD_END_ZH) and is_food(text[max(0, end - _SPAN):end])


def _food_word_en(question: str) -> bool:
    """Whether an English food word names a food: not a name ("What does Waffles like to play with?": a capital
    inside a sentence) nor a word of something else (_NOT_EATEN_EN_RE)."""
    said = unicodedata.normalize("NFKC", question).translate(_APOSTROPHES)
    for m in _FOOD_WORD_EN_RE.finditer(said):
        name = m.group("food")[0].isupper() and not _SENTENCE_START_RE.search(said[:m.start()])
        if not name and not _NOT_EATEN_EN_RE.search(said.casefold(), max(0, m.start() - 24), m.end() + 24):
            return True
    return False


def names_food(question: str) -> bool:
    """Whether the input names something eaten or drunk, a meal, the groceries or a place to eat: "the satay",
    "pad thai", "a grocery list", 泰国菜 after 吃, 三餐; not a medicine (吃什么药: the medicine slots' question)."""
    text = _folded(question)
    if "药" in text or _MEDICINE_EN_RE.search(text):
        return False
    if _CUISINE_EATEN_RE.search(text) or _MEALS_ZH_RE.search(text) or _HUNGRY_RE.search(text) \
            or _food_word_en(question):
        return True
    if any(_food_ends_zh(text, m.start()) for m in _ASKED_ABOUT_ZH_RE.finditer(text)):
        return True
    return any(_food_ends_zh(text, end) for m in _EATING_ZH_RE.finditer(text)
               for end in range(m.end() + 1, min(len(text), m.end() + _SPAN) + 1))


# Asking what to eat in other words than the patterns': whether one thing may be eaten ("Should I try the satay?",
# "Is satay safe for me?", 西瓜能吃吗), which one ("What dessert could go with it?", "what snack should I grab?"), a
# thing proposed in a chat ("Maybe something with tofu?", "How about sushi?"), a plan to eat ("Thinking of getting pad
# thai tonight", 周末想去吃泰国菜); requests, advice and tasks are read by scoring's tests (recommend, 帮我规划一下,
# "Make me a ...").
_EATING_EN = r"(?:eat|have|get|order|try|make|cook|bake|grab|drink|bring)"
_EATING_ING_EN = r"(?:eating|having|getting|ordering|trying|making|cooking|baking|grabbing|drinking|bringing)"
_ONE_THING_RE = re.compile(
    rf"^\W*(?:(?:ok|okay|so|and|hmm|also)\W+)*(?:should|shall|can|could|may|might) (?:i|we) (?:\w+ )?{_EATING_EN}\b"
    r"|\b(?:safe|ok|okay|alright|fine|good|bad|healthy|dangerous|risky) (?:for (?:me|us)|to (?:eat|drink|have|try))\b"
    r"|(?:安全|没问题|能吃|可以吃|能喝|可以喝)(?:吗|么|不)|(?:能不能|可不可以)(?:吃|喝)")
_ASKS_FOOD_RE = re.compile(
    r"\b(?:should|shall|can|could|may|might) (?:i|we)\b"
    rf"|(?:^|[.?!]\s*)(?:(?:ok|okay|so|and|also|then|hmm)\W+)*(?:what|which)\b[^.?!]{{0,40}}\b(?:should|could|would|can"
    rf"|shall|goes|go|pairs?|to {_EATING_EN}|to serve)\b"
    r"|\b(?:something|anything) (?:with|like|for|light|sweet|savou?ry|spicy|healthy)\b[^.!?]{0,40}\?"
    r"|\b(?:how|what) about\b[^.!?]{0,40}\?|(?:^|[.?!]\s*)maybe\b[^.!?]{0,40}\?"
    rf"|\b(?:thinking|thought) (?:of|about) (?:\w+ )?{_EATING_ING_EN}\b"
    rf"|\bplanning (?:on {_EATING_ING_EN}|to {_EATING_EN})\b"
    rf"|\b(?:going to|gonna|want to|wanna|would like to|'d like to) (?:\w+ )?{_EATING_EN}\b"
    rf"|\b(?:want|would like|'d like) (?:a|an|some|something)\b|\bfeel like {_EATING_ING_EN}\b"
    r"|\b(?:craving|in the mood for)\b"
    r"|(?:想|打算|准备|计划|要不要|考虑|一起)(?:去|来)?(?:吃|喝|点|尝|试|做|烤|煮|买|订)|什么好|怎么样[?？]?$")


def asks_for_food(question: str) -> bool:
    """Whether the input asks for food advice in words no pattern was written for: a request, a question asking what
    to choose or whether to eat, or a plan to eat (not a statement: "I ate pad thai yesterday"; not how the world is:
    "Which city has the best food?", "What's the capital of Thailand?"; not how a thing is done) naming something
    eaten (names_food)."""
    text = _folded(question)
    if _NOT_FOOD_ADVICE_RE.search(text) and not _ONE_THING_RE.search(text):
        return False
    asking = wants_advice(question) or asks_a_task(question) or is_request(question) \
        or _ASKS_FOOD_RE.search(text) is not None or _ONE_THING_RE.search(text) is not None
    return asking and not asks_how_things_are(question) and names_food(question)


def _food_asked(question: str) -> tuple[str, ...]:
    """What a request for food advice that no pattern read asks (asks_for_food): one thing's safety and the doses
    ("Is satay safe for me?", as "Can I eat satay?"), else the constraints and the likings; () for other input."""
    if not asks_for_food(question):
        return ()
    return _EAT_OR_DRINK if _ONE_THING_RE.search(_folded(question)) else _FOOD_ADVICE_ASKED


def asked_slots(question: str) -> tuple[str, ...]:
    """The predicates of the user's own facts the question asks for, in pattern order, without repeats;
    () when it asks for none (or is not about the speaker). A request for food advice no pattern reads asks what
    food advice asks (_food_asked)."""
    text = _folded(question)
    found: list[str] = []
    for pattern, predicates in (*_EN_RE, *_ZH_RE):
        if pattern.search(text):
            found.extend(p for p in predicates if p not in found)
    if not found:
        found = list(_food_asked(question))
    if not is_food_advice(found):
        # 我不吃什么 reads as food advice too (吃什么), yet asks what is refused or disliked (its answer), no taste
        dropped = (FOOD_LIKING,) if tuple(found[:2]) == _REFUSED_ASKED[:2] else (FOOD_LIKING, FOOD_DISLIKE)
        found = [p for p in found if p not in dropped]
    return tuple(found)


def stored_predicates(asked: Sequence[str]) -> tuple[str, ...]:
    """The predicates of the triples that may answer: OCCUPATION and DIET are is_a, SPORT, MUSIC and FOOD_LIKING
    likes."""
    out: list[str] = []
    for p in asked:
        stored = _OF_A_KIND[p][0] if p in _OF_A_KIND else m["p"] if (m := _KEYED_ASKED_RE.match(p)) else p
        if stored not in out:
            out.append(stored)
    return tuple(out)


# Allergens no meal holds: a drug or pollen allergy answers no request for food advice ("Recommend a restaurant"
# brought "I'm allergic to penicillin", not the shellfish allergy the user had also told).
_NOT_FOOD_ALLERGEN_RE = re.compile(
    r"(?i)penicillin|amoxicillin|antibiotics?|sulfa\w*|aspirin|ibuprofen|nsaids?|codeine|morphine|bees?"
    r"|bee stings?|wasps?|pollen|hay ?fever|dust(?: mites?)?|mold|mould|cats?|dogs?|horses?|grass|nickel|perfume"
    r"|青霉素|头孢|磺胺|阿司匹林|布洛芬|花粉|尘螨|灰尘|霉菌|猫毛?|狗毛?|蜜蜂"
)


def is_food_advice(asked: Sequence[str]) -> bool:
    """The slots asked are those of a request for food advice: the allergies, conditions and foods refused that
    constrain the answer (recall lets them set no bar for what relates by meaning), not the answer; and what the
    user likes to eat (FOOD_LIKING), which shapes it and sets no bar either."""
    return tuple(asked[:len(_FOOD_ADVICE)]) == _FOOD_ADVICE  # with the doses, for one thing to eat or drink


def shapes_answer(asked: Sequence[str], stated: Sequence[str]) -> bool:
    """Whether a memory stating `stated` (as answered() gives it) answers a request for food advice with a liking
    only (Thai food, 水煮鱼): it shapes the answer, after the allergies and foods refused that constrain it."""
    return FOOD_LIKING in asked and is_food_advice(asked) and "likes" in stated \
        and all(p in ("likes", REPLY_STYLE) for p in stated)


def constrains_answer(asked: Sequence[str]) -> bool:
    """The slots asked hold facts that constrain the answer rather than give it: a request for food advice (the
    allergies and foods refused), an animal met or taken in (the allergy to it: "Should we adopt a puppy?"), a medicine
    asked for (the allergies, conditions and medicines taken)."""
    return is_food_advice(asked) or ANIMAL_ALLERGY in asked or tuple(asked[:len(_MEDICINE_ADVICE)]) == _MEDICINE_ADVICE


def asks_own_fact(asked: Sequence[str], question: str) -> bool:
    """Whether the slots asked are a fact of the user's own ("How much metformin do I take?"), not of the family
    ("How much metformin does my dad take?" asks for father; "my son's allergy" names a person), nor one whose answer
    they constrain (a child's allergy constrains the family's dinner too: constrains_answer)."""
    asked = [p for p in asked if p != REPLY_STYLE]  # how to answer is no fact asked
    return bool(asked) and not any(p in PEOPLE for p in asked) and not constrains_answer(asked) \
        and not people(question)


@functools.cache  # asked by every recall of a question about one relative
def kin_words(predicate: str) -> tuple[str, ...]:
    """The words the user calls a relative of this kin by ("mom", "mum", 妈妈, 我妈 for mother), longest first: an
    unnamed one's memories are found by them. () for a predicate that is no kin of one person (friend, pet)."""
    if predicate not in FAMILY:
        return ()
    said = [w for w, p in (*RELATIONS_EN.items(), *RELATIONS_ZH.items()) if p == predicate]
    words = {w if len(w) > 1 else f"我{w}" for w in said}  # 妈 alone is a character of many words: 我妈
    return tuple(sorted(words, key=lambda w: (-len(w), w)))


def people_asked(asked: Sequence[str]) -> tuple[str, ...]:
    """The predicates of the user's people a question asks about and nothing else ("my daughter": child; "my
    family": the kin; how to answer aside), whose memories naming them answer it too; () for any other question."""
    facts = tuple(p for p in asked if p != REPLY_STYLE)
    return facts if facts and all(p in PEOPLE for p in facts) else ()


# A slot asked as a stand-in for another, the first asked: "What should you call me?" asks for the name the user goes
# by, and their name only when no memory states one (the nickname Kat, not "My name is Katherine", answers it).
_STAND_INS = (("nickname", "name"),)


def without_stand_ins(asked: Sequence[str], stated: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """What each memory answers (`stated`, each as answered() gives it) less a stand-in slot when some memory states
    the slot asked first that it stands in for."""
    out = [tuple(s) for s in stated]
    for first, stand_in in _STAND_INS:
        if asked[:1] == (first,) and stand_in in asked and any(first in s for s in out):
            out = [tuple(a for a in s if a != stand_in) for s in out]
    return out


def answered(asked: Sequence[str], answers: Sequence[str], names: Sequence[str]) -> tuple[str, ...]:
    """What a memory stating `answers` (stored predicates) answers of `asked`: an is_a asked only as OCCUPATION
    counts when the memory names an occupation (`names`: the entities it mentions), one asked as DIET when it names
    a diet, a likes asked as SPORT, MUSIC or FOOD_LIKING when it names a sport, a kind of music or a food (a food's
    only while liked); an allergy asked by a request for food advice counts when the memory names an allergen a meal
    may hold."""
    if is_food_advice(asked) and "allergic_to" in answers:
        named = [n for n in names if n != "user"]
        if named and all(_NOT_FOOD_ALLERGEN_RE.fullmatch(n.strip()) for n in named):
            answers = tuple(a for a in answers if a != "allergic_to")
    keys = {m["r"] for p in asked if (m := _KEYED_ASKED_RE.match(p))}
    if keys and not any(normalize_term(routine_of(n)) in keys for n in names if ":" in n):
        # the gym's days answer no bedtime, the bank no question about the doctor
        answers = tuple(a for a in answers if a not in (ROUTINE_PREDICATE, PROVIDER_PREDICATE))
    for predicate in {_OF_A_KIND[p][0] for p in asked if p in _OF_A_KIND}:
        # the memory stating it, or the one that ended a memory stating it ("likes (ended)": the sport the user
        # switched to, no answer to "What do I listen to?")
        said = (predicate, f"{predicate} (ended)")
        if not set(said) & set(answers) or predicate in asked:  # asked as such too ("What do you know about me?")
            continue
        if all(p in _LIVE_ONLY for p in asked if p in _OF_A_KIND and _OF_A_KIND[p][0] == predicate):
            answers = tuple(a for a in answers if a != said[1])
        if not any(kind(n) for p, (stored, kind) in _OF_A_KIND.items() if p in asked and stored == predicate
                   for n in names):
            answers = tuple(a for a in answers if a not in said)
    return tuple(answers)
