"""Slot questions (ingest/slots.py), pure: which of the user's own facts a question asks for, and how a
memory stating one scores and opens the gate (ingest/scoring.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ingest.lexicon import about_someone_else
from ingest.scoring import Candidate, ScoringParams, gate, score_candidates, terms
from ingest.slots import (
    ANIMAL_ALLERGY,
    DIET,
    FAMILY,
    FOOD_DISLIKE,
    FOOD_LIKING,
    OCCUPATION,
    answered,
    asked_slots,
    asks_own_fact,
    asks_what_to_do,
    asks_what_was_done,
    constrains_answer,
    people_asked,
    stored_predicates,
)

# a request for food advice asks what constrains the answer: allergies, conditions, the foods refused, a diet; then
# what the user likes to eat, which shapes it
FOOD_ADVICE = ("allergic_to", "has_condition", "not eats", DIET, FOOD_DISLIKE, FOOD_LIKING)
# one thing to eat or drink: its safety depends on the medicines taken too (grapefruit and amlodipine); no liking
EAT_OR_DRINK = (*FOOD_ADVICE[:-2], "takes_dose")
# one thing, asked in words a request for food advice reads too (我能吃海鲜吗, "what should I eat"): the liking as well
ADVICE_AND_DOSES = (*FOOD_ADVICE, "takes_dose")

# what the user does not eat: the foods refused and disliked, then what constrains any meal
REFUSED = ("not eats", FOOD_DISLIKE, "allergic_to", "has_condition")

COMMUTE = ("commutes_by", "lives_in", "works_at", "studies_at")
# a former job: the employer and occupation, affirmed and held no longer (their denied triples)
FORMER_JOB = ("works_at", OCCUPATION, "not works_at", "not is_a (occupation)")

ABOUT_ME = ("name", "age", "lives_in", "hometown", "works_at", "is_a", "studies_at", "spouse", "partner", "mother",
            "father", "sister", "brother", "child", "grandparent", "grandchild", "pet", "allergic_to", "likes")


@pytest.mark.parametrize(
    ("question", "slots"),
    [
        ("Where do I live?", ("lives_in",)),
        ("where did we move", ("lives_in",)),
        ("What’s my address?", ("lives_in",)),
        ("我住在哪里？", ("lives_in",)),
        ("我们搬到哪了", ("lives_in",)),
        ("Where am I from?", ("hometown",)),
        ("我是哪里人", ("hometown",)),
        ("Where do I work?", ("works_at",)),  # a place: no occupation
        ("Where do I live and work?", ("lives_in", "works_at")),  # both asked
        ("What do I do for a living?", ("works_at", OCCUPATION)),
        ("我在哪上班", ("works_at",)),
        ("What's my work address?", ("works_at",)),  # the workplace, not the home
        ("帮我更新一下朋友圈里的工作地址。", ("works_at",)),  # 朋友圈 (WeChat Moments) names no friend
        ("帮我查下朋友的公司地址", ()),  # someone else's
        ("我是做什么的？", ("works_at", OCCUPATION)),
        ("How old am I?", ("age",)),
        ("我今年多大了", ("age",)),
        ("When is my birthday?", ("birthday",)),
        ("What is my daughter allergic to?", ("child",)),  # her allergy, not the user's
        ("Tell me about my family", ("spouse", "partner", "mother", "father", "sister", "brother", "child",
                                     "grandparent", "grandchild")),
        ("我女儿叫什么", ("child",)),
        ("What's a good birthday present for my granddaughter?", ("grandchild",)),
        ("我奶奶住在哪", ("grandparent",)),
        ("what does my coworker think would get our abstract accepted?", ("colleague",)),
        ("我同事说的那家店叫什么", ("colleague",)),
        # chat's dropped 我 before a kin word opening a clause; not someone else's (你女儿, 同事的女儿)
        ("女儿的 placement 在哪家医院？要开车送她", ("child",)),
        ("妈妈生日送什么", ("mother",)),
        ("姐姐下周来 带她去哪玩", ("sister",)),
        ("你女儿多大了", ()),
        # eating out asks what constrains the meal
        ("going to a thai place with friends tonight, anything i should watch out for?", FOOD_ADVICE),
        ("we're going to a new restaurant tonight", FOOD_ADVICE),
        ("help me write a review of the restaurant", ()),
        ("下雨天上班怎么去比较好？", COMMUTE), ("下个月开始通勤怎么安排最省时间？", COMMUTE),
        # "my phone" is the device; its number is asked as a number
        ("how do I video call my grandson on my phone?", ("grandchild", "uses_phone")),
        ("what is my phone number?", ("phone",)), ("my cell phone number", ("phone",)),
        ("我的手机怎么截屏", ("uses_phone",)), ("我的手机号是多少", ("phone",)),
        # a thesis supervisor is the boss; what a business card says is the job; a meal said in English
        ("when does my supervisor expect me to be done?", ("boss",)),
        ("what should I put on my new business card?", ("works_at", OCCUPATION, "on_team")),
        ("帮我设计一张名片", ("works_at", OCCUPATION, "on_team")),
        # ... and what a form or a profile's title says of it; not LinkedIn or an occupation in general
        ("What should I put as my occupation on this form?", ("works_at", OCCUPATION, "on_team")),
        ("Write my LinkedIn summary.", ("works_at", OCCUPATION, "on_team")),
        ("帮我写个 LinkedIn headline", ("works_at", OCCUPATION, "on_team")),
        ("How do I delete my LinkedIn account?", ()),
        ("幫我更新一下LinkedIn上的職位。", ("works_at", OCCUPATION, "on_team")),
        ("What is LinkedIn used for?", ()), ("What's the occupation of a blacksmith?", ()), ("这个职位要求什么", ()),
        ("社区要我写个简历，帮我写写我以前的工作。", FORMER_JOB), ("我现在的工作", ("works_at", OCCUPATION)),
        ("What was my previous job?", FORMER_JOB),
        # a dish in the making: its safety the medicines decide too (warfarin and leafy greens)
        ("I'm making a big kale salad for Linda and me, anything I should think about?", EAT_OR_DRINK),
        ("I'm making a presentation, anything I should think about?", ()),
        ("What did my dad do before he retired?", ("father",)),
        # food laid in for a trip asks what constrains it
        ("What food should I stock up on for Orkney?", FOOD_ADVICE),
        ("学校附近有什么 lunch 推荐？", FOOD_ADVICE),
        ("what should I check on my delivery van before winter?", ("drives",)), ("my card got declined", ()),
        ("我对什么过敏", ("allergic_to",)),
        ("What languages do I speak?", ("speaks",)),
        ("What do you know about me?", ABOUT_ME),
        ("Tell me about myself", ABOUT_ME),
        ("你知道我哪些事？", ABOUT_ME),
        ("介绍一下我自己", ABOUT_ME),
        # food advice asks for what the user must not or cannot eat, however far its words are from it
        ("Any dessert ideas for tonight?", FOOD_ADVICE),
        ("Can you recommend a restaurant for dinner?", FOOD_ADVICE),
        ("What should I cook tonight?", FOOD_ADVICE),
        ("晚饭吃什么好？", FOOD_ADVICE),
        ("推荐一家火锅店", FOOD_ADVICE),
        ("推荐一家书店", ()),
        # each was gated or answered without the user's shellfish allergy
        ("Is there anything I should avoid eating at the team lunch? It's a seafood place.",
         FOOD_ADVICE),
        ("Can you suggest something for dinner tonight?", FOOD_ADVICE),
        ("Is it safe for me to eat sushi?", EAT_OR_DRINK),
        ("我能吃海鲜吗？", ADVICE_AND_DOSES),
        ("Is it ok if I have a slice of cake at the family barbecue?", FOOD_ADVICE),
        ("朋友请吃饭 点菜要注意啥", FOOD_ADVICE),
        # takeout, a sweet treat, the late-night snack: the foods refused (我一点葱都不吃) were left unread
        ("中午点个外卖 帮我挑挑", FOOD_ADVICE), ("趁娃睡了 想奖励自己吃点甜的 推荐下", FOOD_ADVICE),
        ("夜宵整点啥", FOOD_ADVICE), ("我昨天点了个外卖", ()), ("要吃点药吗", ()),
        ("我能喝西柚汁吗", EAT_OR_DRINK), ("Can I drink wine tonight?", EAT_OR_DRINK),
        # a meal recommended with words before it (pre-race, quick weeknight)
        ("can you recommend a pre-race breakfast that's safe for me?", FOOD_ADVICE),
        ("recommend me a quick weeknight dinner", FOOD_ADVICE), ("recommend a good book for breakfast reading", ()),
        # what to watch at a check-up: the user's conditions (a high cholesterol)
        ("年度体检 report 要特别注意哪项", ("has_condition",)), ("我身体有什么问题", ("has_condition",)),
        ("What should I pay attention to at my annual check-up?", ("has_condition",)),
        ("anything to ask my doctor about at my physical?", ("has_condition",)),
        ("how do I get a check-up appointment", ()),
        ("Is it ok if I have a question?", ()), ("吃饭的时候要注意什么礼仪", ()),
        ("What did I eat yesterday?", ()),
        ("Should I eat the loss on this stock?", ()), ("Can we eat at 7 instead?", ()), ("你能吃辣吗", ()),
        ("我能吃完再走吗", ()), ("我女儿能吃蜂蜜吗", ("child",)),
        # a trip asked after: what the user visited (each question's answer shared no slot and was gated at 0.28)
        ("Where did I travel last year?", ("visited",)),
        ("Where was my last big trip?", ("visited",)),
        ("Where did I go on holiday last year?", ("visited",)),
        ("Which countries have I visited?", ("visited",)),
        ("我去年去哪里旅行了？", ("visited",)),
        ("我上次出去玩去的是哪儿？", ("visited",)),
        ("我都去过哪些地方？", ("visited",)),
        # where the user is headed: a trip, a season away, a move planned (going_to)
        ("Where are we headed this summer?", ("going_to",)), ("help me pack for my trip", ("going_to",)),
        ("Which place did I visit on my trip last year?", ()), ("How was my trip to Rome?", ()),
        ("which dates am I away? need to tell my clients", ("going_to",)), ("When do we fly out?", ("going_to",)),
        ("我们什么时候出发？", ("going_to",)),
        ("Which bird book should I buy for where we'll be this summer?", ("going_to",)),
        ("帮我查查去那边的火车要坐多久", ("going_to",)), ("今年过冬那地方天气咋样？", ("going_to",)),
        ("帮我找找这次旅行目的地那边适合小鹿的店", ("going_to",)), ("毕业后我打算去哪发展", ("going_to",)),
        ("幫我諗下搬過去之後住邊區好", ("going_to",)), ("我打算去哪旅行", ("going_to",)),
        ("Where is my next trip?", ("going_to",)), ("Where should we go on vacation?", ()),
        ("Where did I go for lunch?", ()),
        ("我去哪里玩比较好？", ()), ("我明天去哪里玩？", ()),
        # the food the user refuses: the denied triples of eats, the foods disliked (a denied likes naming a food),
        # with the allergies and conditions
        ("Which food do I avoid?", REFUSED), ("Is there anything I refuse to eat?", REFUSED),
        ("What don't I eat?", REFUSED), ("我忌口什么？", REFUSED), ("有什么东西是我不吃的？", REFUSED),
        ("我不吃什么？", (*REFUSED, DIET)),
        # a diet: the is_a naming one (vegetarian, 素食者), not any is_a
        ("What's my diet?", (DIET,)), ("Am I still vegetarian?", (DIET,)), ("Do I eat meat?", (DIET,)),
        ("我吃素吗？", (DIET,)), ("我还吃肉吗？", (DIET,)), ("What do I eat for breakfast?", ()),
        # a sibling by age, the office
        ("What's my older brother's name?", ("brother",)),
        ("What does my little sister do for work?", ("sister",)),
        ("Which part of town is my office in?", ("works_at",)),
        ("Where do I commute to every day?", ("works_at",)),
        # how long or which way to work or school: the way, where from and where to
        ("How long does it take me to get to work?", COMMUTE),
        ("How long will my commute take tomorrow?", COMMUTE),
        ("What time should I leave home for work tomorrow?", COMMUTE),
        ("Which route is best to work in the snow?", COMMUTE),
        ("冬天下雪的话我上班开车要多久，走哪条路", COMMUTE),
        ("明早几点出门能赶上九点的会？", COMMUTE),
        ("我去学校要多久", COMMUTE),
        ("How long should I rest before going back to work?", ()),
        ("how long is the flight to Paris?", ()),
        ("What time should I leave tomorrow?", ()),  # for what: not said
        ("他明早几点出门", ()),  # someone else's
        ("我每天去哪里上班？", ("works_at",)), ("我上班的地方在哪个区？", ("works_at",)),
        ("我去哪儿上班比较好？", ("works_at",)),  # advice on where to work still asks for where one works
        ("Where is home for me these days?", ("lives_in",)), ("Where do I call home now?", ("lives_in",)),
        ("Where is home depot?", ()), ("Where is the home button?", ()),
        # phrasings of the same two asked nowhere in the eval
        ("Which city is home now?", ("lives_in",)), ("What city do I call home?", ("lives_in",)),
        ("我现在在哪儿上班？", ("works_at",)), ("我平时在哪上班？", ("works_at",)), ("我公司在哪个区？", ("works_at",)),
        ("Which city is home to the Louvre?", ()), ("我朋友在哪上班？", ()),
        # not the speaker's own fact, or no slot a question can name
        ("What do you know about Paris?", ()),
        ("Tell me about black holes", ()),
        ("Where is the Eiffel Tower?", ()),
        ("Where do penguins live?", ()),
        ("What's the capital of France?", ()),
        ("What do I like to eat?", ()),
        ("my number one priority is sleep", ()),
        ("北京在哪里", ()),
        # spoken 啥 / 咋 read as 什么 / 怎么
        ("填个表 我是做啥工作的来着", ("works_at", OCCUPATION)), ("考完试想犒劳下自己 吃啥", FOOD_ADVICE),
        # an open preference is no food advice, in standard words or spoken ones
        ("我平时喜欢吃啥？", ()), ("我喜欢吃什么？", ()), ("我爱吃什么", ()),
        # something near the user: where they live says where that is
        ("Is there a decent dentist close to where I live?", ("lives_in",)), ("Any good brunch places around me?",
                                                                              ("lives_in",)),
        ("find me a daycare near home", ("lives_in",)), ("我家附近有没有好的牙医", ("lives_in",)),
        ("周末附近有什么好玩的", ("lives_in",)), ("What's the weather like in Paris?", ()),
        # (what is good to eat near the Forbidden City asks food advice, not where the user lives)
        ("故宫附近有什么好吃的", FOOD_ADVICE), ("公司附近有健身房吗", ()), ("我这边网络不好", ()), ("周边游推荐", ()),
        ("Which city has the best food?", ()),
        # the 我 chat leaves out before a partner or a spouse, not someone else's
        ("去看男朋友要带啥衣服 那边天气怎么样", ("partner",)), ("老公生日送什么好", ("spouse",)),
        ("她男朋友是谁", ()), ("朋友的男朋友", ()), ("老公公的生日", ()),
        # traditional characters as simplified
        ("我住的地方附近有什麼好吃的", ("lives_in",)), ("我對什麼過敏", ("allergic_to",)), ("我的寵物叫什麼", ("pet",)),
        # a pet by its kind, as the extraction names pets; a kind said in general asks for no one's
        ("帮我给家里的仓鼠买点零食，写上它的名字", ("pet",)), ("我家柯基最近不爱吃饭", ("pet",)),
        ("Is my hamster too fat?", ("pet",)), ("What do hamsters eat?", ()), ("仓鼠能活几年", ()),
        # the youngest of the family, unnamed: a child's or a grandchild's
        # (asked for a relative first, no request for food advice as is_food_advice reads it: no liking either)
        ("I want to bake something for the little one's birthday", ("child", "grandchild", *FOOD_ADVICE[:-2])),
        ("something sweet that I can eat", FOOD_ADVICE), ("Can you bake bread without yeast?", ()),
        ("我家娃最近不爱吃饭", ("child",)), ("How do little ones learn to talk?", ()),
    ],
)
def test_asked_slots(question: str, slots: tuple[str, ...]) -> None:
    assert asked_slots(question) == slots


P = ScoringParams(sim_floor=0.2, sim_ceiling=0.4, gate_similarity=0.22, gate_similarity_general=0.35,
                  min_relative_relevance=0.15)


def _c(id_: str, text: str, cosine: float, **kw: object) -> Candidate:
    return Candidate(id=id_, text=text, cosine=cosine, hours=24.0, weight=0.5, dense_rank=1, **kw)  # type: ignore[arg-type]


def test_a_memory_stating_the_asked_fact_opens_the_gate_and_ranks_first() -> None:
    question = "Where do I live?"
    moved = _c("moved", "Big news: we moved to Seattle last month.", 0.11, answers=("lives_in",))
    other = _c("other", "Lily started piano lessons on Saturdays.", 0.10)
    without = gate([replace(moved, answers=()), other], question, terms(question), P)
    assert without.gated  # the same memories, but none said to state the fact: nothing relates
    decision = gate([moved, other], question, terms(question), P)
    assert not decision.gated and "lives_in" in decision.reason
    scored = score_candidates([moved, other], question, terms(question), P)
    assert [s.candidate.id for s in scored] == ["moved"]  # the unrelated one is below the relative cut
    assert scored[0].scores.relevance == pytest.approx(P.slot_share)
    assert "states the user's lives_in" in scored[0].why


def test_a_stated_fact_outranks_a_memory_sharing_the_questions_one_word() -> None:
    """"What's my job?" has one term, so a memory holding "job" covers all of it (text_share): the memory stating
    the job (works_at) must still come first, at default settings."""
    question = "What's my job?"
    defaults = ScoringParams()
    assert defaults.slot_share > defaults.text_share
    moved = _c("moved", "Hi! I'm Mei, I just moved from Chengdu to Beijing for a new job.", 0.26, text_rank=1)
    works = _c("works", "Actually I now work at Alibaba, I left ByteDance last week.", 0.25, answers=("works_at",))
    scored = score_candidates([moved, works], question, terms(question), defaults)
    assert [s.candidate.id for s in scored] == ["works", "moved"]
    assert scored[0].scores.relevance > scored[1].scores.relevance



def test_the_users_own_fact_outranks_someone_elses_told_today() -> None:
    """Both past the similarity ceiling (relevance 1), the dad's dose told an hour ago is fresher than the user's
    own told 40 days ago: asked for the user's own, the memory stating it comes first, the dad's after it (final x
    others_factor, said in why); asked about the dad, freshness decides as before."""
    question = "How much metformin do I take?"
    own = Candidate(id="own", text="I take metformin 500 mg twice a day.", cosine=0.65, hours=960.0, weight=0.5,
                    dense_rank=2, answers=("takes_dose",))
    dad = Candidate(id="dad", text="My dad's doctor increased his metformin to 1000 mg.", cosine=0.52, hours=1.0,
                    weight=0.5, dense_rank=1)
    before = score_candidates([own, dad], question, terms(question), P)
    assert [s.candidate.id for s in before] == ["dad", "own"]  # without own_fact: freshness decides
    scored = score_candidates([own, dad], question, terms(question), P, own_fact=True)
    assert [s.candidate.id for s in scored] == ["own", "dad"]
    assert "speaks of someone else" in scored[1].why and "speaks of someone else" not in scored[0].why
    assert scored[1].scores.final == pytest.approx(before[0].scores.final * P.others_factor)
    # no memory states the user's own: nothing to prefer, the dad's keeps its score
    alone = score_candidates([dad], question, terms(question), P, own_fact=True)
    assert alone[0].scores.final == pytest.approx(before[0].scores.final)


@pytest.mark.parametrize(("question", "own"), [
    ("How much metformin do I take?", True),
    ("What am I allergic to?", True),
    ("我现在吃多少毫克二甲双胍？", True),
    ("How much metformin does my dad take?", False),  # father: the family's
    ("Is my son allergic to anything?", False),  # a person named
    ("What should I cook tonight?", False),  # food advice: a child's allergy constrains it too
    ("What's the weather like?", False),  # no slot
])
def test_asks_own_fact(question: str, own: bool) -> None:
    assert asks_own_fact(asked_slots(question), question) is own


@pytest.mark.parametrize(("text", "others"), [
    ("My dad's doctor increased his metformin to 1000 mg.", True),
    ("My son is allergic to peanuts.", True),
    ("She started taking vitamin D.", True),
    ("我爸的医生把他的二甲双胍加到了1000毫克。", True),
    ("我女儿对花生过敏。", True),
    ("My son and I are both allergic to peanuts.", False),  # the user too
    ("My doctor increased my metformin to 1000 mg.", False),  # the user's own doctor: no one else
    ("I take metformin 500 mg twice a day.", False),
    ("我每天吃二甲双胍500毫克。", False),
    ("我和我妈都对青霉素过敏。", False),
])
def test_about_someone_else(text: str, others: bool) -> None:
    assert about_someone_else(text) is others


def test_a_job_question_asks_for_an_occupation_not_any_is_a() -> None:
    """"What's my job?" reads is_a triples, and keeps as answers only the memories naming a job: "I'm a
    vegetarian" (is_a vegetarian) answers nothing there, 我是一名软件工程师 does; "Who am I?" takes any is_a."""
    job = asked_slots("do you remember my job?")
    assert job == ("works_at", OCCUPATION) and stored_predicates(job) == ("works_at", "is_a")
    assert answered(job, ("is_a",), ("user", "vegetarian")) == ()
    assert answered(job, ("is_a",), ("user", "软件工程师")) == ("is_a",)
    assert answered(job, ("works_at", "is_a"), ("user", "上海", "pescatarian")) == ("works_at",)
    about_me = asked_slots("who am I?")
    assert "is_a" in about_me and answered(about_me, ("is_a",), ("user", "vegetarian")) == ("is_a",)
    both = asked_slots("who am I and what's my job?")
    assert answered(both, ("is_a",), ("user", "vegetarian")) == ("is_a",)
    assert stored_predicates(both).count("is_a") == 1


def test_a_former_job_question_reads_the_job_held_no_longer() -> None:
    """帮我写写我以前的工作 after 退休前是北京第二机床厂的工程师 (works_at and is_a, both denied): the denied
    triples answer, an occupation's only ("I'm not a vegetarian any more" is no former job)."""
    former = asked_slots("帮我写写我以前的工作")
    assert former == FORMER_JOB
    assert stored_predicates(former) == ("works_at", "is_a", "not works_at", "not is_a")
    assert answered(former, ("not works_at", "not is_a"), ("user", "北京第二机床厂", "工程师")) == (
        "not works_at", "not is_a")
    assert answered(former, ("not is_a",), ("user", "vegetarian")) == ()
    assert "not is_a" not in stored_predicates(asked_slots("What's my job?"))  # the job now: affirmed only


@pytest.mark.parametrize(("question", "asks"), [
    ("朋友家新养了只布偶 叫我去玩 能去不", True), ("我想养只猫", True), ("周末想去猫咖", True),
    ("Should we adopt a puppy?", True), ("my friend's new kitten is so cute, can I visit?", True),
    ("Can I pet-sit for a neighbour?", True), ("想去一家宠物咖啡馆拍一期视频，你觉得怎么样？", True),
    ("my cat is sick", False), ("我的猫不吃饭", False), ("What do cats eat?", False),
    ("My neighbour's dog keeps barking", False),
])
def test_an_animal_met_or_taken_in_asks_for_an_allergy_to_animals(question: str, asks: bool) -> None:
    """朋友家新养了只布偶 叫我去玩 能去不 had no slot: 我猫毛过敏 answers it however far its words are."""
    assert (ANIMAL_ALLERGY in asked_slots(question)) is asks


def test_an_animal_allergy_answers_an_animal_question_and_constrains_it() -> None:
    asked = asked_slots("我想养只猫")
    assert stored_predicates(asked) == ("allergic_to",)
    assert answered(asked, ("allergic_to",), ("user", "猫毛")) == ("allergic_to",)
    assert answered(asked, ("allergic_to",), ("user", "dog dander")) == ("allergic_to",)
    assert answered(asked, ("allergic_to",), ("user", "花生")) == ()  # no peanut in a cat
    # a constraint on the answer, like food advice's: a partner's cat allergy is no one else's business to damp
    assert constrains_answer(asked) and not asks_own_fact(asked, "我想养只猫")
    assert constrains_answer(asked_slots("Any dinner ideas?"))
    assert not constrains_answer(asked_slots("What's my job?"))


# a medicine asked for: what the user is allergic to, their conditions and the medicines they take decide it (a drug
# allergy, warfarin and ibuprofen), no food slot though it says 吃什么 (the back pain's 吃点啥药好 read as food advice)
MEDICINE_ADVICE = ("allergic_to", "has_condition", "takes_dose")


@pytest.mark.parametrize(("question", "slots"), [
    ("腰又疼了 吃点啥药好", MEDICINE_ADVICE), ("头疼吃什么药", MEDICINE_ADVICE),
    ("感冒了吃哪种感冒药好", MEDICINE_ADVICE),
    ("我能吃点止痛药吗", MEDICINE_ADVICE), ("What medicine should I take for my back?", MEDICINE_ADVICE),
    ("what painkillers can I take", MEDICINE_ADVICE),
    # the medicines the user takes: their own fact, as before
    ("我在吃什么药", ("takes_dose",)), ("What meds am I on?", ("takes_dose",)),
    # food still
    ("感冒了吃点什么好", FOOD_ADVICE), ("晚饭吃什么", FOOD_ADVICE), ("要吃点药吗", ()),
])
def test_a_medicine_asked_for_is_no_food_advice(question: str, slots: tuple[str, ...]) -> None:
    assert asked_slots(question) == slots


def test_a_medicine_asked_for_is_constrained_by_every_allergy() -> None:
    """The allergies, conditions and medicines taken constrain the medicine (no bar for the rest, no own fact asked);
    a drug allergy answers it, which food advice leaves out."""
    asked = asked_slots("腰又疼了 吃点啥药好")
    assert constrains_answer(asked) and not asks_own_fact(asked, "腰又疼了 吃点啥药好")
    assert answered(asked, ("allergic_to",), ("user", "青霉素")) == ("allergic_to",)
    assert answered(asked, ("takes_dose",), ("user", "takes_dose:华法林")) == ("takes_dose",)


def test_a_diet_question_asks_for_a_diet_not_any_is_a() -> None:
    """"What's my diet?" was gated after "so I guess I'm pescatarian now" (cosine under the gate, no slot)."""
    diet = asked_slots("What's my diet?")
    assert diet == (DIET,) and stored_predicates(diet) == ("is_a",)
    assert answered(diet, ("is_a",), ("user", "pescatarian")) == ("is_a",)
    assert answered(diet, ("is_a",), ("user", "素食者")) == ("is_a",)
    assert answered(diet, ("is_a",), ("user", "nurse")) == ()
    assert answered(asked_slots("What's my job?"), ("is_a",), ("user", "pescatarian")) == ()


def test_food_advice_asks_for_allergies_a_meal_may_hold() -> None:
    """"Recommend a restaurant" brought "I'm allergic to penicillin" (and not the shellfish allergy)."""
    food = asked_slots("Recommend a restaurant for us tonight in Portland.")
    assert answered(food, ("allergic_to",), ("user", "penicillin")) == ()
    assert answered(food, ("allergic_to",), ("user", "花粉")) == ()
    assert answered(food, ("allergic_to",), ("user", "shellfish")) == ("allergic_to",)
    assert answered(food, ("allergic_to",), ("user", "penicillin", "peanuts")) == ("allergic_to",)
    # asked for the allergies themselves, every one answers
    assert answered(asked_slots("Am I allergic to anything?"), ("allergic_to",), ("user", "penicillin")) == (
        "allergic_to",)


def test_spoken_how_asks_what_to_do() -> None:
    assert asks_what_to_do("睡不着咋办")
    assert asks_what_to_do("睡不着怎么办")
    assert not asks_what_to_do("我咋没想到")
    # what something of the user's should be is advice too
    assert asks_what_to_do("What should my LinkedIn headline say about what I do these days?")
    assert not asks_what_to_do("What does my LinkedIn headline say?")


def test_terms_keep_the_characters_written() -> None:
    # full-text terms are matched against the stored text, which keeps the user's characters
    assert "這個" in terms("這個蛋糕")


@pytest.mark.parametrize(("asked", "people"), [
    (("child",), ("child",)),
    (("colleague", "reply_style"), ("colleague",)),  # how to answer aside
    (FAMILY, FAMILY),
    (("child", "lives_in"), ()),  # the user's own home asked too
    (("allergic_to",), ()),
    ((), ()),
])
def test_people_asked(asked: tuple[str, ...], people: tuple[str, ...]) -> None:
    assert people_asked(asked) == people


@pytest.mark.parametrize(("question", "done"), [
    ("What did I do?", True), ("What did I do yesterday?", True), ("What have I been up to?", True),
    ("What did we do last weekend?", True), ("我做了什么？", True), ("我最近都干了些什么", True),
    ("What did I do for a living?", False), ("What did I do before I retired?", False), ("What do I do?", False),
    ("我是做什么的？", False), ("我以前是做什么的？", False),
])
def test_what_the_user_did_is_no_fact_of_theirs(question: str, done: bool) -> None:
    """"What did I do?" lay closest by meaning to 我是做什么工作的 and asked for the job; the job's past and present
    questions stay the job's."""
    assert asks_what_was_done(question) is done
