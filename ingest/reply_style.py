"""How the user wants the assistant to answer them (reply_style), pure: "pls dont tell me to do 'self care'",
"keep it short", "be blunt with me", 你能不能回答的时候字打少一点, 你说话直接点 别老夸我, and the conventions of their
code (我们 codebase 禁止 unwrap()). Said to the assistant (a request, which the other rules skip), it holds for every
later request for help or advice, however far its words are from it (bmam/usecases/recall.py asks for it then,
ingest/slots.py REPLY_STYLE)."""

from __future__ import annotations

import re

from ingest.lexicon import simplified

# What the assistant is not to push ("don't tell me to invest in crypto"): up to five words after "to", ending at the
# chat that follows ("lol", "because", a comma); stored after _DONT_TELL.
_DONT_TELL = "don't tell me to"
_DONT_TELL_EN = re.compile(
    r"(?i)\b(?:don'?t|dont|do not|never|stop) (?:tell(?:ing)?|ask(?:ing)?|suggest(?:ing)?) me to "
    r"(?P<what>(?:(?!lol\b|lmao\b|haha\b|because\b|cause\b|since\b|my\b|it'?s\b)[\w'‘’\"-]+ ?){1,5})")
_STYLE_EN = re.compile(
    # (answers in general: "make it shorter" edits the draft at hand, no standing wish)
    r"(?i)\b(?:keep|make) (?:your (?:answers?|replies|responses|messages)|(?:the |all )?answers?|replies)"
    r" (?P<how>short(?:er)?|brief(?:er)?|simple(?:r)?|concise|to the point)\b"
    r"|(?:^|\b(?:please|pls|just|always)\s+)be (?P<tone>direct|blunt|straight|brutally honest)(?: with me)?\b"
    r"|\b(?:don'?t|dont|do not|no) sugar-?coat(?:ing)?\b"
    r"|\bi (?:just |only )?want (?P<want>practical (?:stuff|advice|tips|steps)|(?:the )?short (?:answers?|version)"
    r"|bullet points|straight answers?)\b"
    r"|\b(?:answer|reply|respond|talk to me|write to me) in (?P<lang>english|chinese|mandarin|cantonese|spanish"
    r"|french|german|japanese|korean)\b"
    # the other way: longer, gentler ("Actually you can give me longer answers now")
    r"|\b(?:give me|i want|i'?d like|i prefer|i need) (?:longer|more detailed|detailed|fuller|in-depth|thorough)"
    r" (?:answers?|replies|responses|explanations)\b"
    r"|\b(?:you can|feel free to|please|pls) (?:go into (?:more )?details?|be (?:more )?(?:detailed|thorough))\b"
    r"|\bbe (?:more )?(?:gentle|gentler|kinder|nicer|softer) with me\b"
    # how what is written for them should sound, or hold: "I prefer a warm, professional tone", "我 prefer 简洁
    # professional 的 tone", "not too salesy", "no emojis", "Please don't give me Python examples"
    r"|(?:\bi |我\s*)(?:prefer|want|like) (?:a |an |the )?(?!(?:her|his|their|your|my|its|that|this|the) )"
    r"(?:(?:[a-z-]+|[\u4e00-\u9fff]+)(?:,| and| or)? ){1,3}(?:的 )?tone\b"
    r"|(?:\b(?:not|never|nothing)|不要|别) ?too (?:salesy|formal|casual|corporate|pushy|cheesy|wordy|stiff)\b"
    r"|(?:^\W*|\b(?:please|pls|and|also|just|but)[,\s]+)(?:no|without|don'?t use|never use)"
    r" (?:emojis?|jargon|exclamation (?:marks|points)|bullet points)\b"
    r"|\b(?:don'?t|do not|never|no) (?:give|show|send) me (?:any )?(?:[\w+#]+ ){1,2}(?:examples?|code|snippets?)\b")
# 字打少一点, 回答简单点, 说话直接点; 别老夸我, 别跟我讲大道理; 用英文回答
_STYLE_ZH = re.compile(
    r"(?:回答|回复|说话|讲话|字|消息|解释)(?:的时候)?[^，。！？]{0,3}?(?:打|写|说|讲)?"
    r"(?:少一点|少一些|少点|短一点|短点|简单点|简单一点|简短点|简短一点|直接点|直接一点|直白点|通俗点|慢一点"
    r"|详细一点|详细点|详细些|细一点|温柔点|温柔一点|委婉点|委婉一点)"
    r"|别(?:老|总|再|一直|老是|总是)?(?:夸我|说教|讲大道理|跟我讲大道理|给我灌鸡汤|灌鸡汤|拐弯抹角|绕弯子)"
    r"|(?:用|说)(?:中文|英文|英语|粤语)(?:回答|回复|跟我说|和我说)"
    # how what is written for them should sound: 语气简洁专业一点, 不要太官方
    r"|(?:语气|口吻|文风)(?:要|得|上)?[^，。！？]{0,4}?(?:简洁|专业|正式|随意|轻松|口语|幽默|亲切|客气|温和|干脆)"
    r"|(?:不要|别)(?:太|那么)?(?:官方|官腔|啰嗦|煽情|像广告|营销|推销|油腻)")


# A convention of the user's code ("我们 codebase 禁止 unwrap()", "our codebase bans raw SQL"): how they want the
# code the assistant writes, as said.
_CONVENTION = re.compile(
    r"(?i)(?:我们|咱们|我的|\bour|\bmy)\s*(?:team'?s? )?(?:codebase|code ?base|repo|项目|代码|代码库)"
    r"(?:里|中|里面)?\s*(?:禁止|不允许|不准|不许|统一用|必须用|只用|规定用|bans|forbids|doesn'?t allow|does not allow"
    r"|never uses|always uses|requires|must use)\s*[^，。！？,.;!?]{1,30}")

# Someone else's words before it: "my boss said keep it short" is no instruction of the user's.
_REPORTED_RE = re.compile(r"(?i)\b(?:said|says|told|tells|saying)\b|说|讲")


# The ways a reply style points, each held one way at a time: a newer "give me more detailed answers" ends "keep your
# answers short" (extract_core.single_valued_slot), "be blunt with me" does not (another way). A wish not to be told
# something, a convention of the user's code, "I just want practical stuff" point no such way: they add up.
_AXES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("length", re.compile(r"(?i)\b(?:short|shorter|brief|briefer|concise|to the point|long|longer|detailed|details?"
                          r"|thorough|in-depth|fuller)\b|少一点|少一些|少点|短一点|短点|简短|详细|细一点")),
    ("tone", re.compile(r"(?i)\b(?:direct|blunt|straight|brutally honest|gentle|gentler|kinder|nicer|softer)\b"
                        r"|直接|直白|温柔|委婉")),
    ("language", re.compile(r"(?i)\b(?:english|chinese|mandarin|cantonese|spanish|french|german|japanese|korean)\b"
                            r"|中文|英文|英语|粤语")),
)


def reply_style_axis(style: str) -> str | None:
    """Which way a reply style (as reply_style reads it) points: length, tone, language; None for one that adds up."""
    if style.startswith(_DONT_TELL) or _CONVENTION.search(style):
        return None
    return next((axis for axis, pattern in _AXES if pattern.search(style)), None)


def reply_style(clause: str) -> str | None:
    """How the clause asks the assistant to answer, as said ("don't tell me to do 'self care'", 字打少一点), or None."""
    zh = simplified(clause)
    for pattern, text in ((_DONT_TELL_EN, clause), (_STYLE_EN, clause), (_STYLE_ZH, zh), (_CONVENTION, zh)):
        if (m := pattern.search(text)) and not _REPORTED_RE.search(text[: m.start()]):
            return f"{_DONT_TELL} {m['what'].strip()}" if pattern is _DONT_TELL_EN else m[0].strip()
    return None
