"""Filter 1 of DESIGN.md (automatic salience): is this turn worth a memory, and with which preset kind?

Keep what is specific to the user (preferences, experiences, facts about them), what is repeated and
what carries emotion, plus general knowledge the user states; drop chit-chat, greetings, questions and
tasks for the assistant. Assistant turns never create user facts. Also flags emphasis ("记住" /
"this is important": the use-case promotes such memories to core), safety-critical content (allergies,
conditions, emergency contacts: PresetKind.SAFETY, fixed weight 1.0) and temporary content (weather,
one-off plans: PresetKind.TEMPORARY, starting weight 0.3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graph.model import PresetKind
from ingest.extract import PERSONAL_FACT_PREDICATES, USER, ExtractedTriple, RuleTripleExtractor, TripleExtractor
from ingest.extract_routines import ROUTINE_PREDICATE
from ingest.lexicon import (
    CALENDAR_WORDS,
    DISCOURSE_AUX_EN,
    DISCOURSE_CHANGE_VERBS_EN,
    DISCOURSE_IDIOMS_EN,
    DISCOURSE_STEER_EN,
    DISCOURSE_SUBJECTS_EN,
    DISCOURSE_VERBS_EN,
    DISCOURSE_WORDS_EN,
    DISCOURSE_ZH,
    DISCOURSE_ZH_SPEAKER_CHANGE,
    DISCOURSE_ZH_STEER,
    EMPHASIS_RE,
    EPISODIC_EN_RE,
    EPISODIC_ZH_RE,
    FEELING_EN_RE,
    FEELING_ZH_RE,
    HAN_RE,
    NOT_TO_REMEMBER_RE,
    PROCEDURAL_EN_RE,
    PROCEDURAL_ZH_RE,
    SAFETY_RE,
    SECOND_PERSON_RE,
    TAKE_BACK_FILLER_RE,
    TAKE_BACK_RE,
    TEMPORARY_RE,
    has_feeling,
    has_first_person,
    is_affection,
    is_chitchat,
    is_greeting,
    is_question,
    is_reminder,
    is_request,
    normalize_text,
    says_preference,
    split_clauses,
    words_re,
)
from ingest.pastes import introduces_paste, is_code_only, prose, unsplittable
from ingest.reply_style import reply_style
from ingest.tier_policy import DURABLE_PREDICATES

USER_SPEAKERS = frozenset({"user", "human"})

# Predicates that describe a durable fact, so a time word in the same turn does not make it temporary.
_DURABLE_PREDICATES = PERSONAL_FACT_PREDICATES | {"likes", "eats", "drinks"}
_STRONG_AFFECT_RE = re.compile(
    r"(?<![可恋热])爱(?!好)|讨厌|受不了|恨|(?<![A-Za-z])(?:love|hate|adore|can't stand|detest)(?![A-Za-z])",
    re.IGNORECASE,
)
_RELATIVE_RE = re.compile(
    r"(?:我|my )(?:的)?\s?(?:女儿|儿子|孩子|妈妈|爸爸|老婆|老公|妻子|丈夫"
    r"|daughter|son|kids?|wife|husband|mom|dad|mother|father)",
    re.IGNORECASE,
)
# A safety fact about someone the user speaks of, by pronoun or by name ("She has asthma", 她有哮喘, "Lily is
# allergic to cats", "Mark is diabetic", 小美对牛奶过敏): the user's circle, as safety-critical as a relative's
# (a friend's shellfish allergy went stale in a week). A general statement ("Peanut allergies are common") names
# no one.
_SOMEONE_SAFETY_RE = re.compile(
    r"(?<![A-Za-z])(?:he|she|they)(?:'s|'re)?(?![A-Za-z])|[他她]"
    r"|(?<![A-Za-z])(?!(?:I|It|The|This|That|My|Our|Your|His|Her|Their|A|An)\b)[A-Z][a-z]+"
    r"(?:'s|\s+(?:is|was|has|had|takes|took|carries|needs|gets|got))\s+(?:\w+\s+){0,2}?"
    r"(?:allergic|diabetic|asthmatic|epileptic|pregnant|anaphyla\w*|asthma|diabetes|epilepsy|seizures?|insulin"
    r"|an? (?:epipen|inhaler)|blood thinners?|heart condition|celiac)"
    r"|(?:[小阿老][\u4e00-\u9fff]|[\u4e00-\u9fff]{2,3}?)(?:对[^，。,.！!？?]{1,10}过敏|有(?:哮喘|糖尿病|高血压|心脏病|癫痫)"
    r"|怀孕了|得了(?:哮喘|糖尿病|高血压|心脏病|癫痫))",
)


_TODAY_RE = re.compile(r"今天|今晚|今早|现在|这会儿|(?<![A-Za-z])(?:today|tonight|right now"
                       r"|this (?:morning|afternoon|evening))(?![A-Za-z])", re.IGNORECASE)
# What the user means to do today ("今晚想自己做饭", "I'm cooking tonight", "going to the gym today"), as opposed
# to what happened ("I started a new job today", 今天是我的生日, 我今天被裁员了: events, kept).
_INTENT_NOW_RE = re.compile(r"想|打算|准备|计划|要(?!是)|(?<![A-Za-z])(?:want(?:s|ed)? to|wanna|going to|gonna"
                            r"|planning|plan to|thinking (?:of|about)|(?:i'm|i am|we're|we are) \w+ing)(?![A-Za-z])",
                            re.IGNORECASE)
_ANOTHER_DAY_RE = re.compile(r"明天|后天|下周|下个?月|下星期|明年|周末"
                             r"|(?<![A-Za-z])(?:tomorrow|next (?:week|month|year)|this weekend|weekend)(?![A-Za-z])",
                             re.IGNORECASE)

# A reminder for another day ("Remind me to send the case study by Thursday", 提醒我明天给妈妈打电话) is a plan of
# the user's, kept (temporary) though said as a task: it was dropped, and Thursday came without it. One for today
# ("remind me to call the dentist at 3") is the session's working memory (tests/data labels it so), as is any task.
_LATER_RE = re.compile(
    _ANOTHER_DAY_RE.pattern + r"|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜|(?<!\d)\d+\s*[号日]|月底|过几天"
    rf"|(?<![A-Za-z])(?:{CALENDAR_WORDS}"
    r"|in (?:a|two|three|\d+) (?:days?|weeks?|months?)|end of the (?:week|month)|the \d+(?:st|nd|rd|th))(?![A-Za-z])",
    re.IGNORECASE,
)


def _reminder_for_later(clause: str) -> bool:
    return is_reminder(clause) and (_LATER_RE.search(clause) is not None
                                    or re.search(r"(?i)remind me that", clause) is not None)


_CONVERSATIONAL_OPINION_RE = re.compile(
    r"^(?:我觉得|我认为|我感觉|我想|嗯|i think|i guess|i believe|i feel like|i mean)\s*"
    r"(?:that'?s?|this|it'?s?|so|these|those|这个|那个|这样|那样|你说的|挺好|不错|可以|有道理|也是|没问题)(?![A-Za-z])",
    re.IGNORECASE,
)


_DISCOURSE_IDIOMS_RE = words_re(DISCOURSE_IDIOMS_EN, en=True)
_DISCOURSE_ZH_RE = words_re(DISCOURSE_ZH)
_DISCOURSE_ZH_SPEAKER_CHANGE_RE = words_re(DISCOURSE_ZH_SPEAKER_CHANGE)
_DISCOURSE_ZH_STEER_RE = re.compile(f"{words_re(DISCOURSE_ZH_STEER).pattern}|(?<![了过])吧")  # 吧: let's (not 换了吧)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})
_DISCOURSE_TOKEN_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)?")  # a word, with one contraction: that's / don't
_DISCOURSE_MAX_CHARS = 200  # an acknowledgement is short; a longer clause is read as content, and stays cheap


def is_discourse_only(clause: str) -> bool:
    """The clause only manages the conversation ("Sure, go ahead", "That is interesting", 我们聊点别的吧).

    True when every word of it is discourse vocabulary (ingest.lexicon.DISCOURSE_*: acknowledgements,
    reactions, conversation nouns and verbs, function words) and the speaker appears as a subject only
    with a verb of understanding, agreeing or talking ("I see", "we'll see"). Any other word (a noun, a
    name, a digit, a feeling, "my", "I'm") could carry a fact, so the clause is not discourse. A verb of
    changing or moving is the speaker's discourse only when it steers the talk ("I'll change the subject",
    "we'll move on", 我们换个话题吧); without a conversation complement it is a plan ("We will move again",
    我们换了), kept.
    """
    if len(clause) > _DISCOURSE_MAX_CHARS:
        return False
    text = normalize_text(clause).lower().translate(_APOSTROPHES)
    if _DISCOURSE_ZH_SPEAKER_CHANGE_RE.search(text) and not _DISCOURSE_ZH_STEER_RE.search(text):
        return False  # 我们换了: the speaker's change, not a change of topic
    text = _DISCOURSE_ZH_RE.sub(" ", _DISCOURSE_IDIOMS_RE.sub(" ", text))
    if HAN_RE.search(text):
        return False  # a Chinese word outside the vocabulary (or a lone 我) is left
    tokens = _DISCOURSE_TOKEN_RE.findall(text)
    change = any(t in DISCOURSE_CHANGE_VERBS_EN for t in tokens)
    if not all(
        t in DISCOURSE_WORDS_EN or t in DISCOURSE_SUBJECTS_EN or (change and t in DISCOURSE_STEER_EN) for t in tokens
    ):
        return False
    if not any(t in DISCOURSE_SUBJECTS_EN for t in tokens):
        return True  # acknowledgements, reactions, "let's move on", "switch gears"
    steers = change and any(t in DISCOURSE_STEER_EN for t in tokens)
    if _speaker_changes(tokens):
        return steers  # "I'll change the subject" steers; "I'll change", "we will move again" are plans
    return steers or any(t in DISCOURSE_VERBS_EN for t in tokens)


def _speaker_changes(tokens: list[str]) -> bool:
    """A verb of changing or moving has the speaker as its subject: "we will move", "I'd like to change"."""
    for i, token in enumerate(tokens):
        if token not in DISCOURSE_CHANGE_VERBS_EN:
            continue
        j = i - 1
        while j >= 0 and tokens[j] in DISCOURSE_AUX_EN:
            j -= 1
        if j >= 0 and tokens[j] in DISCOURSE_SUBJECTS_EN:
            return True
    return False


# The session's own talk, no fact in it (a coding assistant's user says these between the real statements):
# the speaker steps away to check ("hmm let me check what the CI matrix says", 嗯，我查一下),
_CHECKING_RE = re.compile(
    r"(?:(?:hmm+|ok|okay|wait|hold on|so)\s+)?let me (?:check|look|see|try|test|verify|find out|dig|google|search"
    # ... and no more: not "let me check with my wife Anna", "let me search for one since I'm celiac"
    r"|run)(?![A-Za-z])(?:(?! (?:i|i'm|my|me|we|our|with|since|because)\b|(?-i: [A-Z][a-z])).)*"
    r"|(?:那|等等|稍等)?(?:我|让我)(?:先|再|去)?(?:查|看|试|找|搜|问)(?:一下|一查|查|看看|看|试|找|搜|问)[吧哈啊哦]*",
    re.IGNORECASE,
)
# judges the assistant's answer ("好的，正是我需要的", "perfect, that's exactly what I needed"),
_ANSWER_JUDGED_RE = re.compile(
    r"(?:(?:this|that|it)(?:'s| is| was)?\s+)?(?:exactly |just |precisely )?what i (?:needed|wanted|was looking for"
    r"|asked for|meant)"
    r"|(?:这|这个|那|那个)?(?:正是|就是|正好是|刚好是)我(?:想要|需要|要|想找|要找)的(?:东西)?[了啊呀]*",
    re.IGNORECASE,
)
# announces the question that follows ("最后一个问题：...", "last question:"),
_QUESTION_LEAD_IN_RE = re.compile(
    r"(?:最后|还有|另外|再)?问?(?:一|两|几)?个?小?问题"
    r"|(?:one |a )?(?:last|final|quick|another|more|follow-?up|small|silly|dumb)(?: quick)? question",
    re.IGNORECASE,
)
# or says the session's problem is solved ("works now", "resolved it, pushed", 搞定了): a status of the hour.
_RESOLVED_RE = re.compile(
    r"(?:(?:it|that|everything|all|the build|ci|the tests?)(?:'s| is)?\s+)?(?:works|working|passes|passing|green"
    r"|runs|running)\s+(?:now|again)"
    r"|(?:(?:i|we)\s+)?(?:just\s+)?(?:resolved|fixed|solved|sorted|pushed|merged|committed)(?:\s+(?:it|that|them"
    r"|out))?(?:\s+now)?"
    r"|that (?:did it|fixed it|did the trick|worked)|(?:all )?good now|all set|problem solved"
    r"|(?:已经|终于|现在)?(?:搞定|解决|修好|跑通|能用|能跑)了",
    re.IGNORECASE,
)
# A task on what was pasted or said just before ("Refactor this: `...`", "clean it up"): for the session.
_TASK_ON_THIS_RE = re.compile(
    r"(?:(?:please|pls|now|ok|okay|so)\s+)?(?:refactor|fix|debug|review|optimi[sz]e|simplify|clean up|tidy up"
    r"|improve|rewrite|shorten|speed up|document|annotate|lint|format|test|check|modernize|comment)"
    r"\s+(?:this|that|it|these|those|the following|this code|this function|this snippet|this query)"
    r"(?:\s+(?:up|please|for me|too|again))*",
    re.IGNORECASE,
)
# A clause that only names what the question after it asks about ("Ok and for tomorrow's lunch, what should I
# order?", "Speaking of Mochi, how often should I feed her?", 明天的午饭，点什么好？): split from its question at the
# comma, it is part of it, no statement (stored, the question became an EPISODIC memory that led every later food
# request). A subject or a verb in it makes it one ("For my birthday I went to Paris, ...", 明天去上海，...).
_TOPIC_LEAD_EN = r"(?:(?:ok|okay|so|and|also|well|oh|hmm+|alright|right|now|but|anyway|btw|by the way)\W+)*"
_TOPIC_LEAD_EN_RE = re.compile(_TOPIC_LEAD_EN, re.IGNORECASE)
_TOPIC_EN_RE = re.compile(
    r"(?i)(?:(?:as for|as to|speaking of|talking of|regarding|concerning|about(?! to\b)|for|on|with|at|in|after"
    r"|before|during|over)\s+\S.*|(?:today|tomorrow|tonight|this \w+|next \w+|the \w+|\w+day)'s\s+\S.*)")
_STATES_EN_RE = re.compile(
    r"(?i)\b(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'll|he|he's|she|she's|they|they're|you|you're|it|it's|there"
    r"|that's|is|are|was|were|am|be|been|being|have|has|had|do|does|did|will|would|can|could|should|must|may|might"
    r"|got|get|went|go|goes|going|made|make|took|take|said|told|\w{3,}ed)\b")
_TIME_ZH = (r"(?:今天|明天|后天|今晚|明晚|明早|周末|这周末|下周末?|这周|本周|下个?月|下个?星期|周[一二三四五六日天]"
            r"|星期[一二三四五六日天])")
_TOPIC_ZH_RE = re.compile(
    r"(?:那|那么|还有|另外|对了|好的?|嗯|所以)?(?:(?:关于|至于|说到|对于)(?:(?![我你他她])[^，。！？]){1,15}"
    rf"|{_TIME_ZH}的?(?:早饭|午饭|晚饭|早餐|午餐|晚餐|夜宵|饭|聚餐|会议|会|安排|行程|计划)"
    rf"|{_TIME_ZH}的(?:(?![去要是有在了过我你他她])[\u4e00-\u9fff]){{1,4}})(?:呢|的话)?")


def _question_topic(clause: str) -> bool:
    """The clause only names what a question asks about: a topic said before it, with no subject and no verb."""
    c = normalize_text(clause).strip().rstrip("?.!")
    if HAN_RE.search(c):
        return _TOPIC_ZH_RE.fullmatch(c) is not None
    lead = _TOPIC_LEAD_EN_RE.match(c)  # "Ok and", "so": no part of the topic
    topic = c[lead.end():] if lead else c
    return _TOPIC_EN_RE.fullmatch(topic) is not None and _STATES_EN_RE.search(topic) is None


# What a task goes on to ask for after a comma ("Write me a function that ..., with tests"): part of the task.
_TASK_TAIL_RE = re.compile(r"(?:with|without|using|plus|including|in)\s+\S.*", re.IGNORECASE)
# The time the user asks at ("It's almost 5pm, should I ship the hotfix now?", 现在快五点了，...): it sets up the
# question, and is stale within the hour.
_TIME_NOW_RE = re.compile(
    r"it'?s\s+(?:almost|nearly|already|just|about|past|after|around|gone)?\s*"
    r"(?:\d{1,2}(?:\.\d\d)?\s*(?:am|pm|a\.m\.?|p\.m\.?|o'clock)|noon|midnight|late)"
    r"|(?:现在)?(?:已经|都|快|马上|将近)*(?:早上|上午|中午|下午|晚上|凌晨)?[\d一二三四五六七八九十两]+点(?:半|多|钟)?了?",
    re.IGNORECASE,
)
# A realisation reacting to the assistant's answer ("ah, it's the map. got it", "ha, that's actually the expected
# behavior"): with a thanks or a remark on "it" / "that", what it says is about the session's problem ("Ah, Paris
# was amazing" and "ah, the cat is sick again" are neither, and stay).
_REALISING_RE = re.compile(r"ah+|aha|ha+|hah|right|oh right|oh wait|oh i see|d'oh|duh", re.IGNORECASE)
_ON_THE_ANSWER_RE = re.compile(r"(?:it|that|this)(?:'s| is| was)\s", re.IGNORECASE)
_SESSION_REMARK_MAX_WORDS = 10
_CAPITAL_AFTER_START_RE = re.compile(r"(?<=.)[A-Z]")  # a name ("Priya", "Docker Hub") is more than a remark


def _session_talk(clause: str, pasted: bool) -> bool:
    """The clause only manages the session: code or the words handing a paste over, checking, judging, a lead-in."""
    c = clause.strip().rstrip("?.!")
    return (
        is_code_only(c)
        or (pasted and introduces_paste(c))
        or any(p.fullmatch(c) for p in (_CHECKING_RE, _ANSWER_JUDGED_RE, _QUESTION_LEAD_IN_RE, _RESOLVED_RE))
    )


def _is_task(clause: str) -> bool:
    return is_request(clause) or _TASK_ON_THIS_RE.fullmatch(clause.strip().rstrip("?.!")) is not None


def _session_remark(clause: str) -> bool:
    """A short remark with no one and nothing named in it ("docker wasn't running", "the test was wrong")."""
    return (not has_first_person(clause) and not HAN_RE.search(clause) and not re.search(r"\d", clause)
            and not _CAPITAL_AFTER_START_RE.search(clause) and not has_feeling(clause)
            and not SAFETY_RE.search(clause) and len(clause.split()) <= _SESSION_REMARK_MAX_WORDS)


# A feeling with nothing it is about (好开心！, 累死了😩, 我好烦啊, "ugh, so tired"): the mood of the moment. Kept, as
# what carries emotion is (DESIGN "Two filters"; tests/data labels 累死了😩 and 好想家啊 memories), but temporary, as
# the weather is: lighter, and no turn on its topic promotes it (at the default preset 好开心！ came back for
# chit-chat: "haha ok", cosine 0.36). Said with what it is about (好开心！终于拿到驾照了, "I'm so stressed about the
# exam") it is no passing mood.
_DEGREE_ZH_RE = re.compile(r"我|好|太|真的?|超级?|特别|非常|有点儿?|挺|很|简直|死了|极了|坏了|透了|爆了|了|啊|呀|啦"
                           r"|哦|呢|吧|哈|嘛|的|哇|耶|呜|唉|哎|嘿|嗯|诶")
_DEGREE_EN_RE = re.compile(r"(?i)\b(?:i'm|i am|im|i|me|so+|really|very|super|too|kinda|kind of|pretty|totally"
                           r"|extremely|just|such|omg|oh+|ah+|ugh+|yay+|wow|aw+|argh+|sigh|hmm+|lol|haha+|feeling|feel"
                           r"|a bit|bit|af)\b")


def _bare_feeling(clause: str) -> bool:
    """The clause says a feeling, or only a sound ("ugh"), and nothing else: nothing the feeling is about."""
    c = normalize_text(clause).lower().translate(_APOSTROPHES)
    rest = _DEGREE_EN_RE.sub(" ", FEELING_EN_RE.sub(" ", _DEGREE_ZH_RE.sub(" ", FEELING_ZH_RE.sub(" ", c))))
    return _WORD_RE.search(rest) is None


def _passing_mood(statements: list[str]) -> bool:
    """The statements say a feeling and nothing it is about (好开心！, "ugh, so tired", 我好烦啊)."""
    return all(_bare_feeling(c) for c in statements) and any(has_feeling(c) for c in statements)


def is_small_talk(text: str) -> bool:
    """The input is only small talk: greetings, thanks, laughter, acknowledgements, talk about the talk, love sent
    to the assistant ("lol", "haha ok", "thanks, bye", "Sure, go ahead", 爱你么么哒): nothing in it a memory could
    answer (recall gates it: bmam/usecases/recall.py). A feeling said is no small talk (我好难过 may recall why), nor
    a question or a request in the talk's words: "What do you know about me?" is no memory, yet asks for them all."""
    norm = normalize_text(text)
    if not _WORD_RE.search(norm):
        return False
    return is_greeting(norm) or is_chitchat(norm) or all(
        is_chitchat(c) or is_greeting(c) or is_affection(c)
        or (is_discourse_only(c) and not is_question(c) and not is_request(c)) for c in split_clauses(norm))


# A decision that lasts, though said with the day it was taken ("Big decision today: we're moving tidectl from
# Postgres to SQLite", 从今天起我们改用 uv): no temporary memory.
_LASTING_DECISION_RE = re.compile(
    r"(?i)\b(?:from now on|going forward|from today on|big decision|we're moving \w[\w-]* "
    r"(?:from|to)|we are moving \w[\w-]* (?:from|to)|switch(?:ed|ing)? (?:\w+ )?(?:from \w+ )?to|migrat(?:e|ed|ing) "
    r"(?:\w+ )?(?:from|to))\b|从今天起|从现在起|以后都|改用"
)
# ... but not one for tonight, tomorrow or a while ("Decision: I'm skipping the gym tonight", "switching to decaf
# for this week")
_FOR_A_TIME_RE = re.compile(r"(?i)\b(?:tonight|tomorrow|this (?:week|weekend|month|evening|afternoon)|for now|for a"
                            r" while|for (?:the|this|a) (?:week|month|day|weekend))\b|今晚|明天|这周|暂时")


@dataclass(frozen=True, slots=True)
class Salience:
    """The verdict of filter 1 on one turn."""

    remember: bool
    reason: str  # why, one word: preference, personal, experience, emotion, procedure, knowledge, safety, ...
    emotional: bool
    preset_kind: PresetKind
    emphasis: bool = False  # the user asked us to remember it: promote towards core
    takes_back: bool = False  # the turn only asks to forget what the user said before it (TAKE_BACK_RE)

    @property
    def refused_by_user(self) -> bool:
        """The user asked not to remember ("别记住", "don't remember that"): no engagement with what it names."""
        return self.reason == ASKED_NOT_TO_REMEMBER


_EXTRACTOR: TripleExtractor = RuleTripleExtractor()
ASKED_NOT_TO_REMEMBER = "asked_not_to_remember"

_WORD_RE = re.compile(r"\w")


def assess(text: str, *, speaker: str, repeated: bool = False, extractor: TripleExtractor | None = None) -> Salience:
    """Decide whether a turn becomes a (temp) memory. Pure: no clock, no store, no model."""
    if speaker.strip().lower() not in USER_SPEAKERS:
        # what the assistant says is not a fact about the user (it may be wrong, or a question)
        return Salience(False, "assistant_turn", False, PresetKind.DEFAULT)
    said = prose(text)  # pasted code and logs are not the user's statements: the prose around them is judged
    norm = said.text
    if said.pasted and not _WORD_RE.search(norm):
        return Salience(False, "paste", False, PresetKind.DEFAULT)
    if not norm:
        return Salience(False, "empty", False, PresetKind.DEFAULT)
    # Nothing but "forget / don't remember what I just said": it takes back the turn before it. "Don't remember
    # that" with more is still no memory; "Scratch that, I live in Paris" says something new.
    asked_not = NOT_TO_REMEMBER_RE.search(norm) is not None
    if asked_not or TAKE_BACK_RE.search(norm):
        rest = TAKE_BACK_FILLER_RE.sub(" ", NOT_TO_REMEMBER_RE.sub(" ", TAKE_BACK_RE.sub(" ", norm)))
        takes_back = not _WORD_RE.search(rest)
        if takes_back or asked_not:
            return Salience(False, ASKED_NOT_TO_REMEMBER, False, PresetKind.DEFAULT, takes_back=takes_back)
    emphasis = EMPHASIS_RE.search(norm) is not None
    if emphasis and not _WORD_RE.search(EMPHASIS_RE.sub(" ", norm)):
        if said.pasted:  # "Remember this: ```...```": the user asks to keep what they pasted
            return Salience(True, "emphasis", False, PresetKind.DEFAULT, emphasis)
        # "记住：" / "remember this" alone: emphasis of nothing (it would lock an empty memory in core)
        return Salience(False, "nothing_specific", False, PresetKind.DEFAULT)
    clauses = split_clauses(unsplittable(norm))
    # clauses that only acknowledge, react or steer the talk ("Sure", "That is interesting") hold no fact
    # statements, though said as tasks: a reminder for later, and how the user wants to be answered from now on
    # ("give me more detailed answers from now on" holds for every later turn: ingest/reply_style.py)
    for_later = [c for c in clauses if _reminder_for_later(c)]
    reminders = [c for c in clauses if c in for_later or reply_style(c)]
    statements = [
        c
        for c in clauses
        if c in reminders or not (is_question(c) or _is_task(c) or is_chitchat(c) or is_greeting(c)
                                  or is_discourse_only(c) or is_affection(c) or _session_talk(c, said.pasted))
    ]
    asking = [c for c in clauses if (is_question(c) or _is_task(c)) and c not in reminders]
    if asking:
        statements = [c for c in statements if not _TIME_NOW_RE.fullmatch(c.strip().rstrip(".!"))]
    tails = {c for i, c in enumerate(clauses) if _continues_task(clauses, i)}
    # what the question after it asks about ("Ok and for tomorrow's lunch, what should I order?")
    topics = {c for i, c in enumerate(clauses)
              if _question_topic(c) and any(is_question(d) or _is_task(d) for d in clauses[i + 1:])}
    statements = [c for c in statements if c not in tails and c not in topics]
    if statements and not emphasis and all(_session_remark(c) for c in statements) and (
            any(_RESOLVED_RE.fullmatch(c.strip().rstrip("?.!")) for c in clauses)  # "..., works now"
            or (_REALISING_RE.fullmatch(clauses[0].strip()) and any(
                is_chitchat(c) or _ON_THE_ANSWER_RE.match(c) for c in clauses[1:]))):
        statements = []  # the session's problem, found or solved
    if statements and all(_CONVERSATIONAL_OPINION_RE.search(c) and len(c) < 40 for c in statements):
        statements = []  # "I think that's a good idea": about the conversation, not about the user
    if is_greeting(norm) or is_chitchat(norm) or not statements:
        return Salience(False, _no_memory_reason(norm, clauses, said.pasted), False, PresetKind.DEFAULT, emphasis)

    body = " , ".join(statements)
    triples = (extractor or _EXTRACTOR).extract(norm)
    emotional = has_feeling(body) or _STRONG_AFFECT_RE.search(body) is not None
    first_person = has_first_person(body) or any(t.subject == USER for t in triples)
    safety = SAFETY_RE.search(body) is not None and (
        first_person or _RELATIVE_RE.search(body) is not None or _SOMEONE_SAFETY_RE.search(body) is not None
        or any(t.subject_kind == "person" for t in triples))
    durable = any(t.predicate in _DURABLE_PREDICATES for t in triples) or (
        _LASTING_DECISION_RE.search(body) is not None and _FOR_A_TIME_RE.search(body) is None)
    reminder = bool(for_later)  # a plan for some time: temporary
    temporary = not safety and not durable and (reminder or TEMPORARY_RE.search(body) is not None
                                                or (emotional and not emphasis and _passing_mood(statements)))
    preset = PresetKind.SAFETY if safety else PresetKind.TEMPORARY if temporary else PresetKind.DEFAULT

    def keep(reason: str) -> Salience:
        return Salience(True, reason, emotional, preset, emphasis)

    # "今晚想自己做饭，做什么好？", "I'm cooking tonight, any ideas?": what is said only sets up a question about today,
    # no fact (no triple, feeling or safety): no memory. Stored, it was the newest memory and, a question close to
    # the next questions, led every recall of the hour ("What's my job?"). A plan for another day asked about stays
    # (我下周去青岛，有啥推荐的？).
    asks = "?" in norm or "？" in norm or any(is_request(c) for c in clauses)
    if temporary and asks and not triples and not emotional and not emphasis and _TODAY_RE.search(body) \
            and _INTENT_NOW_RE.search(body) and not _ANOTHER_DAY_RE.search(body):
        return Salience(False, "question", False, PresetKind.DEFAULT, emphasis)

    if safety:
        return keep("safety")
    if any(t.predicate == "likes" for t in triples) or says_preference(body):
        return keep("preference")
    if emotional:
        return keep("emotion")
    if reminder and not triples:
        return keep("reminder")
    # a routine's time or days (has_routine: "我每周一三五去健身房") is the user's, but a procedure's kind of memory
    if triples and any(t.subject == USER and t.predicate not in ("visited", ROUTINE_PREDICATE) for t in triples):
        return keep("personal")
    if EPISODIC_ZH_RE.search(body) or EPISODIC_EN_RE.search(body) or any(t.predicate == "visited" for t in triples):
        return keep("experience")
    if PROCEDURAL_ZH_RE.search(body) or PROCEDURAL_EN_RE.search(body):
        return keep("procedure")
    if first_person:
        return keep("personal")
    if emphasis:
        return keep("emphasis")
    if triples or (len(body) >= 6 and not SECOND_PERSON_RE.search(body)):
        return keep("knowledge")  # the user states something about the world: semantic memory
    if repeated:
        return keep("repeated")
    return Salience(False, "nothing_specific", emotional, PresetKind.DEFAULT, emphasis)


def _continues_task(clauses: list[str], i: int) -> bool:
    """Clause i is a tail of the task said just before it ("..., with tests"), itself maybe the tail of one."""
    while i > 0 and _TASK_TAIL_RE.fullmatch(clauses[i]) and not has_first_person(clauses[i]):
        i -= 1
        if _is_task(clauses[i]) or is_question(clauses[i]):
            return True
    return False


def _no_memory_reason(norm: str, clauses: list[str], pasted: bool = False) -> str:
    if is_greeting(norm):
        return "greeting"
    if is_chitchat(norm):
        return "chitchat"
    if any(is_question(c) for c in clauses):
        return "question"
    if all(is_discourse_only(c) or is_chitchat(c) or is_greeting(c) for c in clauses) and not all(
        is_request(c) for c in clauses
    ):
        return "chitchat"  # an acknowledgement or reaction, maybe with "go on" / "tell me more": small talk
    if any(_is_task(c) for c in clauses):
        return "request"
    if pasted:
        return "paste"  # a paste handed over with no question: what it is for comes in the next turn
    return "chitchat"


# The facts said again in other words that repeat the memory asserting them: the user's that last (tier_policy's
# DURABLE_PREDICATES: home, work, people, health, likes, diet, routines ...), not a plan ("I'm going to the dentist
# tomorrow" said twice is two visits).
RESTATED_PREDICATES: frozenset[str] = DURABLE_PREDICATES - {"going_to"}


def restates(text: str, facts: Sequence[ExtractedTriple], extractor: TripleExtractor | None = None) -> bool:
    """Whether a turn says facts that last again and nothing besides (bmam/usecases/ingest.py makes it a mention of the
    memory asserting them all, however it is worded: 我对花生过敏，这个一定要记住 after 我对花生过敏，很严重, whose
    cosine is 0.73). It states a fact, each of RESTATED_PREDICATES, and what is left once its clauses stating one are
    taken out would be no memory of its own (assess), emphasis aside: 这个一定要记住 asks to keep the facts, which the
    mention does ("..., my sister took me to the new place on 5th street" says more: a memory of its own)."""
    if not facts or any(f.predicate not in RESTATED_PREDICATES for f in facts):
        return False
    ex = extractor or _EXTRACTOR
    rest = [c for c in split_clauses(text) if not ex.extract(c)]
    if not rest:
        return True
    said = assess(", ".join(rest), speaker="user", extractor=ex)
    return not said.remember or said.reason == "emphasis"
