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

from ingest.lexicon import HAN, PLAN_RE, about_someone_else

DOSE_PREDICATE = "takes_dose"
COMMUTE_PREDICATE = "commutes_by"
PHONE_PREDICATE = "uses_phone"
CAR_PREDICATE = "drives"
TEAM_PREDICATE = "on_team"
CHILDREN_PREDICATE = "number_of_children"
LAPTOP_PREDICATE = "uses_laptop"
CAMERA_PREDICATE = "uses_camera"
# A routine that holds one way or time at a time, keyed by what it is ("bedtime: 10", "gym: tue thu", "shift:
# day", "lunch: packed"): the object is "<routine>: <value>" and each routine is its own slot (routine_of).
ROUTINE_PREDICATE = "has_routine"
# Who serves the user, one of each kind at a time: "carrier: T-Mobile", "bank: Chase", "gp: Dr. Nguyen" (the object
# "<kind>: <name>", each kind its own slot, routine_of)
PROVIDER_PREDICATE = "has_provider"

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
# A doctor's switch to another medicine: "My cardiologist took me off lisinopril and put me on amlodipine 5 mg",
# "started me on metformin 500 mg" (the doctor's, said of "me"; not one they only might make, WISHED_RE)
_DOSE_SWITCH_EN = (
    re.compile(rf"(?i:\b(?:put|started|switched|moved|changed) me (?:on|to|over to)) (?P<m>{_MEDICINE_EN}),? "
               rf"(?P<d>{_AMOUNT_EN})"),
    re.compile(rf"(?i:\b(?:put|started|switched|moved|changed) me (?:on|to|over to)) (?P<d>{_AMOUNT_EN}) (?i:of) "
               rf"(?P<m>{_MEDICINE_EN})"),
)
# A change only thought of or asked about: "wants to put me on statins", "might take me off lisinopril", "Should I
# quit smoking?", 我想改喝茶 (the conflict rules read it too)
WISHED_RE = re.compile(r"(?i)\b(?:want|wants|wanted|might|may|could|would|will|'ll|should|hope|hoping|wish|try to"
                       r"|trying to|going to(?! (?:bed|sleep|the gym)\b)|thinking|considering"
                       r"|if|whether|talk(?:ed|ing)? about|suggest(?:ed|s)?|plan(?:s|ning)? to)\b|[?？]"
                       r"|想|打算|准备|计划|要不要|考虑|或许|也许|可能")
_DOSE_ZH = (
    # 我每天早上吃二甲双胍500毫克 / 我在服用左甲状腺素50微克
    re.compile(rf"我(?:现在|目前|每天|每晚|早上|晚上|一直|在|都)*(?:吃|服用|服|打)(?P<m>[{HAN}A-Za-z]{{2,8}}?)"
               rf"(?:每次|每天|一次)?(?P<d>{_AMOUNT_ZH})"),
    # 医生把我的二甲双胍加到了每天1000毫克 / 我的胰岛素调到了24单位
    re.compile(rf"我的(?P<m>[{HAN}A-Za-z]{{2,8}}?)(?:的?(?:剂量|药量|用量))?(?:已经)?(?:加到|减到|调到|调整到|增加到|减少到|"
               rf"改成|改为|换成)了?(?:每天|每次|一次)?(?P<d>{_AMOUNT_ZH})"),
)
# A medicine taken, its dose unsaid: "I take warfarin, so my doctor watches what I eat", "I'm on rosuvastatin",
# 我现在吃着氨氯地平 (a drug by the ending of its kind, _DRUG_EN_RE / _MEDICINE_ZH: not "I'm on Facebook", 吃着火锅)
_UNDOSED_EN = re.compile(rf"(?i:\bi(?:'m| am|'ve been| have been)? {_ADVERBS_EN}(?:take|taking|on))"
                         rf" (?P<m>{_MEDICINE_EN})\b")
# A pill counted, of a medicine named by the ending of its kind (阿托伐他汀, 氨氯地平, 二甲双胍, 胰岛素):
# 我每天晚上吃一片阿托伐他汀 (a count with no medicine ending, 吃一片面包, is no dose); the name holds no particle or
# pronoun (血脂正常了阿托伐他汀 names 阿托伐他汀)
_MEDICINE_ZH = (r"[^\W\dA-Za-z_了的是说在把吃我你他她们和就都也要不没再]{0,6}?(?:他汀|沙坦|普利|地平|洛尔|双胍|胰岛素"
                r"|甲状腺素|霉素|西林|拉唑|替丁|褪黑素|阿司匹林|布洛芬|华法林|氯吡格雷)")
_COUNT_ZH = r"[一两二三四\d](?:片|粒|颗)"
_UNDOSED_ZH = re.compile(rf"我(?:现在|目前|每天|每晚|早上|晚上|一直|在|都|还)*(?:吃|服用|服)着?(?!{_COUNT_ZH})"
                         rf"(?P<m>{_MEDICINE_ZH})")
# (the 我 chat drops at a clause's start too: 我没有糖尿病 就是高血压 每天早上吃一片氨氯地平)
_COUNTED_DOSE_ZH = re.compile(rf"(?:我|^|(?<=[\s，,。；]))(?:现在|目前|每天|每晚|早上|晚上|一直|在|都)*(?:吃|服用|服)"
                              rf"(?P<d>{_COUNT_ZH})"
                              rf"(?P<m>{_MEDICINE_ZH})")
# A medicine the user stopped for good, said by name: "took me off lisinopril", "I stopped taking melatonin", "I
# don't need the melatonin anymore", 阿托伐他汀不用再吃了, 我停了氨氯地平 (ends the dose said before; not "for a
# week", "before the surgery", not someone else's, not a thought of it)
_STOPPED_MEDICINE_EN = re.compile(
    rf"(?i:\b(?:took|taken|take|taking) me off (?:of )?(?:my |the )?)(?P<m>{_MEDICINE_EN})"
    rf"|(?i:\bi(?:'ve| have)? (?:finally |just |already |completely )?(?:stopped|quit) taking (?:my |the )?)"
    rf"(?P<m2>{_MEDICINE_EN})"
    rf"|(?i:\bi (?:don't|do not) (?:need|take) (?:my |the )?)(?P<m3>{_MEDICINE_EN})(?i: (?:anymore|any more)\b)"
    rf"|(?i:\bi(?:'m| am) no longer (?:on|taking) (?:my |the )?)(?P<m4>{_MEDICINE_EN})"
)
_STOPPED_MEDICINE_ZH = re.compile(
    rf"(?P<m>{_MEDICINE_ZH})(?:已经|就|可以)?(?:不用再?吃了|不用再?服用?了|不再吃了|不吃了|停了|停掉了|可以停了)"
    rf"|我(?:已经|现在)?(?:停了|停掉了|不再吃|停用了)(?P<m2>{_MEDICINE_ZH})"
)
# a drug by the ending of its kind, or a brand name: not "took me off the waitlist"
_DRUG_EN_RE = re.compile(r"(?i)(?:pril|sartan|olol|statin|dipine|formin|azole|tidine|cillin|mycin|cycline|oxetine"
                         r"|traline|pram|azepam|azolam|sone|lone|tonin|sulin|pirin|profen|gliptin|glutide|flozin|xine"
                         r"|done|pine|zide|mide|rone|thyroxine|arin|fil)$")
_NOT_FOR_GOOD_RE = re.compile(r"(?i)\b(?:for (?:a|the|now|this|\d+|one|two|three)|before (?:the |my )?\w+|until"
                              r"|till|today|tonight|this week)\b|暂时|这几天|这周|手术前|先停")
_OTHERS_MEDICINE_RE = re.compile(r"(?i)\b(?:my (?:mom|mum|mother|dad|father|wife|husband|son|daughter|kid|grandma"
                                 r"|grandpa|partner|sister|brother)|his|her|their|he|she)\b|我妈|我爸|他|她|孩子|老公|老婆")
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
_PHONE_MODEL = (r"(?:iPhone|Pixel|Galaxy|Samsung|OnePlus|Xiaomi|Redmi|Huawei|Honor|Motorola|Moto|Nokia|Xperia"
                r"|Nothing Phone|华为|小米|荣耀|OPPO|vivo|一加|苹果)(?:[ -]?[\w+]{1,12}){0,3}")
_CAR_MODEL = (r"(?:(?:19|20)\d\d )?(?:Honda|Toyota|Tesla|Model [3SXY]|Ford|Chevy|Chevrolet|BMW|Audi|Mercedes|VW"
              r"|Volkswagen|Subaru|Mazda|Kia|Hyundai|Nissan|Jeep|Volvo|Lexus|Prius|Civic|Corolla|Camry|RAV4"
              r"|Porsche|Rivian|Polestar|Peugeot|Citroen|Citroën|Renault|Fiat|Vauxhall|Skoda|Dacia|Transit|Berlingo"
              r"|Sprinter|Vivaro|Hiace|Kangoo|ProMaster"
              r"|大众|丰田|本田|比亚迪|特斯拉|宝马|奔驰|奥迪|蔚来|理想|小鹏|吉利|长城|哈弗"
              r"|朗逸|帕萨特|卡罗拉|凯美瑞|雅阁|思域|轩逸)(?:[ -]?[\w]{1,12}){0,3}")
# (a gift counts: "Eli got me an iPhone for my birthday"; "I've gone and got an iPhone now"; "my new phone is a ...")
_PHONE_EN = re.compile(rf"(?i:\b(?:i|we)(?:'ve| have)?(?: just| finally| now)?(?: gone and)? (?:use|using|have|got"
                       rf"|bought|switched to|upgraded to|carry)(?: an?| the| my| a new)?|\bgot me (?:an?|a new)"
                       rf"|\b(?:on|with|from) (?:this|my)(?: old| new)?(?= \S+(?: \S+)? phone\b)"
                       rf"|\bmy (?:new )?(?:phone|cell|mobile) is(?: an?)?) (?P<x>{_PHONE_MODEL})")
_PHONE_ZH = re.compile(rf"(?:我用的是|我的手机是|手机换成了?|换了(?:一部|个|部)?(?:新的)?|我用|买了(?:一部|个|部)?)"
                       rf"(?P<x>{_PHONE_MODEL})")
# (chat drops the I: "got a little electric Berlingo for deliveries")
_CAR_EN = re.compile(rf"(?i:(?:\b(?:i|we)(?:'ve| have)?(?: just| finally| now)? |^(?:just |finally )?)(?:drive|own"
                     rf"|have|got|bought|switched to|leased|picked up|traded (?:it |\w+ )?in for)"
                     rf"(?: an?| the| my| our| a new)?"
                     rf"(?: (?:little|small|big|new|used|second-hand|secondhand|electric|hybrid|white|black|red|blue"
                     rf"|silver|grey|gray))*"
                     rf"|\bmy (?:new )?car is(?: an?| the)?) (?P<x>{_CAR_MODEL})")
# "We sold the Civic and got a Model 3": the new car after the sale of the old
_CAR_AFTER_SALE_EN = re.compile(rf"(?i:\b(?:sold|traded in) (?:the |our |my )?[\w -]{{1,20}}? and (?:got|bought|leased)"
                                rf"(?: an?| a new)?) (?P<x>{_CAR_MODEL})")
# Laptops by model: "I work on a ThinkPad X1 Carbon", "My company gave me a MacBook Pro" (the user's own, the one
# they work on; not one for home or a second one, single_valued_conflict)
_LAPTOP_MODEL = (r"(?:ThinkPad|MacBook(?: Air| Pro)?|Surface (?:Laptop|Pro|Book)|Dell XPS|XPS|Chromebook|ZenBook"
                 r"|Zenbook|IdeaPad|Latitude|Legion|Razer Blade|Framework Laptop|MateBook|华为MateBook|联想小新|拯救者)"
                 r"(?:[ -]?[\w]{1,12}){0,3}")
# The user taking up or using a device ("I just got ...", "I've switched to ..."): the laptop's and the camera's verbs
# beside their own ("I work on", "I shoot on")
_I_TOOK_UP = r"i(?:'ve| have)?(?: just| finally| now)?"
_TOOK_UP_VERBS = r"use|using|have|got|bought|switched to|upgraded to"
_LAPTOP_EN = re.compile(rf"(?i:\b(?:{_I_TOOK_UP} (?:work on|{_TOOK_UP_VERBS})|\bmy (?:laptop|computer|work laptop) is"
                        rf"|\b(?:my (?:company|employer|job|boss|office)|work|they|it) (?:gave|issued|handed) me)"
                        rf"(?: an?| the| my| a new)?) (?P<x>{_LAPTOP_MODEL})")
_LAPTOP_ZH = re.compile(rf"(?:我用的是|我的电脑是|我的笔记本是|电脑换成了?|笔记本换成了?|公司给我配了?(?:一台)?)"
                        rf"(?P<x>{_LAPTOP_MODEL})")
# Cameras by maker and model: "I shoot on a Canon R5", 我用的是佳能5D4, 入了索尼A7M4 (a model names a body: a digit or a
# Roman numeral in it; "a Sony TV" or "Canon ink" are no camera)
_CAMERA_MODEL = (r"(?:Canon|Sony|Nikon|Fujifilm|Fuji|Leica|Panasonic|Lumix|Olympus|OM System|Pentax|Hasselblad|Ricoh"
                 r"|佳能|索尼|尼康|富士|徕卡|松下|奥林巴斯|宾得|哈苏|理光)"
                 r"(?:[ -]?(?:EOS|Alpha|Lumix))?[ -]?(?=[\w -]{0,8}(?:\d|\b(?:II|III|IV)\b))[\w-]{1,12}"
                 r"(?: (?:Mark )?(?:III|II|IV|\d+)\b)?")
_CAMERA_EN = re.compile(rf"(?i:\b(?:{_I_TOOK_UP} (?:shoot (?:on|with)|{_TOOK_UP_VERBS}|picked up)"
                        rf"|\bmy (?:camera|body|main body) is)"
                        rf"(?: an?| the| my| a new| a used| a second-hand)?) (?P<x>{_CAMERA_MODEL})")
_CAMERA_ZH = re.compile(rf"(?:我用的是|我的相机是|相机换成了?|换了(?:一台|台)?|入了(?:一台|台)?|买了(?:一台|台)?"
                        rf"|我用)(?P<x>{_CAMERA_MODEL})")
# A thing for a camera, or of its maker, no camera: "a Canon battery", 索尼的镜头, "a Sony TV"
_NOT_A_CAMERA_RE = re.compile(r"(?i)\b(?:lens|lenses|battery|batteries|charger|strap|bag|case|card|tripod|flash"
                              r"|printer|ink|tv|headphones|earbuds|speaker|phone|xperia|playstation|ps\d)\b"
                              r"|镜头|电池|充电器|背带|相机包|存储卡|三脚架|闪光灯|打印机|电视|耳机|手机")
_NOT_HAD_RE = re.compile(r"(?i)\b(?:don't|do not|never|no longer|not|want|wants|would|might|thinking|considering)\b"
                         r"|不|没|想|打算")
# (提了: took delivery of a car bought, 提车; the clause's subject may be dropped: 最后提了比亚迪汉)
_CAR_ZH = re.compile(rf"(?:我开(?:的是)?|我家的车是|我的车是|新车是|换了一辆|买了一辆|提了(?:一?辆)?|我们开)(?:一辆)?"
                     rf"(?P<x>{_CAR_MODEL})")
_MODEL_TAIL = re.compile(r"(?i)\s+(?:last|this|next|yesterday|today|now|and|but|because|since|for|from|to|instead"
                         r"|already|too|as)\b.*$|(?<!nothing)\s+phone\b.*$|了$")  # "this Samsung phone"


# The team or department the user is in at work, by its name ("I'm on the payments team", "I got moved to the fraud
# detection team", 我在公司的市场部, 从三月份起我调到了销售部): one at a time, so a move replaces the old one. Only the
# user's own ("My colleague got moved to ..." and 我同事调到了 open with someone else), said as done: "I might switch
# teams", "I'm moving to the X team next month" read none. Not a sports or school team ("I'm on the soccer team"),
# nor "the same / new / other team", which names none.
_TEAM_EN = re.compile(
    r"(?i:(?P<be>\bi(?:'m| am))(?: now| currently| still)? (?:on|(?P<in>in|part of))"
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
    r"|hiking|climbing|community|neighbou?rhood|parent|pta|fantasy|e?sports|gaming|relay|dragon boat)\b")
# A hospital's or a shop's department one is in for the day ("I'm in the emergency department with my son"): no team
# of the user's when they only are in it, theirs when they moved or were moved to it ("I just moved over to the
# paediatric pharmacy team").
_DEPARTMENT_VISITED_RE = re.compile(
    r"(?i)\b(?:emergency|accident|casualty|maternity|outpatient|inpatient|radiology|paediatric|pediatric|trauma|shoe"
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
# A thing for a laptop, no laptop: "a MacBook charger", "a ThinkPad dock"
_NOT_A_LAPTOP_RE = re.compile(r"(?i)\b(?:charger|case|sleeve|bag|stand|dock|docking|keyboard|mouse|sticker|skin"
                              r"|adapter|cable|battery|screen protector)\b|充电器|电脑包|支架|键盘|鼠标")
# What a laptop's or a camera's maker also names that is no laptop or camera (the phone and the car: _NOT_THE_THING_RE)
_NOT_A_DEVICE = {LAPTOP_PREDICATE: _NOT_A_LAPTOP_RE, CAMERA_PREDICATE: _NOT_A_CAMERA_RE}
# For someone else: "我给我爸买了一部华为Mate 60", "买了一辆小鹏给老婆", "I got my mom an iPhone"
# (not an occasion: "Eli got me an iPhone for my birthday" is the user's)
_FOR_SOMEONE_RE = re.compile(r"给|送给|(?i:\bfor (?:my|his|her|our) (?!birthday|bday|anniversary|christmas|graduation"
                             r"|retirement)\w+|\bgot (?:my|his|her) \w+ an?\b)")


# ----- routines with a time, days or a way: bedtime, waking, the shift, the gym's days, lunch ---------------------

_ADV_EN = r"(?:(?:usually|normally|always|generally|typically|now|mostly|often|still|just|tend to) )*"
# the hours said in words, as digits (the counts of children above, then eleven and twelve)
_NUMBER_WORDS = {**{w: str(i + 1) for i, w in enumerate((*_COUNTS, "eleven", "twelve"))}, "midnight": "12",
                 "noon": "12"}
_CLOCK_EN = (r"(?:\d{1,2}(?::\d{2})?(?:\s?(?:am|pm|a\.m\.|p\.m\.))?|midnight|noon|one|two|three|four|five|six|seven"
             r"|eight|nine|ten|eleven|twelve)(?:\s?o'clock)?")
_AT = r"(?: (?:at|around|by|about|before|between))+ "
_BEDTIME_EN = re.compile(rf"(?i:\bi(?:'ve been| have been)? {_ADV_EN}(?:go|going|get|getting|head|heading) to"
                         rf" (?:bed|sleep){_AT})(?P<t>{_CLOCK_EN})(?![\w:])")
# "... and wake up at 8": the same speaker, after their bedtime
_WAKE_EN = re.compile(rf"(?i:\b(?:i(?:'ve been| have been)?|and) {_ADV_EN}(?:wake up|wake|get up|waking up|getting up)"
                      rf"{_AT})"
                      rf"(?P<t>{_CLOCK_EN})(?![\w:])"
                      rf"|(?i:\bi (?:get to |can |now |usually )?sleep in (?:till|until|to) )"
                      rf"(?P<t2>{_CLOCK_EN})(?![\w:])")
_CLOCK_ZH = r"[零一二两三四五六七八九十\d]{1,3}点(?:半|\d{1,2}分?|[一二三四五]十分?)?"
_ADV_ZH = r"(?:一般|平时|通常|每天|每晚|都|现在|最近|基本上?|一直|总是|差不多|大概|这段时间|晚上|夜里|早上|早晨)*"
# said by the user (我), or with no subject at the clause's start after the user's own clause (早上七点起床)
_BEDTIME_ZH = re.compile(rf"(?:我|^){_ADV_ZH}(?P<t>{_CLOCK_ZH})(?:左右|多|以前|之前)?(?:就|才|准时)?"
                         rf"(?:睡觉|睡了|睡|上床)")
_WAKE_ZH = re.compile(rf"(?:我|^){_ADV_ZH}(?P<t>{_CLOCK_ZH})(?:左右|多)?(?:就|才|准时)?(?:起床|起来|醒)")
_SHIFTS = {"night": "night", "graveyard": "night", "overnight": "night", "day": "day", "morning": "early",
           "early": "early", "evening": "late", "late": "late", "swing": "late", "afternoon": "late",
           "夜班": "night", "大夜班": "night", "白班": "day", "早班": "early", "晚班": "late", "中班": "late"}
_SHIFT_EN = re.compile(r"(?i:\b(?:i(?:'m| am)? (?:(?:now|still|usually|currently|mostly|always) )?(?:work|working|on|do"
                       r"|doing)|(?:put|moved|switched|transferred) me (?:on|to|back to)|i (?:switched|moved|changed"
                       r"|went back|got moved) to) (?:the |a )?)(?P<s>night|day|morning|evening|early|late|graveyard"
                       r"|swing|overnight|afternoon)(?i: shifts?)\b")
_SHIFT_ZH = re.compile(r"我(?:现在|一直|都|平时|一般|已经)*(?:上|值|调到了?|改上|换到了?|改成了?)"
                       r"(?P<s>大夜班|夜班|白班|早班|晚班|中班)")
_DAY_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_GYM_EN = re.compile(rf"(?i:\bi(?:'ve been| have been)? {_ADV_EN}(?:(?:go|going|hit|hitting) (?:to )?the gym|work out"
                     rf"|working out|lift|lifting)(?: on| every)? |\bmy gym days are (?:now )?)"
                     rf"(?P<d>(?i:{_DAY_EN}(?:(?:,? and |, | & |/|,)(?:{_DAY_EN}))*))")
_DAY_ZH = r"(?:周|星期|礼拜)[一二三四五六日天](?:(?:和|、|跟|，)?(?:周|星期|礼拜)?[一二三四五六日天])*"
_GYM_ZH = re.compile(rf"(?:每周|每个?星期|每个?礼拜)(?P<d>[一二三四五六日天、和]+)(?:都|会)?去健身房"
                     rf"|我(?:每周|每个?星期)?(?:都)?(?P<d2>{_DAY_ZH})(?:都|会)?去健身房"
                     rf"|(?:去)?健身房(?:的)?(?:时间)?(?:改到|改成|换到|调到|改在|换成)了?(?:每周|每个?星期)?(?P<d3>{_DAY_ZH})")
_LUNCH_EN = re.compile(rf"(?i:\bi(?:'ve been| have been)? {_ADV_EN})(?:(?P<packed>(?i:bring|bringing|pack|packing) "
                       rf"(?i:my )?(?i:own )?lunch)|(?P<v>(?i:buy|buying|get|getting|grab|grabbing|eat|eating|have"
                       rf"|having)) (?i:my )?(?i:lunch)(?P<p> (?i:at|from|in) (?i:the |a )?(?i:cafeteria|canteen"
                       rf"|food court))?)\b")
# How much the user runs, swims or cycles: "I run 5k three times a week", "these days I run about 30 miles a week"
# (an amount and how often: "I run 5k" alone may be one run)
_EXERCISE_EN = re.compile(
    rf"(?i:\bi(?:'ve been| have been)? {_ADV_EN}(?P<v>run|running|jog|jogging|swim|swimming|cycle|cycling|bike"
    rf"|biking) (?:about |around |roughly |at least )?)(?P<a>\d+(?:\.\d+)?\s?(?i:k|km|kilometers?|kilometres?|miles?"
    rf"|mi|laps))(?P<f>(?i: (?:a|per|each|every) (?:day|week|month)| (?:once|twice|three times|four times|five times"
    rf"|\d+ times|\w+ times) (?:a|per) (?:day|week|month)))")
_EXERCISES = {"run": "running", "jog": "running", "swim": "swimming", "cycl": "cycling", "bik": "cycling"}
_LUNCH_ZH = re.compile(r"(?:中午|午饭|午餐)[^，。,.!！?？]{0,8}?(?:(?P<c>食堂吃)|(?P<p>带饭|带午饭|带便当)"
                       r"|(?P<t>点外卖|叫外卖))")
# A routine of some days or one time only ("I went to bed at 2 last night", "on Saturdays I sleep in till 10",
# 周末十一点起床, "I'm on the night shift this week"), or someone else's (my husband's shift, 儿子在食堂吃)
_NOT_THE_ROUTINE_RE = re.compile(
    r"(?i)\b(?:today|tonight|tomorrow|yesterday|last (?:night|year|month)|this (?:morning|week|weekend|month)"
    r"|next (?:week|month|year)|all (?:week|month)|weekends?|weeknights?|weekdays?|when|whenever|if|unless"
    r"|sometimes|occasionally|once|vacation|holidays?|extra|covering|cover|picked up|back then|as a kid"
    r"|in college)\b|今天|明天|昨天|今晚|昨晚|这周|本周|下周|这次|周末|有时|偶尔|如果|的时候|放假|假期|去年"
    r"|(?<![点半])(?:以前|之前)|过去|当年|那时|小时候|工作日")
_SOME_DAYS_RE = re.compile(rf"(?i)\b(?:on )?{_DAY_EN}\b|周[一二三四五六日天]|星期[一二三四五六日天]")
_OTHERS_ROUTINE_RE = re.compile(
    r"(?i)\b(?:my (?:mom|mum|mother|dad|father|wife|husband|son|daughter|kids?|children|partner|boyfriend"
    r"|girlfriend|roommate|friend|coworker|colleague|boss|sister|brother)|his|her|their|he|she)\b"
    r"|我妈|我爸|妈妈|爸爸|他|她|孩子|儿子|女儿|老公|老婆|同事|朋友|室友|爷爷|奶奶")
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_ZH_WEEKDAYS = {"一": "mon", "二": "tue", "三": "wed", "四": "thu", "五": "fri", "六": "sat", "日": "sun", "天": "sun"}


# ----- the team the user supports, one per league ------------------------------------------------------------------

SUPPORTS_TEAM_PREDICATE = "supports_team"
# Teams by league, a name in one league only (Giants, Cardinals, Rangers, Kings, Panthers and Jets are in two) and
# no other thing's (Jazz, Heat, Magic, Eagles, Saints, Spurs: a genre, a band, Tottenham or San Antonio)
_LEAGUES = {
    "nba": ("Hawks", "Celtics", "Nets", "Hornets", "Bulls", "Cavaliers", "Cavs", "Mavericks", "Mavs", "Nuggets",
            "Pistons", "Warriors", "Rockets", "Pacers", "Clippers", "Lakers", "Grizzlies", "Bucks",
            "Timberwolves", "Pelicans", "Knicks", "76ers", "Sixers", "Trail Blazers",
            "Blazers", "Raptors", "Wizards"),
    "nfl": ("Falcons", "Ravens", "Bills", "Bears", "Bengals", "Browns", "Cowboys", "Broncos", "Lions", "Packers",
            "Texans", "Colts", "Jaguars", "Chiefs", "Raiders", "Chargers", "Rams", "Dolphins", "Vikings", "Patriots",
            "Steelers", "49ers", "Niners", "Seahawks", "Buccaneers", "Bucs", "Titans",
            "Commanders"),
    "mlb": ("Diamondbacks", "Braves", "Orioles", "Red Sox", "Cubs", "White Sox", "Guardians", "Rockies",
            "Tigers", "Astros", "Royals", "Dodgers", "Marlins", "Brewers", "Mets", "Yankees",
            "Athletics", "Phillies", "Padres", "Mariners", "Rays", "Blue Jays", "Nationals"),
    "premier league": ("Arsenal", "Chelsea", "Liverpool", "Man United", "Manchester United", "Man City",
                       "Manchester City", "Tottenham", "Everton", "Newcastle", "Aston Villa",
                       "West Ham", "Brighton", "Wolves", "Fulham", "Brentford", "Crystal Palace", "Nottingham Forest",
                       "Bournemouth", "Leeds", "Leicester"),
}
_LEAGUE_OF = {team.lower(): league for league, teams in _LEAGUES.items() for team in teams}
_TEAM = "|".join(sorted((re.escape(t) for teams in _LEAGUES.values() for t in teams), key=len, reverse=True))
_SUPPORTED_TEAM_EN = re.compile(
    rf"(?i:\bi(?:'m| am) (?:now |still |also )?(?:an? )?(?:(?:huge|big|massive|die-?hard|lifelong|loyal|true) )*)"
    rf"(?P<t>{_TEAM})(?i: fan)\b"
    rf"|(?i:\bi(?:'m| am)? (?:now |still |also )?(?:root|rooting|cheer|cheering|pull|pulling) for (?:the )?)"
    rf"(?P<t2>{_TEAM})\b"
    rf"|(?i:\bi(?:'m| am)? (?:now |still |also )?(?:support|supporting) (?:the )?)(?P<t3>{_TEAM})\b"
    rf"|(?i:\bi(?:'m| am) (?:now |still |also )?(?:an? )?(?:(?:huge|big|massive|die-?hard|lifelong) )*fan of (?:the )?)"
    rf"(?P<t4>{_TEAM})\b")
_NOT_THE_TEAM_RE = re.compile(r"(?i)\b(?:when|whenever|if|against|tonight|today|this game|in this game|the game"
                              r"|for the (?:game|match|playoffs|series)|vs\.?|versus)\b")


def _the_users_own(clause: str, *not_so: re.Pattern[str]) -> bool:
    """The clause says what holds of the user: no wish, thought or question (WISHED_RE), no one else's
    (_OTHERS_ROUTINE_RE), nothing of the `not_so` patterns (one game, one flight, a second line...)."""
    return not any(p.search(clause) for p in (WISHED_RE, _OTHERS_ROUTINE_RE, *not_so))


def _supported_teams(clause: str) -> list[tuple[str, str]]:
    """The teams the user supports, as (SUPPORTS_TEAM_PREDICATE, "<league>: <team>"): one per league."""
    if not _the_users_own(clause, _NOT_THE_TEAM_RE):
        return []
    out: list[tuple[str, str]] = []
    for m in _SUPPORTED_TEAM_EN.finditer(clause):
        team = next(v for v in m.groupdict().values() if v)
        out.append((SUPPORTS_TEAM_PREDICATE, f"{_LEAGUE_OF[team.lower()]}: {team}"))
    return out


# ----- providers: the phone carrier, the bank, the doctor ---------------------------------------------------------

_CARRIERS_EN = (r"(?:Verizon|AT&T|T-Mobile|Sprint|Mint Mobile|Mint|Visible|Google Fi|Cricket(?: Wireless)?"
                r"|Boost(?: Mobile)?|Metro by T-Mobile|MetroPCS|US Cellular|Xfinity Mobile|Spectrum Mobile|Vodafone|EE"
                r"|O2|Giffgaff|Telstra|Optus|Rogers|Telus|Fido)")
_CARRIER_EN = re.compile(
    rf"(?i:\bmy (?:phone|cell|mobile|wireless)(?: phone)? (?:plan|carrier|provider|service|contract)(?: is|'s)"
    rf"(?: now)? (?:with |through |on )?)(?P<c>{_CARRIERS_EN})\b"
    rf"|(?i:\bi(?:'ve| have)? (?:just |finally )?(?:ported|moved|transferred|switched) (?:my (?:phone )?(?:number|line"
    rf"|plan|service) )?(?:over )?(?:to|from \S+ to) )(?P<c2>{_CARRIERS_EN})\b"
    rf"|(?i:\bi(?:'m| am) (?:now )?(?:with|on) )(?P<c3>{_CARRIERS_EN})\b(?! (?:plus|unlimited)\b)")
_CARRIER_ZH = re.compile(
    r"(?:我的)?(?:手机号码?|号码|手机卡|手机)(?:是|用的是)(?:中国)?(?P<c>移动|联通|电信|广电)(?:的)?"
    r"|我(?:已经)?把(?:手机)?(?:号码|号|手机号码?)(?:携号)?(?:转到|转成|换到|转网到|迁到)了?(?:中国)?(?P<c2>移动|联通|电信|广电)"
    r"|(?:携号转网|转网)(?:到|去|成)了?(?:中国)?(?P<c3>移动|联通|电信|广电)")
_NAME_EN = r"[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,3}"
_BANK_EN = re.compile(
    rf"(?i:\bi(?:'ve| have)? (?:now |still )?bank(?:ed)? with )(?P<b>{_NAME_EN})"
    rf"|(?i:\bmy bank is (?:now )?)(?P<b2>{_NAME_EN})"
    rf"|(?i:(?:\bi(?:'ve| have)?|\band) (?:just |finally )?(?:moved|switched|transferred) (?:all |everything"
    rf"|all my (?:money|accounts?|banking)|my (?:banking|accounts?|money))(?: over)? to )"
    rf"(?P<b3>(?i:(?:a |an |the )?(?:local )?credit union)|{_NAME_EN})"
    rf"|(?i:\bi(?:'ve| have)? switched banks,? (?:to )?)(?P<b4>{_NAME_EN})")
# "I closed my Chase account": the bank said before no longer serves the user
_CLOSED_BANK_EN = re.compile(rf"(?i:\bi(?:'ve| have)? (?:just |finally )?closed (?:my|our) )(?P<b>{_NAME_EN})"
                             rf"(?i: (?:bank |checking |savings )?accounts?)\b")
_DOCTOR_KINDS = r"GPs?|family doctors?|primary care (?:doctors?|physicians?)|PCPs?|doctors?|dentists?|therapists?"
_DOCTOR_NAME = r"Dr\.? [A-Z][a-z]+(?:[ -][A-Z][a-z]+)?"
_DOCTOR_EN = re.compile(rf"(?i:\bmy (?:new )?)(?P<k>(?i:{_DOCTOR_KINDS}))(?i: (?:is|'s)(?: now)? )"
                        rf"(?P<d>{_DOCTOR_NAME})")
# "I changed GPs, I see Dr. Nguyen now": the kind in the clause before, the doctor in this one
_CHANGED_DOCTOR_EN = re.compile(rf"(?i:\bi(?:'ve| have)? (?:just |finally )?(?:changed|switched) )(?P<k>(?i:"
                                rf"{_DOCTOR_KINDS}))\b")
_SEE_DOCTOR_EN = re.compile(rf"(?i:\b(?:i(?:'m| am)? (?:now )?(?:see|seeing|go to|going to)|my new one is|it's) )"
                            rf"(?P<d>{_DOCTOR_NAME})")
_NOT_THE_PROVIDER_RE = re.compile(r"(?i)\b(?:for (?:my|his|her|our) (?:mom|mum|dad|kids?|son|daughter|wife|husband"
                                  r"|parents)|for work|work (?:phone|line)|business|also|too|as well|second|another"
                                  r"|extra)\b|也|第二|副卡")


def _doctor_kind(said: str) -> str:
    k = said.lower().rstrip("s")
    return k if k in ("dentist", "therapist") else "gp"  # a GP, a family doctor, a PCP: the user's own doctor


def _providers(clause: str, before: str) -> list[tuple[str, str]]:
    """Who serves the user, as (PROVIDER_PREDICATE, "<kind>: <name>"); `before` is the clause before this one."""
    if not _the_users_own(clause, _NOT_THE_PROVIDER_RE):
        return []
    out: list[str] = []
    for m in (*_CARRIER_EN.finditer(clause), *_CARRIER_ZH.finditer(clause)):
        out.append(f"carrier: {m['c'] or m['c2'] or m['c3']}")
    for m in _BANK_EN.finditer(clause):
        out.append(f"bank: {re.sub(r'(?i)^(?:a|an|the|local) |^local ', '', m['b'] or m['b2'] or m['b3'] or m['b4'])}")
    for m in _DOCTOR_EN.finditer(clause):
        out.append(f"{_doctor_kind(m['k'])}: {m['d']}")
    changed = _CHANGED_DOCTOR_EN.search(clause) or (
        _CHANGED_DOCTOR_EN.search(before) if not (WISHED_RE.search(before) or _OTHERS_ROUTINE_RE.search(before))
        else None)
    if changed is not None:
        out.extend(f"{_doctor_kind(changed['k'])}: {m['d']}" for m in _SEE_DOCTOR_EN.finditer(clause))
    return [(PROVIDER_PREDICATE, o) for o in out]


def _clock_en(said: str) -> str:
    """A time said as the same value however written: "10pm", "10", "ten o'clock" -> 10; midnight -> 12."""
    s = re.sub(r"\s*(?:o'clock|a\.m\.|p\.m\.|am|pm)\s*$", "", said.lower().strip()).strip()
    return re.sub(r":00$", "", _NUMBER_WORDS.get(s, s))


def _zh_number(said: str) -> str:
    if said.isdigit():
        return str(int(said))
    digits = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
    if "十" in said:
        tens, _, ones = said.partition("十")
        return str(digits.get(tens, 1) * 10 + digits.get(ones, 0))
    return str(digits.get(said, 0))


def _clock_zh(said: str) -> str:
    """十二点 -> 12, 六点半 -> 6:30, 十点十分 -> 10:10: one time with the English form's value."""
    hour, _, minutes = said.partition("点")
    minutes = minutes.rstrip("分")
    if minutes == "半":
        return f"{_zh_number(hour)}:30"
    return f"{_zh_number(hour)}:{int(_zh_number(minutes)):02d}" if minutes else _zh_number(hour)


def _days(said: str) -> str:
    """The days of a weekly routine in week order, three letters each: "Tuesdays and Thursdays", 周二和周四 -> tue
    thu."""
    low = said.lower()
    found = {d for d in _WEEKDAYS if re.search(rf"\b{d}", low)} | {v for k, v in _ZH_WEEKDAYS.items() if k in said}
    return " ".join(d for d in _WEEKDAYS if d in found)


# The seat taken on a plane: "I always pick a window seat when I fly", "I've come around to aisle seats lately" (said
# of flying, so "when I fly" is no some-times; not "on this flight", not a thought)
_SEAT_EN = re.compile(r"(?i:\bi(?:'ve| have)? (?:(?:always|usually|normally|generally|now|just|still) )*(?:pick|choose"
                      r"|book|take|get|prefer|go for|come around to|switched to|moved to|gone over to)(?: an?| the)?) "
                      r"(?P<s>(?i:window|aisle))(?i: seats?)\b")
_SEAT_ZH = re.compile(r"我(?:坐飞机(?:时|的时候)?)?(?:一般|平时|总是|都|现在|最近|喜欢|习惯)*(?:选|订|坐|要)"
                      r"(?P<s>靠窗|靠过道|过道)(?:的)?(?:座位|位置|位子)?")
_NOT_THIS_FLIGHT_RE = re.compile(r"(?i)\b(?:this|next|tomorrow's|today's|my last|the last) (?:flight|trip)\b|\btoday"
                                 r"|\btomorrow|\bthis time\b|这次|今天|明天|下次")


def _seats(clause: str) -> list[tuple[str, str]]:
    """The seat the user takes on a plane, as (ROUTINE_PREDICATE, "plane seat: window")."""
    if not _the_users_own(clause, _NOT_THIS_FLIGHT_RE):
        return []
    seats = {"window": "window", "aisle": "aisle", "靠窗": "window", "靠过道": "aisle", "过道": "aisle"}
    return [(ROUTINE_PREDICATE, f"plane seat: {seats[m['s'].lower()]}")
            for m in (*_SEAT_EN.finditer(clause), *_SEAT_ZH.finditer(clause))]


def _routines(clause: str, before: str) -> list[tuple[str, str]]:
    """The user's routines the clause states, as (ROUTINE_PREDICATE, "<routine>: <value>"); `before`: the clause
    before it, whose subject one with none goes on with (我老公十一点睡，早上七点起床: his)."""
    if not _the_users_own(clause, _NOT_THE_ROUTINE_RE):
        return []
    if not re.search(r"我|(?i:\bi\b)", clause) and _OTHERS_ROUTINE_RE.search(before):
        return []
    some_days = _SOME_DAYS_RE.search(clause) is not None  # "On Saturdays I sleep in till 10": not every day's
    out: list[str] = []
    for m in _BEDTIME_EN.finditer(clause) if not some_days else ():
        out.append(f"bedtime: {_clock_en(m['t'])}")
    for m in _WAKE_EN.finditer(clause) if not some_days else ():
        out.append(f"wake-up: {_clock_en(m['t'] or m['t2'])}")
    for m in _BEDTIME_ZH.finditer(clause) if not some_days else ():
        out.append(f"bedtime: {_clock_zh(m['t'])}")
    for m in _WAKE_ZH.finditer(clause) if not some_days else ():
        out.append(f"wake-up: {_clock_zh(m['t'])}")
    for m in (*_SHIFT_EN.finditer(clause), *_SHIFT_ZH.finditer(clause)) if not some_days else ():
        out.append(f"shift: {_SHIFTS[m['s'].lower()]}")
    for m in _GYM_EN.finditer(clause):
        said = m["d"]
        if re.search(r"(?i)days\b", said) or re.search(r"(?i)\bevery $", clause[: m.start("d")]):
            out.append(f"gym: {_days(said)}")  # "on Mondays", "every Monday"; "on Monday" is one Monday
    for m in _GYM_ZH.finditer(clause):
        out.append(f"gym: {_days(m['d'] or m['d2'] or m['d3'])}")
    for m in _EXERCISE_EN.finditer(clause) if not some_days else ():
        kind = next(v for k, v in _EXERCISES.items() if m["v"].lower().startswith(k))
        out.append(f"{kind}: {' '.join(m['a'].lower().split())}{m['f'].lower()}")
    for m in _LUNCH_EN.finditer(clause) if not some_days else ():
        if m["packed"]:
            out.append("lunch: packed")
        elif m["p"]:
            out.append("lunch: cafeteria")
        elif m["v"].lower().startswith("buy"):  # not "I get lunch delivered", "I have lunch at noon"
            out.append("lunch: bought")
    for m in _LUNCH_ZH.finditer(clause) if not some_days else ():
        out.append(f"lunch: {'cafeteria' if m['c'] else 'packed' if m['p'] else 'takeout'}")
    return [(ROUTINE_PREDICATE, o) for o in out if not o.endswith(": ")]


def routine_of(obj: str) -> str:
    """The routine of a has_routine object ("gym: tue thu" -> "gym"), the kind of a has_provider one ("bank: Chase"
    -> "bank"): one value of each."""
    return obj.partition(":")[0].strip()


def _model(said: str, not_the_thing: re.Pattern[str] = _NOT_THE_THING_RE) -> str:
    """The model as named, without what the pattern's last words took after it ("Pixel 8 last week"); "" for a
    thing of the maker that is no phone, car or laptop."""
    model = _MODEL_TAIL.sub("", said).strip()  # one bought for someone (给) was left out before (_FOR_SOMEONE_RE)
    return "" if not_the_thing.search(model) else model


def _way(said: str) -> str:
    s = said.lower()
    if s in _WAY:
        return _WAY[s]
    return re.split(r"\s+", s)[-1].replace("bicycle", "bike").replace("metro", "subway").replace("tube", "subway")


def routine_facts(clause: str, sentence: str = "", before: str = "") -> list[tuple[str, str]]:
    """The (predicate, object) pairs of the user's routines the clause states: ("takes_dose", "levothyroxine 75 mcg"),
    ("commutes_by", "bus"). A negated or one-off clause states none ("I took the bus today" reads no "take").
    sentence: the turn the clause is part of (a home bought in one clause and moved into in the next); `before`: the
    clause said before it ("I changed GPs" before "I see Dr. Nguyen now")."""
    out: list[tuple[str, str]] = []
    pet = _PET_WORDS_RE.search(clause)  # "The vet increased my Rex to 10 mg", 我的猫吃的药: the pet's medicine
    for pattern in _DOSE_EN if not pet else ():
        for m in pattern.finditer(clause):
            if m["m"].lower() not in _NOT_A_MEDICINE:
                amount = " ".join(m["d"].lower().split())
                out.append((DOSE_PREDICATE, f"{m['m']} {amount}"))
    for pattern in _DOSE_SWITCH_EN if not pet else ():
        for m in pattern.finditer(clause):
            if m["m"].lower() not in _NOT_A_MEDICINE and not WISHED_RE.search(clause[: m.start()]):
                out.append((DOSE_PREDICATE, f"{m['m']} {' '.join(m['d'].lower().split())}"))
    for pattern in _DOSE_ZH if not pet else ():
        for m in pattern.finditer(clause):
            if not _NOT_A_MEDICINE_ZH.search(m["m"]):
                out.append((DOSE_PREDICATE, f"{m['m']} {m['d']}"))
    for m in _COUNTED_DOSE_ZH.finditer(clause) if not pet else ():
        out.append((DOSE_PREDICATE, f"{m['m']} {_zh_count(m['d'])}"))
    dosed = {medicine_of(o).lower() for p, o in out if p == DOSE_PREDICATE}
    for m in (*_UNDOSED_EN.finditer(clause), *_UNDOSED_ZH.finditer(clause)) if not pet else ():
        said = m["m"]
        # (by its ending only: "I'm on Facebook" is capitalized too)
        if said.lower() not in dosed and _names_a_medicine(said, brand=False) \
                and not WISHED_RE.search(clause[: m.start()]) and not re.search(r"吗|[?？]", clause[m.end():]):
            out.append((DOSE_PREDICATE, said))
    for m in (*_COMMUTE_EN.finditer(clause), *_COMMUTE_ZH.finditer(clause)):
        if not re.search(r"(?i)\b(?:don't|do not|never|no longer|not)\b|不|没", clause[: m.start("v")][-12:]) \
                and not _NOT_EVERY_DAY_RE.search(clause):
            out.append((COMMUTE_PREDICATE, _way(m["v"])))
    for predicate, patterns in ((PHONE_PREDICATE, (_PHONE_EN, _PHONE_ZH)),
                                (CAR_PREDICATE, (_CAR_EN, _CAR_AFTER_SALE_EN, _CAR_ZH)),
                                (LAPTOP_PREDICATE, (_LAPTOP_EN, _LAPTOP_ZH)),
                                (CAMERA_PREDICATE, (_CAMERA_EN, _CAMERA_ZH))):
        for pattern in patterns:
            for m in pattern.finditer(clause):
                wished = _NOT_HAD_RE.search(clause[: m.start("x")][-24:])  # "I want to get an iPhone 15"
                after = clause[m.end("x"):][:30]
                not_the_thing = _NOT_A_DEVICE.get(predicate, _NOT_THE_THING_RE)
                if wished or _FOR_SOMEONE_RE.search(clause[: m.start("x")][-16:] + m["x"] + after) \
                        or not_the_thing.match(after.strip()) or about_someone_else(clause[: m.start("x")]):
                    # (朋友换了一辆宝马: the friend's car)
                    continue
                if model := _model(m["x"], not_the_thing):
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
                        _NUMBER_WORDS[n.lower()] if m["n"] else str(_ORDINALS.index(n.lower()) + 1)))
    for m in _TEAM_EN.finditer(clause):
        if not _NOT_A_WORK_TEAM_RE.search(m["x"]) and not _WILL_RE.search(clause[: m.start("x")]) \
                and not (m["be"] and _DEPARTMENT_VISITED_RE.search(m["x"])) \
                and (not m["in"] or _WORK_SAID_RE.search(sentence)):
            out.append((TEAM_PREDICATE, f"{m['x']} {'department' if m['t'].lower() == 'dept' else m['t'].lower()}"))
    for m in _TEAM_ZH.finditer(clause):
        if not _NOT_A_DEPARTMENT_ZH.search(m["x"]) and not _WILL_RE.search(clause[: m.start("x")]) \
                and not _NOT_HAD_RE.search(clause[: m.start("x")]):
            out.append((TEAM_PREDICATE, m["x"]))
    out.extend(_routines(clause, before))
    out.extend(_seats(clause))
    out.extend(_providers(clause, before))
    out.extend(_supported_teams(clause))
    return list(dict.fromkeys(out))


def _zh_count(said: str) -> str:
    """一片 -> 1片, as digits: one count said two ways is one dose."""
    return said.translate(str.maketrans("一两二三四", "12234"))


def ended_facts(clause: str) -> list[tuple[str, str]]:
    """What the clause says no longer holds for the user, as (predicate, object) to deny: a medicine stopped
    (stopped_medicines), a bank account closed ("I closed my Chase account": bank: Chase)."""
    out = [(DOSE_PREDICATE, m) for m in stopped_medicines(clause)]
    if _the_users_own(clause):
        out.extend((PROVIDER_PREDICATE, f"bank: {m['b']}") for m in _CLOSED_BANK_EN.finditer(clause))
    return out


def stopped_medicines(clause: str) -> list[str]:
    """The medicines the clause says the user stopped taking for good ("My cardiologist took me off lisinopril":
    lisinopril; 阿托伐他汀不用再吃了): each a (user, takes_dose, medicine) denied, which ends the dose said before
    (ingest/conflict_rules.py polarity_conflict)."""
    if _PET_WORDS_RE.search(clause) or _NOT_FOR_GOOD_RE.search(clause):
        return []
    out: list[str] = []
    for m in (*_STOPPED_MEDICINE_EN.finditer(clause), *_STOPPED_MEDICINE_ZH.finditer(clause)):
        said = next(v for v in m.groupdict().values() if v)
        before = clause[: m.start()]
        if WISHED_RE.search(before) or _OTHERS_MEDICINE_RE.search(before[-30:]) or _NOT_HAD_RE.search(
                before[-12:]):
            continue
        if _names_a_medicine(said, brand=True):
            out.append(said)
    return list(dict.fromkeys(out))


def _names_a_medicine(said: str, *, brand: bool) -> bool:
    """Whether a medicine rule's match names one: in Chinese (the rules' _MEDICINE_ZH), or a drug by the ending of its
    kind (lisinopril), or with `brand` a capitalized name (Plavix; where the verb already says a medicine)."""
    return re.search(f"[{HAN}]", said) is not None or (
        said.lower() not in _NOT_A_MEDICINE and (_DRUG_EN_RE.search(said) is not None or (brand and said[0].isupper())))


def is_medicine_zh(said: str) -> bool:
    """Whether a Chinese object names a medicine by the ending of its kind (氨氯地平, 阿托伐他汀): taken, not eaten."""
    return re.fullmatch(_MEDICINE_ZH, said.removeprefix("着")) is not None


def medicine_of(dose: str) -> str:
    """The medicine of a takes_dose object ("levothyroxine 75 mcg" -> "levothyroxine", "阿托伐他汀 1片" -> 阿托伐他汀):
    one dose per medicine."""
    return re.sub(rf"\s*{_AMOUNT_EN}\s*$|\s*{_AMOUNT_ZH}\s*$|\s*\d(?:片|粒|颗)$", "", dose.strip(),
                  flags=re.IGNORECASE).strip()
