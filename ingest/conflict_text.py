"""The words conflict rules compare, pure: whether a text says no (is_negated), the content terms two texts share
(content_terms, word_variants), a restatement with one detail changed (changed_detail), objects that overlap
(objects_overlap), and who and when a text speaks of (people, OTHERS_RE, TIME_TERM_RE, FIXED_DATE_RE).
ingest/conflict_rules.py and ingest/decision_rules.py read texts through these."""

from __future__ import annotations

import difflib
import re
import unicodedata

from ingest.extract import normalize_term
from ingest.lexicon import TIME_SAID_RE

# ----- negation -------------------------------------------------------------------------------------

# Words that contain a negation character but do not negate (or negate twice: 不得不 = must).
_ZH_NOT_NEGATIONS = (
    "不得不", "不错", "不过", "不仅", "不但", "不少", "不久", "不断", "不同", "不管", "不然", "要不", "差不多",
    "了不起", "对不起", "不好意思", "特别", "区别", "分别", "告别", "级别", "类别", "性别", "个别", "别人",
    "别的", "别处", "派别", "鉴别", "识别", "辨别", "无论", "非常", "非洲", "是非", "未来", "并非常", "没事",
    "莫名", "无比", "无限",
)
_ZH_NOT_NEGATIONS_RE = re.compile("|".join(sorted(_ZH_NOT_NEGATIONS, key=len, reverse=True)))
_ZH_NEGATION_RE = re.compile(r"不|没|沒|别|未|无|非|甭|勿|莫|休想")
_EN_NEGATION_RE = re.compile(
    r"\b(?:not|no|never|nothing|none|nobody|neither|nor|without|cannot|hardly|barely|no longer)\b|n't\b",
    re.IGNORECASE,
)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})


def normalized(text: str) -> str:
    """NFKC, curly quotes as straight ones."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


def is_negated(text: str) -> bool:
    """Whether a sentence says no: a Chinese negator outside known non-negating words, or an English one."""
    t = normalized(text)
    if _EN_NEGATION_RE.search(t):
        return True
    return bool(_ZH_NEGATION_RE.search(_ZH_NOT_NEGATIONS_RE.sub("", t)))


# ----- shared content --------------------------------------------------------------------------------

_HAN_RUN_RE = re.compile(r"[\u4e00-\u9fff]+")
_LATIN_WORD_RE = re.compile(r"[a-z][a-z']*")
_ZH_PRONOUN_CHARS = frozenset("我你您他她它们咱")
_ZH_STOP_BIGRAMS = frozenset({
    "喜欢", "讨厌", "现在", "以前", "之前", "觉得", "真的", "非常", "一个", "什么", "时候", "已经", "一直", "平时",
    "因为", "所以", "但是", "可是", "还是", "就是", "这个", "那个", "最近", "今天", "昨天", "明天", "特别", "比较",
    "有点", "一点", "一下", "知道", "可以", "应该", "想要", "需要", "愿意", "其实", "的确", "确实", "感觉",
})
_EN_STOP = frozenset({
    "i", "me", "my", "mine", "myself", "you", "your", "he", "she", "it", "we", "they", "them", "his", "her", "our",
    "their", "a", "an", "the", "and", "or", "but", "so", "to", "of", "in", "on", "at", "for", "with", "from", "by",
    "about", "as", "is", "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "done", "have",
    "has", "had", "will", "would", "can", "could", "should", "shall", "may", "might", "must", "really", "very",
    "now", "anymore", "any", "more", "much", "too", "also", "just", "still", "always", "ever", "some", "that",
    "this", "these", "those", "there", "here", "like", "likes", "liked", "love", "loves", "loved", "hate", "hates",
    "hated", "eat", "eats", "ate", "eating", "drink", "drinks", "drank", "drinking", "want", "wants", "need",
    "needs", "get", "go", "goes", "went", "enjoy", "enjoys", "prefer", "prefers", "think", "feel", "lot", "all",
    "don't", "doesn't", "didn't", "won't", "can't", "isn't", "aren't", "wasn't", "i'm", "i've", "i'd", "i'll",
    "these days", "lately", "today", "yesterday", "actually",
})


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_terms(text: str) -> set[str]:
    """Han bigrams (negators removed, none holding a pronoun, common ones left out) and English content
    words (stop words, negations and common verbs left out; plural s dropped)."""
    t = normalized(text).casefold()
    terms: set[str] = set()
    for run in _HAN_RUN_RE.findall(_ZH_NOT_NEGATIONS_RE.sub(" ", t)):
        run = _ZH_NEGATION_RE.sub("", run)
        for i in range(len(run) - 1):
            bigram = run[i: i + 2]
            if bigram in _ZH_STOP_BIGRAMS or any(ch in _ZH_PRONOUN_CHARS for ch in bigram):
                continue
            terms.add(bigram)
        if len(run) == 1 and run not in _ZH_PRONOUN_CHARS:
            terms.add(run)
    for word in _LATIN_WORD_RE.findall(t):
        if word in _EN_STOP or _EN_NEGATION_RE.fullmatch(word):
            continue
        terms.add(_stem(word.strip("'")))
    return terms


_TOKEN_RE = re.compile(r"[\u4e00-\u9fff]|[^\W_]+(?:'[^\W_]+)?")  # a Han character, or a word or number
NUMBER_RE = re.compile(r"\d+(?:[.,:]\d+)*")
# A restatement with one detail changed: at least this many tokens (short sentences are reworded freely: "My wife is
# called Anna" / "My wife's name is Anna", "learning / studying Spanish"), and at most this many changed in a row.
_RESTATED_MIN_TOKENS = 8
_RESTATED_MAX_CHANGED = 3
_FILLER_WORDS = frozenset({
    "a", "an", "the", "at", "of", "to", "in", "on", "is", "are", "was", "am", "be", "it's", "i'm", "right", "now",
    "moment", "currently", "these", "days", "lately", "recently", "nowadays", "just", "really", "actually", "also",
    "still", "today", "very", "so", "quite", "pretty", "kind", "sort", "bit"})


def word_variants(a: str, b: str) -> bool:
    """Two forms of one word (bike / biking, build / builds): all but the shorter one's last letter in common."""
    short = min(len(a), len(b))
    return short >= 3 and a[: short - 1] == b[: short - 1]


# Steps told in order ("first run make build, then rsync ...", 先炒蛋再炒番茄最后加糖, "Step 2"): a procedure, which a
# restatement with one place changed revises. Elsewhere one place changed is as often a second fact ("I love hotpot
# in Chengdu / at home") or a synonym ("love / enjoy hiking", 老婆 / 妻子) as a change of mind.
_STEPS_RE = re.compile(r"(?is)\bfirst\b.{0,80}\bthen\b|\bthen\b.{0,80}\b(?:then|finally)\b|\bstep\s*\d"
                       r"|先.{0,24}(?:再|然后|接着|最后)|然后.{0,30}(?:然后|最后)|步骤|第[一二三1-3]步")


def changed_detail(new_text: str, old_text: str) -> tuple[list[str], list[str]]:
    """What the new text says instead of the old one's words when it restates a procedure word for word but one
    place ("To deploy the blog: first run make release, ..." for "... make build, ...", 最后加盐 for 最后加糖), or any
    text with only a number changed ("75 mcg" for "50 mcg"): the new tokens and the old ones they replace, ([], [])
    otherwise (a rewording, an addition, a word order, two places, a short text, a text of no steps)."""
    new = [t.casefold() for t in _TOKEN_RE.findall(unicodedata.normalize("NFKC", new_text))]
    old = [t.casefold() for t in _TOKEN_RE.findall(unicodedata.normalize("NFKC", old_text))]
    ops = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(ops) != 1 or ops[0][0] != "replace":
        return [], []
    _, i1, i2, j1, j2 = ops[0]
    added, dropped = new[j1:j2], old[i1:i2]
    if max(len(added), len(dropped)) > _RESTATED_MAX_CHANGED:
        return [], []
    if all(NUMBER_RE.fullmatch(t) for t in added + dropped):  # "75 mcg" for "50 mcg": a number, in any length
        return (added, dropped) if min(len(new), len(old)) >= 3 else ([], [])
    if min(len(new), len(old)) < _RESTATED_MIN_TOKENS or set(added + dropped) <= _FILLER_WORDS \
            or not (_STEPS_RE.search(new_text) and _STEPS_RE.search(old_text)):
        return [], []  # short sentences are reworded freely; "right now" for "at the moment" changes nothing
    return added, dropped


# ----- objects -----------------------------------------------------------------------------------------


def _latin_words(term: str) -> set[str]:
    return {_stem(w.strip("'")) for w in _LATIN_WORD_RE.findall(term) if w not in _EN_STOP}


def objects_overlap(a: str, b: str) -> bool:
    """Equal after normalisation, or one contained in the other (a Han substring, or a subset of English
    content words): 辣 / 辣的川菜, spicy food / spicy Sichuan food."""
    na, nb = normalize_term(a), normalize_term(b)
    if not na or not nb:
        return False
    if na == nb:
        return True
    short, long_ = (na, nb) if len(na) <= len(nb) else (nb, na)
    if _HAN_RUN_RE.fullmatch(short) and short in long_:
        return True
    wa, wb = _latin_words(na), _latin_words(nb)
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)



TIME_TERM_RE = re.compile(rf"{TIME_SAID_RE.pattern}|^(?:am|pm|at|on|moved|again|time)$|^\d+$", re.IGNORECASE)
# A date that is a fact, not an event that moves ("Maya's birthday is on May 5th": her party may move, not it).
FIXED_DATE_RE = re.compile(r"(?i)\b(?:birthday|anniversary|birth ?date)(?:'s| is| falls)\b|生日是|纪念日是")


