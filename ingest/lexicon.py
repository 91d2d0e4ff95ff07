"""Shared zh/en keyword lists and text helpers for the ingest rules (classifier, salience, extractor).

Everything here is data or a small pure function over text: no model, no I/O. The lists are
general-purpose (common greetings, feeling words, well-known places); they were grown by reading the
*train* split errors only (see tests/data/README.md).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

# ---------------------------------------------------------------------------------------------
# text helpers


def normalize_text(text: str) -> str:
    """NFKC (full-width punctuation -> ASCII, so one regex serves both), collapsed whitespace, and traditional
    Chinese characters in their simplified forms (simplified)."""
    text = simplified(unicodedata.normalize("NFKC", text))
    return re.sub(r"\s+", " ", text).strip()


# Traditional characters as their simplified forms (common ones in chat: 這個, 還是, 搬到新竹了, 過敏), for the rules,
# which are written in simplified Chinese: a user who writes traditional is read by the same rules (b027 of
# bench/data/dialogues_blind1.jsonl moved house and no rule read it). Only characters with one simplified form in
# everyday use: not 乾 (干 and 乾隆) nor 著 (着 and 著名). The stored text keeps what the user wrote, and full-text
# terms are matched as written.
_TRADITIONAL = (
    "們這個來時說會對後還麼為過沒現點見話邊學開關問間長東車電動網買賣錢熱氣場樣種認識讓請謝嗎給經題發覺應該幫歡愛麗飯飲魚雞鴨豬麵湯蝦鹽醬藥醫療癢瘋體頭臉腦腳髮聽讀寫畫戲遊運籃團隊員師際職業務區縣鎮鄉國島灣"
    "廣華漢語譯義論記憶計劃準備辦處離媽爺孫兒親嬸鄰樓層廳臥廁廚門鑰機筆紙書報雜誌節慶禮歲壽圓萬億兩幾數號碼價貴賺資銀貸險稅費濟產導寵貓鳥馬龍鬥養餵隻條張塊盤鍋飽餓鹹燙涼溫陽陰雲風颱臺霧週確實驗試績級課練習"
    "複簡單難壓鬆緊煩惱憂鬱慮擔驚嚇憤傷淚懷夢總終於從與雖並衛視聞劇錄聲樂藝術設攝遠較鐘錶鬧趕遲誤錯選擇決換變轉調態狀況壞舊歷紀專註冊證據護簽續線結構參觀訪飛鐵軌約議討講談訴聯絡繫傳訊貼覽頁標讚評倆糰餅飩餃"
    "鮮蔥薑豐蘋鳳漿滷燒鍵螢軟韓歐亞紐倫莊園橋館舖鋪櫃檯燈鏡緣贏輸負勝敗漲貨幣額帳戶齡婦誕寶貝嬰齊隨裡裏蟲獸猶劑針啟彈鋼聰穩營減訓騎釣賽獎盃腎臟膽脹嚴輕戀異闆銷廠辭憑繳糧惡噁囉嘍喲齣誰將帶雙紅綠藍黃顏麥獨戰"
    "勞榮興舉響權衝檢測蘿蔔蘆筍腸殼蠔顆復髒淨潔濕凍輛駛駕財庫鏈債領組織僑屬歸劉陳吳趙楊鄭蘇馮鄧葉羅許蔣嬤姪聖賀唸鍛鍊煉滅夠極綜爐餛滿繃緒恆龜稱虛彎紹細係廢嘆歎瞭瀏誇賬順顧慣競爭嗆燉鱷鴿鵝魯蘭蓮黨勵灑濃淺漸"
    "邏輯圖詢諮詳誠謊陸陣隱靜頓頻顯飄餘騙驅鳴齒碩當無進連達適質購類願預須靈階郵釋違跡製規訂詞諾裝統絲維縮繼罰肅臨艙範築監眾盡畢環獲烏澤橫檔樹槍殺斷敵攜擠擁懶悅徑強屆尋寬奪夥圍匯勁僅儘僱協佔賓潛峽帥彙睏礙窮爾"
)
_SIMPLIFIED = (
    "们这个来时说会对后还么为过没现点见话边学开关问间长东车电动网买卖钱热气场样种认识让请谢吗给经题发觉应该帮欢爱丽饭饮鱼鸡鸭猪面汤虾盐酱药医疗痒疯体头脸脑脚发听读写画戏游运篮团队员师际职业务区县镇乡国岛湾"
    "广华汉语译义论记忆计划准备办处离妈爷孙儿亲婶邻楼层厅卧厕厨门钥机笔纸书报杂志节庆礼岁寿圆万亿两几数号码价贵赚资银贷险税费济产导宠猫鸟马龙斗养喂只条张块盘锅饱饿咸烫凉温阳阴云风台台雾周确实验试绩级课练习"
    "复简单难压松紧烦恼忧郁虑担惊吓愤伤泪怀梦总终于从与虽并卫视闻剧录声乐艺术设摄远较钟表闹赶迟误错选择决换变转调态状况坏旧历纪专注册证据护签续线结构参观访飞铁轨约议讨讲谈诉联络系传讯贴览页标赞评俩团饼饨饺"
    "鲜葱姜丰苹凤浆卤烧键萤软韩欧亚纽伦庄园桥馆铺铺柜台灯镜缘赢输负胜败涨货币额账户龄妇诞宝贝婴齐随里里虫兽犹剂针启弹钢聪稳营减训骑钓赛奖杯肾脏胆胀严轻恋异板销厂辞凭缴粮恶恶啰喽哟出谁将带双红绿蓝黄颜麦独战"
    "劳荣兴举响权冲检测萝卜芦笋肠壳蚝颗复脏净洁湿冻辆驶驾财库链债领组织侨属归刘陈吴赵杨郑苏冯邓叶罗许蒋嬷侄圣贺念锻炼炼灭够极综炉馄满绷绪恒龟称虚弯绍细系废叹叹了浏夸账顺顾惯竞争呛炖鳄鸽鹅鲁兰莲党励洒浓浅渐"
    "逻辑图询咨详诚谎陆阵隐静顿频显飘余骗驱鸣齿硕当无进连达适质购类愿预须灵阶邮释违迹制规订词诺装统丝维缩继罚肃临舱范筑监众尽毕环获乌泽横档树枪杀断敌携挤拥懒悦径强届寻宽夺伙围汇劲仅尽雇协占宾潜峡帅汇困碍穷尔"
)
_TO_SIMPLIFIED = str.maketrans(_TRADITIONAL, _SIMPLIFIED)


def simplified(text: str) -> str:
    """The text with the traditional characters of _TRADITIONAL as their simplified forms."""
    return text if text.isascii() else text.translate(_TO_SIMPLIFIED)  # most English costs one check


HAN = r"\u4e00-\u9fff"
HAN_RE = re.compile(f"[{HAN}]")

# Clause boundaries: punctuation, plus "but"-like conjunctions, which start a new statement.
_CLAUSE_SPLIT_RE = re.compile(
    # a colon between digits is a time ("I wake up at 6:30"), no clause's end; nor a comma in a list of weekdays
    # ("on Mondays, Wednesdays and Fridays"), nor one between digits ("$4,200 a month")
    r"(?<=\?)\s*|[!;。！；…\n~]+"
    r"|(?:(?<!\d),|,(?!\d)),*(?!\s*(?:and |or )?(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b)"
    r"|(?<!\d):|:(?!\d)|(?<!\bSt)(?<!\bMt)(?<!\bDr)\.(?=\s|$)|\s+-\s+|\s*—\s*"
    r"|(?:但是|不过(?!敏)|可是|而且|并且)"
    r"|\s+(?:but|and then|though)\s+"
    # chat puts a space where a comma goes between two Chinese clauses ("我没去过厦门 老陈去过好几次了")
    rf"|(?<=[{HAN}])\s+(?=[{HAN}])",
    re.IGNORECASE,
)


# "I live in Boston and I work at Moderna": a clause whose subject is the speaker, joined by "and" to another
# the speaker starts again, is two statements. Only when the first one starts with the speaker as subject:
# "My sister and I live in Paris" is one statement with two subjects. Chat writes the "and" as "&" too ('my favorite
# color is "teal" & my lucky number is 7': no colour "teal" & my lucky number...).
_SPEAKER_SUBJECT_RE = re.compile(r"(?i)^(?:i|i'm|i've|i'd|i'll|i am|we|we're|we've|we'd|we'll)\b")
_AND_SPEAKER_AGAIN_RE = re.compile(r"(?i)\s+(?:and|&)\s+(?=(?:i|i'm|i've|i'd|i'll|i am|my|we|we're|we've|we'll)\s)")


# A clause about someone of the speaker's ("My wife Anna is a doctor and I live in Boston") is split the same way
# once a verb has been said before the "and": "My sister and I live in Paris" has none, and stays whole.
_POSSESSIVE_SUBJECT_RE = re.compile(r"(?i)^(?:my|our)\s")
_VERB_BEFORE_AND_RE = re.compile(
    r"(?i)(?<![A-Za-z'])(?:is|are|was|were|am|has|have|had|lives|lived|works|worked|loves|loved|likes|liked|hates"
    r"|studies|studied|goes|went|got|turned|turns|became|becomes)(?![A-Za-z'])")


def _speaker_again(clause: str) -> list[str]:
    """A clause split where the speaker starts again after "and" (see _AND_SPEAKER_AGAIN_RE)."""
    if _SPEAKER_SUBJECT_RE.match(clause):
        return _AND_SPEAKER_AGAIN_RE.split(clause)
    if _POSSESSIVE_SUBJECT_RE.match(clause):
        parts = _AND_SPEAKER_AGAIN_RE.split(clause, maxsplit=1)
        if len(parts) == 2 and _VERB_BEFORE_AND_RE.search(parts[0]):
            return [parts[0], *_speaker_again(parts[1])]
    return [clause]


def split_clauses(text: str) -> list[str]:
    """Split an utterance into clauses (normalised, non-empty)."""
    # a '?' stays on its clause (is_question reads it); other separators are dropped
    clauses = [c.strip() for c in _CLAUSE_SPLIT_RE.split(normalize_text(text)) if c and c.strip(" ?")]
    return [part for c in clauses for part in _speaker_again(c)]


def has_han(text: str) -> bool:
    return HAN_RE.search(text) is not None


def word_list(text: str) -> list[str]:
    """The words of a long literal list written as one string, space-separated (it reads better so)."""
    return text.split()


def words_re(words: Iterable[str], *, en: bool = False) -> re.Pattern[str]:
    """One alternation over the words, longest first; English words get word boundaries."""
    alts = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    if en:
        return re.compile(rf"(?<![A-Za-z])(?:{alts})(?![A-Za-z])", re.IGNORECASE)
    return re.compile(f"(?:{alts})")


# ---------------------------------------------------------------------------------------------
# who is speaking about whom

FIRST_PERSON_RE = re.compile(
    r"我|咱|(?<![A-Za-z])(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|we|our|us)(?![A-Za-z])", re.IGNORECASE
)
SECOND_PERSON_RE = re.compile(r"你|您|(?<![A-Za-z])(?:you|your|u)(?![A-Za-z])", re.IGNORECASE)


def has_first_person(text: str) -> bool:
    return FIRST_PERSON_RE.search(text) is not None


# ---------------------------------------------------------------------------------------------
# turns that carry nothing to remember

GREETINGS = [
    "你好",
    "您好",
    "你好呀",
    "你好啊",
    "嗨",
    "哈喽",
    "哈啰",
    "在吗",
    "早上好",
    "早安",
    "中午好",
    "下午好",
    "晚上好",
    "晚安",
    "早",
    "hello",
    "hi",
    "hey",
    "hiya",
    "yo",
    "good morning",
    "good afternoon",
    "good evening",
    "good night",
    "hi there",
    "hello there",
    "hey there",
    "morning",
    "howdy",
    "greetings",
]
CHITCHAT = [
    "好的",
    "好",
    "好吧",
    "好哒",
    "好滴",
    "嗯",
    "嗯嗯",
    "恩",
    "哦",
    "噢",
    "喔",
    "哦哦",
    "哈哈",
    "哈哈哈",
    "呵呵",
    "嘿嘿",
    "谢谢",
    "谢谢你",
    "多谢",
    "感谢",
    "没事",
    "没事了",
    "没关系",
    "拜拜",
    "再见",
    "下次再聊",
    "知道了",
    "明白了",
    "我明白了",
    "我知道了",
    "懂了",
    "不错",
    "不错不错",
    "厉害",
    "对",
    "对对",
    "对对对",
    "是的",
    "是啊",
    "没错",
    "有道理",
    "行",
    "可以",
    "这样啊",
    "哦这样啊",
    "原来如此",
    "收到",
    "了解",
    "ok",
    "okay",
    "k",
    "thanks",
    "thank you",
    "thank you so much",
    "thanks a lot",
    "thx",
    "ty",
    "lol",
    "lmao",
    "cool",
    "nice",
    "great",
    "awesome",
    "got it",
    "sure",
    "sounds good",
    "bye",
    "bye for now",
    "see you",
    "haha",
    "hahaha",
    "never mind",
    "nevermind",
    "yes",
    "yes please",
    "no",
    "nope",
    "yep",
    "yeah",
    "hmm",
    "hmm okay",
    "right",
    "i see",
    "makes sense",
    "that makes sense",
    "fine",
    "alright",
    "good",
    "wow",
    "啦",
    "呀",
    "吧",
    "啊",
    "还行",
    "我觉得还行",
    "也还行",
    "我也是",
    "我同意",
    "不知道",
    "我不知道",
    "随便",
    "都行",
    "无所谓",
    "me too",
    "i agree",
    "i think so",
    "i guess",
    "i guess so",
    "maybe",
    "not sure",
    "i'm not sure",
    "i don't know",
    "idk",
    "same",
    "whatever",
    "either is fine",
    # coming back or about to ask: about the conversation, not the user ("Hey, I'm back. Can you recommend ...")
    "i'm back",
    "i am back",
    "back again",
    "i'm here",
    "i'm wondering",
    "i was wondering",
    "i'm curious",
    "just curious",
    "quick question",
    "i have a question",
    "one more question",
    "i need help",
    "i need your help",
    "我回来了",
    "我有个问题",
    "问你个问题",
    "我想问一下",
    "我想问问",
]
_CHITCHAT_SET = {w.lower() for w in CHITCHAT} | {w.lower() for w in GREETINGS}
_TOKEN_SPLIT_RE = re.compile(r"[\s,.!?;:。！？，~…]+")
_CHITCHAT_TOKEN_RE = words_re(
    sorted(_CHITCHAT_SET - {"k", "ty", "no", "yo", "早", "好", "对", "行", "啦", "呀", "吧", "啊"}), en=True
)


_GREETING_RE = words_re(GREETINGS, en=True)


def _residue_after(words_pattern: re.Pattern[str], text: str) -> str:
    rest = words_pattern.sub(" ", normalize_text(text).lower())
    return _TOKEN_SPLIT_RE.sub("", rest)


def is_greeting(text: str) -> bool:
    """A turn made of a greeting only (可以带语气词)."""
    rest = _residue_after(_GREETING_RE, text)
    return rest == "" or rest in {"呀", "啊", "哦", "there", "啦", "你", "您"}


# Love sent to the assistant ("晚安啦 爱你么么哒" was kept as a preference): small talk. (Signing off to do something
# now, "谢啦 去吃早饭了", is labelled a memory in tests/data: 刚下班，准备回家做饭; 等一下，我去倒杯水.)
_AFFECTION_ZH_RE = re.compile(r"(?:爱你|想你)(?:么么哒|哦|呀|哟|啦)?|么么哒|mua+|比心")


def is_affection(clause: str) -> bool:
    """A clause that only sends love or kisses to the assistant."""
    return _AFFECTION_ZH_RE.fullmatch(normalize_text(clause).rstrip("~～!！。.❤️💕😘")) is not None


def is_chitchat(text: str) -> bool:
    """A turn made only of acknowledgements, laughter, thanks, greetings, goodbyes."""
    norm = normalize_text(text).lower()
    if not norm:
        return True
    tokens = [t for t in _TOKEN_SPLIT_RE.split(norm) if t]
    if tokens and all(t in _CHITCHAT_SET for t in tokens):
        return True
    rest = _residue_after(_CHITCHAT_TOKEN_RE, norm)
    return (
        rest in {"", "啦", "呀", "吧", "啊", "哦", "了", "哈", "嘛"} or re.fullmatch(r"[哈嘿呵h a]+", rest) is not None
    )


# Discourse vocabulary (salience, filter 1): the words a turn is made of when it only manages the
# conversation (acknowledging, reacting, agreeing, steering: "Sure, go ahead", "That is interesting",
# "Let's talk about something else", 好的，继续 / 有意思 / 我们聊点别的吧) and so holds no fact. A clause is
# discourse only when *every* word is in here; any other word (a noun, a place, a digit, a feeling, a
# verb of doing) may carry a fact and keeps the clause. Closed classes only: interjections and
# acknowledgements, reaction adjectives, degree adverbs, function words, conversation nouns and verbs.
# No time, place or possession word, and no feeling word but "worry" ("don't worry"; "I worry" stays: a
# first-person subject needs one of DISCOURSE_VERBS_EN).
# fmt: off
DISCOURSE_WORDS_EN = frozenset({
    # interjections, acknowledgements, thanks, apologies, goodbyes
    "oh", "ooh", "ah", "ahh", "aha", "aw", "aww", "wow", "whoa", "woah", "hmm", "hmmm", "hm", "mm", "mmm", "mhm",
    "um", "umm", "uh", "huh", "er", "yeah", "yea", "yes", "yep", "yup", "ya", "yah", "no", "nope", "nah", "ok",
    "okay", "okey", "k", "kk", "sure", "alright", "right", "well", "anyway", "anyways", "haha", "hahaha", "hehe",
    "heh", "lol", "lmao", "rofl", "omg", "gosh", "jeez", "yay", "thanks", "thank", "thx", "ty", "tysm", "please",
    "pls", "plz", "sorry", "bye", "cheers", "welcome", "np", "gotcha", "touché", "touche", "indeed", "hello", "hi",
    "hey", "tbh", "ngl", "idk",
    # reactions (to what was said, not states of the speaker)
    "interesting", "great", "good", "nice", "cool", "awesome", "amazing", "fantastic", "wonderful", "excellent",
    "perfect", "brilliant", "fascinating", "funny", "hilarious", "fun", "true", "fair", "fine", "correct", "wrong",
    "helpful", "useful", "clear", "smart", "clever", "neat", "lovely", "sweet", "impressive", "incredible",
    "unbelievable", "wild", "crazy", "weird", "strange", "surprising", "insightful", "informative", "genius",
    "beautiful", "bad", "awful", "terrible", "horrible", "valid", "obvious", "possible", "same",
    # degree and discourse adverbs
    "really", "very", "so", "quite", "pretty", "too", "totally", "absolutely", "definitely", "exactly", "certainly",
    "truly", "just", "also", "actually", "kinda", "kind", "sort", "course", "enough", "surely", "still", "then",
    "now", "again", "more", "much", "bit", "little", "all", "even", "super", "seriously", "literally", "though",
    "maybe", "perhaps", "probably", "either", "neither", "here", "later", "not", "never",
    # function words
    "a", "an", "the", "that", "that's", "thats", "this", "it", "it's", "its", "these", "those", "is", "isn't", "was",
    "wasn't", "are", "aren't", "be", "been", "what", "what's", "how", "such", "some", "any", "one", "other",
    "another", "something", "anything", "else", "you", "your", "you're", "youre", "yours", "u", "ur", "me", "us",
    "let", "let's", "lets", "can", "could", "would", "will", "should", "do", "does", "did", "don't", "dont",
    "doesn't", "doesnt", "didn't", "of", "about", "for", "with", "to", "by", "and", "or", "but", "back", "on",
    "ahead",
    # conversation nouns
    "idea", "point", "question", "questions", "topic", "subject", "story", "answer", "suggestion", "suggestions",
    "advice", "tip", "tips", "explanation", "info", "information", "thoughts", "conversation", "plan", "deal",
    "problem", "worries", "luck", "way", "sense",
    # conversation verbs (steering, reacting, understanding)
    "sounds", "sound", "seems", "seem", "looks", "makes", "make", "like", "works", "helps", "go", "goes", "going",
    "keep", "carry", "continue", "proceed", "move", "moving", "change", "switch", "talk", "talking", "chat", "say",
    "said", "tell", "hear", "listen", "explain", "elaborate", "think", "thought", "see", "agree", "disagree",
    "understand", "get", "got", "know", "mean", "guess", "suppose", "follow", "wonder", "believe", "bet", "mind",
    "matter", "matters", "forget", "help", "try", "wait", "hold", "hang", "worry",
})
# The speaker as a subject ("I see", "we'll see") only with a verb of understanding, agreeing or talking:
# "I agree" is discourse, "I go" / "I'm fine" / "my point" are not (possessive and stative first person,
# my / I'm / I've / we're, are never discourse).
DISCOURSE_SUBJECTS_EN = frozenset({"i", "we", "i'll", "we'll", "i'd", "we'd"})
DISCOURSE_VERBS_EN = frozenset({
    "see", "agree", "disagree", "understand", "get", "got", "know", "mean", "guess", "suppose", "think", "thought",
    "follow", "hear", "wonder", "believe", "bet", "say", "talk", "chat", "continue",
})
# Verbs of changing or moving steer the talk only with a conversation complement ("I'll change the subject",
# "we'll move on", "let's switch topics", "switch gears"); as the speaker's own verb without one they state a
# plan ("We will move again", "I'll change"), which is kept as a possible fact. The steering complements
# (topics and gears only here: alone they are not discourse words), and what may stand between the speaker
# and the verb ("we are going to move", "I'd like to change").
DISCOURSE_CHANGE_VERBS_EN = frozenset({"move", "change", "switch"})
DISCOURSE_STEER_EN = frozenset({"on", "topic", "topics", "subject", "gears", "else", "conversation"})
DISCOURSE_AUX_EN = frozenset({
    "will", "would", "can", "could", "should", "do", "did", "don't", "dont", "didn't", "are", "be", "going", "to",
    "like", "not", "never", "just", "also", "really", "probably", "maybe", "perhaps", "definitely", "certainly",
    "surely", "totally", "actually", "still", "then", "now", "even", "again",
})
# Interjection idioms that contain "my": the only places where "my" is discourse.
DISCOURSE_IDIOMS_EN = ("oh my god", "oh my gosh", "oh my", "my god", "my gosh", "my bad", "my pleasure",
                       # signing off ("thanks, gotta run", "ok that's it for today": both were kept as knowledge)
                       "gotta run", "gotta go", "got to go", "got to run", "have to run", "have to go", "gtg",
                       "ttyl", "talk later", "talk to you later", "catch you later", "see you later", "see ya",
                       "it for today", "all for today", "it for now", "all for now",
                       # thanks for the assistant's help, and judging its answer ("Right, thanks for reminding
                       # me", "Perfect, that's exactly the format", "Good call")
                       "for reminding me", "the reminder", "the format", "good call")
# Chinese: no word boundaries, so these are removed as substrings (longest first) and a clause is
# discourse when no Han character is left. First person only inside the compounds listed (我明白 / 我们聊):
# a lone 我 is left over and keeps the clause.
DISCOURSE_ZH = (
    # particles and interjections
    "啊", "呀", "吧", "呢", "啦", "嘛", "哦", "噢", "喔", "哈", "嘿", "呵", "嗯", "恩", "哇", "诶", "欸", "哟", "咯",
    "嘞", "呗", "耶", "了", "的", "得",
    # acknowledgements, agreement, thanks
    "好的", "好吧", "好嘞", "好哒", "好滴", "好呀", "好啊", "好", "行", "可以", "没问题", "没事", "没关系", "收到",
    "了解", "明白", "懂", "知道", "对", "是的", "是啊", "是", "没错", "确实", "的确", "真的", "原来", "如此", "这样",
    "那样", "这么", "那么", "也是", "倒是", "当然", "同意", "赞同", "谢谢", "感谢", "多谢", "谢了", "辛苦了",
    "不客气", "不用谢", "算了", "随便", "都行", "无所谓", "先这样", "就这样", "怪不得", "难怪", "果然", "不是",
    "不对", "不行", "学到了", "受教了", "长见识了", "涨知识了",
    # reactions
    "说得对", "说得好", "说得是", "有道理", "有意思", "没意思", "有趣", "好玩", "不错", "厉害", "牛", "棒", "酷",
    "赞", "妙", "神奇", "逗", "搞笑", "好主意", "主意", "想法", "看法", "观点", "哈哈",
    # degree and discourse adverbs, function words
    "挺", "很", "真", "太", "超", "非常", "特别", "蛮", "相当", "实在", "简直", "有点", "也", "都", "就", "那就",
    "那", "这个", "那个", "这", "还是", "然后", "先", "再", "一点", "一点儿", "一些", "一下", "点儿", "点",
    # conversation: steering and what is talked about
    "继续", "接着", "说", "讲", "聊", "谈", "多说", "多讲", "多聊", "说点", "讲点", "聊点", "聊聊", "说说", "讲讲",
    "聊天", "别的", "其他", "其它", "话题", "换个话题", "换个", "换", "下一个", "接下来", "你", "您", "你的", "建议",
    "回答", "解释", "意见", "分享", "帮助", "帮忙", "信息", "内容", "故事", "问题", "意思",
    # the speaker, only with understanding / agreeing / talking
    "我明白", "我懂", "我知道", "我同意", "我了解", "我赞同", "我也觉得", "我也这么觉得", "我也这么想", "我觉得也是",
    "我想想", "我再想想", "让我想想", "我考虑一下", "我看看", "我们聊", "咱们聊", "我们换个", "咱们换个", "我们换",
    "咱们换", "我们继续", "咱们继续", "我们说", "咱们说", "我们谈", "咱们谈",
)
# 我们换 / 咱们换 steer the talk only with a conversation complement or a hortative 吧 (我们换个话题, 咱们换吧);
# otherwise the speaker states a change of theirs (我们换了, 我们换), kept as a possible fact.
DISCOURSE_ZH_SPEAKER_CHANGE = ("我们换", "咱们换")
DISCOURSE_ZH_STEER = ("话题", "别的", "其他", "其它")
# fmt: on


# Questions: a clause asking something, in either language.
_ZH_QUESTION_RE = re.compile(
    # 不怎么 / 没怎么 ("not much", "hardly": 我现在不怎么打乒乓球了) is a degree, no question
    r"(?:什么|啥|(?<![不没])怎么|怎样|为什么|为啥|哪(?:里|儿|个|些|家|种|天)?(?!也|都)|(?<![前这好十])几(?:点|个|号|天|岁|次|种)"
    r"|多少|多久|多大|(?<![a-z])谁|如何|是否|能不能|可不可以|会不会|有没有|要不要|是不是|好不好|行不行|对不对)"
    r"(?!都|也)"
)
_ZH_QUESTION_END_RE = re.compile(r"(?:吗|嘛|么|呢)[\s?？]*$")
_ZH_A_FEW_RE = re.compile(r"(?<=[住待玩呆休请歇忙过])几(?:天|个月|周|个星期|年)")
_EN_QUESTION_START_RE = re.compile(
    r"^(?:what|what's|whats|how|why|where|when|who|whom|which|can|could|would|will|do|does|did|is|are"
    r"|should|shall|any|may|have you|has)(?![A-Za-z])",
    re.IGNORECASE,
)


# "Will" and "May" are names (and a month) too: followed by a verb they are the subject of a statement ("Will got
# an A", "May is my sister", "Will started school"), not an auxiliary ("Will you ...", "May I ...").
_NAME_NOT_AUX_RE = re.compile(r"^(?:Will|May)\s+(?:is|was|has|had|got|gets|and|likes|loves|wants|[a-z]+ed)(?![A-Za-z])")


def is_question(clause: str) -> bool:
    """True when the clause asks something (ends in '?', a zh question word/particle, en wh-start)."""
    c = normalize_text(clause)
    if not c:
        return False
    if c.endswith("?"):
        return True
    if has_han(c) and (_ZH_QUESTION_END_RE.search(c) or _ZH_QUESTION_RE.search(c)):
        # "什么都不想做" / "哪儿也去不了" are statements, handled by the (?!都|也) guards above; so is "a few days"
        # after a verb, said of someone but the listener (我妈要来杭州住几天 was no memory, as a question)
        return not (_ZH_A_FEW_RE.search(c) and not _ZH_QUESTION_END_RE.search(c) and "你" not in c and "您" not in c
                    and not _ZH_QUESTION_RE.search(_ZH_A_FEW_RE.sub("", c)))
    # An English wh/aux start without a first-person statement in it ("When I was in Rome" is not).
    return (bool(_EN_QUESTION_START_RE.search(c)) and not _NAME_NOT_AUX_RE.search(c)
            and not re.search(r"(?<![A-Za-z])i(?![A-Za-z'])", c, re.IGNORECASE))


# Requests to the assistant (imperatives): the task lives in the session, not in memory.
_REQUEST_RE = re.compile(
    r"^(?:请|麻烦|帮我|帮忙|给我|替我|把|讲个|讲一个|说个|写一|写个|推荐|查一下|查查|翻译|总结|算一下|计算|换一|换个"
    r"|再来|再说|再详细|再简单|继续|用\s?\S+\s?写|告诉我|解释一下|搜一下|生成|列出|提醒我|忽略|假装|扮演)"
    r"|(?<![A-Za-z])(?:please|help me|translate|calculate|compute|write me|write a|tell me|give me|set a timer"
    r"|set an alarm|summari[sz]e|make it|explain|continue|show me|find me|remind me|recommend|list|rewrite"
    r"|draft|convert|generate|search for|look up|make me|make (?:a|an|my) (?:list|checklist|plan|schedule|table"
    r"|summary|shopping list|packing list|to-?do list)"
    # instructions to the assistant about itself (prompt injection): a task, never a fact about the user
    r"|ignore (?:all |any |the |your )?(?:previous|prior|above|earlier)|disregard|act as|pretend|role-?play"
    r"|you are now|forget everything)(?![A-Za-z])",
    re.IGNORECASE,
)


# A turn that tells the next step of what the turns before began ("First, I run make build." / "Then I rsync ..." /
# "Finally I purge the CDN.", 然后 / 最后 / 第二步): written so Java (Cypher's =~, whole text) reads it as Python does.
# Verbs a step is told with as an order ("Then tag the commit and push the tag", "Finally, CI publishes" has its
# comma): not a past tense ("Then went home" is a story).
STEP_VERBS_EN = (r"(?:tag|push|pull|run|bump|build|deploy|merge|open|click|add|install|copy|move|set|restart|wait"
                  r"|check|commit|create|update|upload|rsync|purge|publish|release|cherry-pick|branch|rebase|test"
                  r"|mix|stir|boil|bake|pour|chop|heat|put|remove|delete|select|type|enter|save|close|turn|press"
                  r"|log in|sign in|go to|send|email|call|fill|submit|attach|sign|print|rinse|drain|serve|let it)")
# Someone a turn speaks of without naming ("physio says IT band syndrome", 医生说要多休息): a follow-up opening with
# he or she ("she gave me clamshells to do every night") is about them (cypher/association/form_many.cypher), as
# it is about a person or pet the turn names.
PERSON_WORD_PATTERN = (
    r"(?is).*(?:(?<![a-z])(?:mom|mum|mother|dad|father|sister|brother|wife|husband|partner|boyfriend|girlfriend"
    r"|son|daughter|grandma|grandpa|aunt|uncle|cousin|friend|boss|manager|colleague|coworker|co-worker|neighbou?r"
    r"|landlord|landlady|roommate|doctor|doc|dr|gp|physio|physiotherapist|therapist|counsel+or|psychiatrist|dentist"
    r"|nurse|vet|coach|trainer|teacher|tutor|professor|prof|advisor|adviser|supervisor|lawyer|social worker"
    r"|mechanic|barber|hairdresser)s?(?![a-z])"
    r"|妈|爸|老婆|老公|媳妇|男朋友|女朋友|对象|儿子|女儿|姐|哥|弟|妹|奶奶|爷爷|姥姥|外婆|姥爷|外公|阿姨|叔叔|舅舅|朋友|领导|老板"
    r"|上司|同事|邻居|房东|室友|医生|大夫|理疗师|治疗师|咨询师|牙医|护士|兽医|教练|老师|导师|律师).*"
)
SEQUENCE_STEP_PATTERN = (
    r"(?is)\s*(?:(?:and|ok|okay|so|oh)[,.]?\s+)?"
    # a step word then a comma or the one doing the step ("Then I rsync", "First, run ..."): not "Finally got my
    # license!", "Next week I'm moving", "Then again", "Second-hand smoke"
    r"(?:(?:first(?:ly)?|then(?! again)|next|after that|afterwards|finally|lastly|second(?:ly)?|third(?:ly)?)"
    r"(?:\s*,|\s+(?:i|we|you)\b)|(?:then(?! again)|after that|afterwards)\s+(?=" + STEP_VERBS_EN
    + r"\b(?!\s+(?:is|was|are|were|will|went|'s)\b))|step \d+"
    r"|(?:然后|接着|之后)|最后(?!一次|一天|一个|一回)|首先(?!我想说|要感谢|谢谢)|第[一二三四五六七八九十\d]步).*"
)
SEQUENCE_STEP_RE = re.compile(SEQUENCE_STEP_PATTERN)


# A reminder the user asks for ("Remind me to send the case study by Thursday", 提醒我明天给妈妈打电话): a task, and
# a plan of theirs (salience keeps one for another day). Asking to be told a fact ("remind me what her name is",
# 提醒我一下她叫什么) is a question, not a reminder.
REMINDER_RE = re.compile(
    r"^(?:(?:please|pls|hey|ok|okay|oh|and|also|can you|could you|would you|will you)[\s,]+)*remind me"
    r"(?: (?:(?!what|who|where|when|how|why|which|if|whether)\b[^,.;:?!\s]+ ){0,5}?)?(?:to|that|about) (?=\w)"
    r"|^(?:请|麻烦|记得|你)?提醒我(?!.*(?:什么|谁|哪|几[点个号天]|多少|吗|么|呢))",
    re.IGNORECASE,
)


def is_reminder(clause: str) -> bool:
    c = normalize_text(clause)
    return REMINDER_RE.search(c) is not None  # "Can you remind me to water the plants?" too


def is_request(clause: str) -> bool:
    """An imperative addressed to the assistant (帮我算一下 / translate this)."""
    c = normalize_text(clause)
    if not c:
        return False
    m = _REQUEST_RE.search(c)
    if m is None:
        return False
    # English imperatives must open the clause ("please" may sit anywhere); zh ones are anchored already.
    if m.start() > 0 and not m.group(0).lower().startswith("please"):
        return False
    # "Please remember that I ..." is a statement wrapped in an emphasis, not a task.
    return not EMPHASIS_RE.search(c)


# ---------------------------------------------------------------------------------------------
# what makes a turn worth keeping

EMPHASIS_RE = re.compile(
    r"记住|记好|别忘了|不要忘|千万要|一定要记|这很重要|这个很重要|很重要|重要的是|务必"
    r"|(?<![A-Za-z])(?:remember (?:this|that)|please remember|don't forget|do not forget|this is important"
    r"|it's important|important:|keep in mind|make a note|note that)(?![A-Za-z])",
    re.IGNORECASE,
)

# The user asks us NOT to keep something ("don't remember that", "别记住我刚才说的"): never a memory, whatever
# else the turn says. Only with an object (this / that / it / what I said): "I don't remember my father's
# face" is a fact about the user, and "don't forget" is emphasis.
NOT_TO_REMEMBER_RE = re.compile(
    r"(?:不要|别|不用|不必|无需|不需要)再?(?:记住|记下|记着)"
    r"|(?<![A-Za-z])(?:don't|dont|do not|no need to|never)\s+(?:\w+\s+){0,2}?(?:remember|keep in mind|note down"
    r"|make a note of|save|store)\s+(?:this|that|it|these|those|what i (?:just )?said)(?![A-Za-z])",
    re.IGNORECASE,
)

# The user takes back what they said just before ("forget what I just said", 别记住我刚才说的, 当我没说): never a
# memory either; a turn that says nothing else (TAKE_BACK_FILLER_RE aside) also has the memories of the user's
# turn before it forgotten (bmam/usecases/ingest.py). "Forget it" alone is left out: it is mostly "never mind".
TAKE_BACK_RE = re.compile(
    r"(?:忘(?:掉|了|记)|别记(?:住|着)?|不要记(?:住|着)?|删(?:掉|除)?)(?:我)?刚(?:才|刚)(?:说的|讲的|那句|的话)(?:话|内容)?"
    r"|(?:就)?当我没(?:说|讲)(?:过)?|刚(?:才|刚)(?:说的|讲的|那句|的话)?(?:别记|不要记|忘了吧|忘掉吧|不算|作废)"
    r"|(?<![A-Za-z])(?:forget|disregard|ignore|delete|erase|scratch|strike)\s+(?:about\s+)?(?:what i (?:just )?"
    r"(?:said|told you|wrote|typed|mentioned)|my last (?:message|sentence)"
    r"|the last (?:thing|message) i (?:said|sent|wrote)|that|this)(?![A-Za-z])",
    re.IGNORECASE,
)
TAKE_BACK_FILLER_RE = re.compile(
    r"(?<![A-Za-z])(?:please|pls|ok|okay|oh|actually|sorry|never ?mind|wait|hmm+|um+|just|you can|can you|could you"
    r"|thanks|thank you|i mean|no|nope|that|this|it|you)(?![A-Za-z])"
    r"|算了|哦|嗯|好吧|其实|请|麻烦|吧|啊|呀|这个|那个|这些|那些",
    re.IGNORECASE,
)

FEELING_ZH = [
    "难过",
    "伤心",
    "开心",
    "高兴",
    "快乐",
    "幸福",
    "激动",
    "兴奋",
    "紧张",
    "焦虑",
    "压力",
    "孤独",
    "寂寞",
    "失望",
    "生气",
    "愤怒",
    "郁闷",
    "烦",
    "心烦",
    "烦躁",
    "累",
    "疲惫",
    "低落",
    "害怕",
    "恐惧",
    "担心",
    "担忧",
    "想家",
    "感动",
    "崩溃",
    "沮丧",
    "难受",
    "委屈",
    "撑不住",
    "心情",
    "失眠",
    "emo",
    "抑郁",
    "后悔",
    "心累",
    "无聊",
    "痛苦",
    "绝望",
    "欣慰",
    "满足",
    "自豪",
    "骄傲",
    "尴尬",
    "羡慕",
    "嫉妒",
    "想念",
    "舍不得",
    "心疼",
    "慌",
    "不安",
    "踏实",
    "爽",
]
FEELING_EN = [
    "sad",
    "happy",
    "stressed",
    "stress",
    "lonely",
    "excited",
    "depressed",
    "angry",
    "mad",
    "worried",
    "worry",
    "failure",
    "nervous",
    "exhausted",
    "tired",
    "thrilled",
    "frustrated",
    "anxious",
    "anxiety",
    "miss",
    "scared",
    "afraid",
    "upset",
    "overwhelmed",
    "heartbroken",
    "devastated",
    "proud",
    "grateful",
    "ashamed",
    "embarrassed",
    "jealous",
    "bored",
    "hopeless",
    "relieved",
    "delighted",
    "annoyed",
    "furious",
    "terrified",
    "homesick",
    "miserable",
    "feel",
    "feeling",
    "felt",
    "mood",
    "cry",
    "crying",
    "burned out",
    "burnt out",
    "glad",
    "joyful",
    "disappointed",
    "hurt",
]
# "emo" (slang, 我好emo) is a word of its own, not the "emo" of remove, memo, demo, lemon (each typed EMOTIONAL, fading
# by the emotional factor each day); the Han feeling words may touch Latin letters (今天的meeting烦死了).
_FEELING_HAN = sorted(set(FEELING_ZH) - {"emo"}, key=len, reverse=True)
FEELING_ZH_RE = re.compile("(?<!麻)(?<!积)(?<!劳)(?:" + "|".join(_FEELING_HAN) + ")|(?<![A-Za-z])emo(?![A-Za-z])")
FEELING_EN_RE = words_re(FEELING_EN, en=True)


def has_feeling(text: str) -> bool:
    """An explicit feeling word (我今天特别难过 / I'm so stressed)."""
    return bool(FEELING_ZH_RE.search(text) or FEELING_EN_RE.search(text))


# A user turn that asks for something (a question, a request for a recommendation or help: "Recommend some podcasts
# for a 14-hour day?", 帮我推荐几个播客): a liking said right after it is the answer's terms (association/form_many).
# Java's regex, matched whole against an Episode's text.
ASKING_PATTERN = (r"(?is)(?:.*[?？]\s*|\s*(?:(?:please|can you|could you|would you)\s+)*"
                  r"(?:recommend|suggest|help me|give me|find me|make me|build me|plan me)\b.*"
                  r"|\s*(?:请|麻烦你?)?(?:帮我|帮忙|推荐|给我推荐|建议).*)")


PREFERENCE_ZH_RE = re.compile(
    r"喜欢|(?<![可恋热])爱(?!情|人|心|好)|热爱|讨厌|受不了|最爱|迷上|感兴趣|兴趣|爱好|偏爱|钟爱|不感冒|恨|反感"
)
PREFERENCE_EN_RE = re.compile(
    r"(?<![A-Za-z])(?:i|i'm|i am|i've|we)\s+(?:\w+\s+){0,2}?(?:love|like|adore|enjoy|prefer|hate|dislike"
    r"|detest|can't stand|cannot stand|into|fan of)(?![A-Za-z])"
    r"|favou?rite|(?<![A-Za-z])fan of(?![A-Za-z])",
    re.IGNORECASE,
)


def says_preference(text: str) -> bool:
    """A liking or a dislike said (我最喜欢爬坡 / I can't stand jazz), whoever's."""
    return bool(PREFERENCE_ZH_RE.search(text) or PREFERENCE_EN_RE.search(text))


SAFETY_RE = re.compile(
    r"过敏|哮喘|高血压|低血压|糖尿病|心脏病|癫痫|抑郁症|胰岛素|降压药|药物|吃药|服药|紧急联系人|急救|血型|怀孕|孕"
    r"|(?<![A-Za-z])(?:allerg\w*|anaphyla\w*|epipen|asthma|diabetes|diabetic|epilepsy|seizures?|insulin"
    r"|blood thinners?|medication|meds|heart condition|heart disease|hypertension|pregnan\w*"
    r"|emergency contact|blood type|inhaler|celiac|penicillin)(?![A-Za-z])"
    # a medicine taken in doses ("I take levothyroxine 50 mcg every morning", 每天吃5毫克的药): what a doctor or a
    # drug interaction must know (the medicine's name is no word a list can hold); not an amount eaten or drunk
    # ("200 mg of caffeine", "sodium under 2300 mg")
    r"|(?<![A-Za-z])(?:take|takes|taking|took|on|prescribed|dose|dosage|increased|decreased|raised|lowered|upped)"
    r"(?![A-Za-z])(?:(?![.!?。！？]|caffeine|sodium|protein|sugar|calorie|fat|carb|fiber|fibre).){0,40}?"
    r"\d+(?:\.\d+)?\s?(?:(?:mg|mcg|µg|ug)(?![A-Za-z])|units? of [A-Za-z])"
    r"|[吃服用](?:(?![。！？]|含|咖啡因|钠|蛋白|糖|胆固醇|热量|卡路里|脂肪).){0,12}?\d+(?:\.\d+)?\s?(?:mg|毫克|微克)"
    # a dose changed ("We bumped my Lantus up to 24 units", 医生把我的二甲双胍加到了每天1000毫克): the new dose is as
    # critical as the old one was
    r"|(?<![A-Za-z])(?:bumped|increased|decreased|raised|lowered|upped|reduced|adjusted|changed) my [A-Za-z-]+"
    r"(?: dose| dosage)?(?: up| down)? to \d+(?:\.\d+)?\s?(?:mg|mcg|µg|ug|units?|iu)(?![A-Za-z])"
    r"|(?:加到|减到|调到|调整到|增加到|减少到)了?(?:每天|每次)?\d+(?:\.\d+)?\s?(?:mg|毫克|微克|单位)",
    re.IGNORECASE,
)

TEMPORARY_RE = re.compile(
    r"天气|下雨|下雪|刮风|好热|好冷|降温|今天|今晚|今早|明天|后天|这周|本周|下周|这两天|待会|一会儿|刚才|马上"
    r"|(?<![A-Za-z])(?:weather|raining|pouring|snowing|today|tonight|tomorrow|this (?:morning|afternoon"
    r"|evening|week|weekend)|next week|right now|at the moment|later today|in an hour)(?![A-Za-z])",
    re.IGNORECASE,
)

WEATHER_RE = re.compile(
    r"天气|下雨|下雪|下大雨|暴雨|刮风|台风|雾霾|降温|(?<![A-Za-z])(?:weather|raining|pouring|snowing|storm|heatwave)(?![A-Za-z])",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------------
# episodic time markers (a specific event, past or planned)

EPISODIC_ZH_RE = re.compile(
    r"昨天|前天|上次|那次|上周|上个?星期|上个?月|去年|前年|那年|小时候|小学的时候|大学的时候|刚才|刚刚|今天早上"
    r"|今早|上周末|前几天|前阵子|春节|国庆|假期|寒假|暑假|\d{4}年|第一次|曾经|明天|后天|下周|下个?月|下个?星期"
    r"|明年|今年(?:春|夏|秋|冬)|那天|当时|毕业那年|周末我|最近一次"
)
EPISODIC_EN_RE = re.compile(
    r"(?<![A-Za-z])(?:yesterday|last (?:night|week|weekend|month|year|summer|winter|spring|fall|autumn"
    r"|christmas|time|friday|monday|tuesday|wednesday|thursday|saturday|sunday)|(?<!\w)\w+ (?:days|weeks|months|years)"
    r" ago|ago|this morning|tonight|tomorrow|next (?:week|month|year)|in (?:19|20)\d\d|when i was"
    r"|for the first time|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|honeymoon"
    r"|over the holidays|been to|went to|went \w+ing|trip|vacation|holiday)(?![A-Za-z])",
    re.IGNORECASE,
)
PAST_EN_RE = re.compile(
    r"(?<![A-Za-z])(?:went|visited|had|got|ran|met|saw|spent|drove|flew|stayed|won|lost|broke|burned|burnt"
    r"|celebrated|travell?ed|ate|bought|found|took|came|left|arrived|crashed|missed|finished|started"
    r"|backpacking|camping)(?![A-Za-z])",
    re.IGNORECASE,
)

# A time a rule holds at, not always ("I never eat breakfast on weekdays", "I don't drink coffee after 3pm",
# 我晚上不喝咖啡), or a bounded while ("I'm not drinking this week", 这周我不喝咖啡, 今天我不吃肉): a "no" said with one
# is no plain no (the extractor gives no diet triple, the negation rule contradicts nothing with it).
SOMETIMES_RE = re.compile(
    r"(?i)\b(?:on (?:week ?days|weekends?|work ?days|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|school nights)"
    r"|(?:after|before) (?:\d|noon|midnight|bed|dinner|lunch|work|\w+ ?[ap]m)|at night|in the (?:evenings?|mornings?)"
    r"|during (?:the week|lent|ramadan|the day)|on an empty stomach|today|tonight|tomorrow"
    r"|this (?:week|weekend|month))\b"
    # (a run of numerals tried from its start only: from every position of a 32 KiB run of digits it took 13 s)
    r"|周末|工作日|晚上|早上|上午|下午|夜里|睡前|睡觉前|饭后|饭前|空腹|(?<![一两三四五六七八九十\d])[一两三四五六七八九十\d]+点(?:以|之)?后"
    r"|今天|今晚|今早|明天|这周|本周|这个?(?:星期|礼拜|月)|本月|这几天|这两天"
    r"|(?:周|星期|礼拜)[一二三四五六日天]"
)

# ... unless it says the no lasts from then on ("Starting today I don't drink coffee anymore", 从今天起不喝了).
_LASTING_RE = re.compile(r"(?i)\b(?:starting|from|as of|beginning)\s+(?:today|tonight|tomorrow|this week|now)\b"
                         r"|\b(?:anymore|any more|no longer|from now on)\b"
                         r"|从(?:今天|明天|这周|本周|现在)(?:起|开始)|不再|再也|以后")


def said_for_some_times(text: str) -> bool:
    """A rule or a no for some times or a bounded while (SOMETIMES_RE), not one said to last (_LASTING_RE)."""
    return SOMETIMES_RE.search(text) is not None and _LASTING_RE.search(text) is None


# A plan ("planning a trip to Japan next month", 打算下个月去日本玩) and its cancellation ("We cancelled the Japan
# trip", 日本不去了): the conflict rules let a cancellation end the plan it names (ingest/conflict_rules.py).
PLAN_RE = re.compile(
    r"(?i)\b(?:plan(?:s|ning|ned)? (?:to|a|an|on|for)|going to|gonna|will|'ll|about to|booked|next (?:week|weekend"
    r"|month|year|summer|winter|spring|fall|autumn)|this (?:weekend|summer|winter|spring|fall|autumn)|tomorrow"
    r"|(?:'m|am|are|'re) (?:flying|going|driving|heading|leaving|visiting|moving))\b"
    r"|打算|计划|准备|想去|要去|下个?(?:周|星期|月)|明年|明天|后天|这个?周末|今年(?:春|夏|秋|冬)"
)
CANCEL_RE = re.compile(
    r"(?i)\b(?:cancel(?:l?ed|ling|s)?|called (?:it )?off|calling (?:it )?off|(?:is|are|was|'s) off|scrapped"
    r"|not going (?:to \w+ )?anymore|no longer going|won't be going|postponed|fell through|shelved"
    # "We decided on Greece for the anniversary trip, Italy will have to wait"; "the house plans are on hold"
    r"|(?:will|'ll) have to wait|(?:is|are|put (?:it|them|that)) on hold)\b"  # not "I was on hold with the airline"
    # 不去云南了: the place between 不去 and 了 (it needed 不去了 together)
    r"|取消|不去了|不去[\u4e00-\u9fffA-Za-z]{1,8}?了|去不了了|泡汤|黄了|延期|推迟"
)

# A time said of a plan or an appointment ("on Dec 12 at 3pm", "Friday", "the 20th", 20号, 周三, 下午三点).
_WEEKDAYS_EN = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_MONTHS_EN = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
              r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
CALENDAR_WORDS = rf"{_WEEKDAYS_EN}|{_MONTHS_EN}"  # a weekday or a month name (a pattern, to be put in others)
CALENDAR_WORD_RE = re.compile(rf"(?i){CALENDAR_WORDS}\.?")  # fullmatch
TIME_SAID_RE = re.compile(
    rf"(?i)\b(?:{_WEEKDAYS_EN}|tomorrow|tonight|next (?:week|month|{_WEEKDAYS_EN})|noon|midnight"
    rf"|{_MONTHS_EN}\.? \d{{1,2}}(?:st|nd|rd|th)?|the \d{{1,2}}(?:st|nd|rd|th)|\d{{1,2}}(?::\d\d)? ?(?:am|pm)"
    rf"|\d{{1,2}}:\d\d)\b"
    # (a run of numerals tried from its start only, as in SOMETIMES_RE)
    r"|(?<![\d一二三四五六七八九十])(?:\d+|[一二三四五六七八九十]+)月(?:\d+|[一二三四五六七八九十]+)[号日]|(?<!\d)\d+[号日]"
    r"|[周礼拜]\S?[一二三四五六日天]|星期[一二三四五六日天]|明天|后天|下周|下个?月|[上下]午|晚上|早上|中午|(?<!\d)\d+点"
    r"|(?<![一二三四五六七八九十])[一二三四五六七八九十]+点|春节|元旦|国庆"
)
_A_TIME_NEXT = f"(?={TIME_SAID_RE.pattern.removeprefix('(?i)')})"  # a time said right after (RESCHEDULE_RE is (?i))
# A plan or an appointment moved to another time ("My dentist appointment moved to Dec 15", "dinner got pushed to
# Saturday", 看牙医改到周五了): the time said before no longer holds (ingest/conflict_rules.py reschedule_conflict).
RESCHEDULE_RE = re.compile(
    r"(?i)\b(?:moved|rescheduled|pushed(?: back)?|changed|shifted|bumped|postponed|delayed|brought forward"
    # "The studio moved my yoga class to Wednesday mornings": what was moved may sit between
    r"|moving|rescheduling|pushing)(?: it| them| (?:my|our|the) [\w' -]{1,30}?)?(?: again)?"
    r" (?:to|until|till|for) (?:the |next |this )?"
    rf"{_A_TIME_NEXT}"
    # 改成短发, 改成13800001111: no time after it, no move
    rf"|(?:改到|改成|改在|推到|挪到|提前到|延到|推迟到|延期到|调到|换到){_A_TIME_NEXT}"
)

# ---------------------------------------------------------------------------------------------
# procedures and routines

PROCEDURAL_ZH_RE = re.compile(
    r"先.{0,24}(?:再|然后|接着|最后)|然后|步骤|流程|方法是|方法就是|办法|方式是|的方式|习惯|通常|一般|每天|每周|每次"
    r"|每晚|每个(?:月|周|星期)|每逢|都会|总是|平时|每周[一二三四五六日天]|先写|之前我?(?:一定|都|会)|前我?会|的时候会"
    r"|分开洗|控制在"
)
PROCEDURAL_EN_RE = re.compile(
    r"(?<![A-Za-z])(?:always|usually|normally|typically|every (?:morning|night|day|week|evening|sunday|monday"
    r"|other day|time|weekend)|routine|first .{0,60}then|step|my method|the way i|my process|my workflow"
    r"|before (?:a|i|leaving|bed|checking)|to deploy|for code reviews|when i (?:cook|study|bake|train|write)"
    r"|i (?:use|brew|take|water|back up|write|read|review|make|meditate)\b.{0,40}"
    r"(?:every|each|before|after|on the way|the night before|right after))(?![A-Za-z])",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------------
# places (for "visited" and "works_at" kinds); common, general-purpose names only

PLACES_ZH = frozenset(
    [
        "北京",
        "上海",
        "天津",
        "重庆",
        "成都",
        "深圳",
        "广州",
        "杭州",
        "南京",
        "苏州",
        "武汉",
        "西安",
        "长沙",
        "青岛",
        "厦门",
        "大连",
        "沈阳",
        "哈尔滨",
        "昆明",
        "大理",
        "丽江",
        "三亚",
        "海口",
        "桂林",
        "拉萨",
        "乌鲁木齐",
        "兰州",
        "郑州",
        "济南",
        "合肥",
        "福州",
        "南昌",
        "贵阳",
        "南宁",
        "石家庄",
        "太原",
        "呼和浩特",
        "银川",
        "西宁",
        "长春",
        "宁波",
        "无锡",
        "珠海",
        "东莞",
        "佛山",
        "香港",
        "澳门",
        "台北",
        "台湾",
        "四川",
        "云南",
        "贵州",
        "广东",
        "广西",
        "湖南",
        "湖北",
        "河南",
        "河北",
        "山东",
        "山西",
        "陕西",
        "甘肃",
        "青海",
        "新疆",
        "西藏",
        "内蒙古",
        "黑龙江",
        "吉林",
        "辽宁",
        "江苏",
        "浙江",
        "安徽",
        "福建",
        "江西",
        "海南",
        "宁夏",
        "东北",
        "华北",
        "华南",
        "江南",
        "中国",
        "日本",
        "韩国",
        "美国",
        "英国",
        "法国",
        "德国",
        "意大利",
        "西班牙",
        "葡萄牙",
        "俄罗斯",
        "泰国",
        "越南",
        "新加坡",
        "马来西亚",
        "印度",
        "澳大利亚",
        "加拿大",
        "新西兰",
        "巴西",
        "埃及",
        "瑞士",
        "冰岛",
        "希腊",
        "土耳其",
        "荷兰",
        "挪威",
        "瑞典",
        "芬兰",
        "丹麦",
        "墨西哥",
        "伦敦",
        "巴黎",
        "东京",
        "大阪",
        "京都",
        "首尔",
        "纽约",
        "洛杉矶",
        "旧金山",
        "悉尼",
        "墨尔本",
        "曼谷",
        "清迈",
        "柏林",
        "罗马",
        "米兰",
        "威尼斯",
        "巴塞罗那",
        "巴厘岛",
        "普吉岛",
        "西湖",
        "青海湖",
        "香山",
        "故宫",
        "长城",
        "黄山",
        "泰山",
        "峨眉山",
        "九寨沟",
        "鼓浪屿",
        "迪士尼",
        "外滩",
        "望京",
        "中关村",
        "浦东",
        "朝阳",
        "海淀",
    ]
) | frozenset(
    # China's prefecture-level cities and a few well-known county cities and districts (by province), and Taiwan's
    # and Hong Kong's cities: "过年回潮州" is a home town only if 潮州 is known to be a place. Left out: the names
    # that are everyday words or open the name of something else (来宾 guests, 白银 silver, 安康 well-being, 大同,
    # 普洱 tea, 中山 of 中山大学, 宁德 of 宁德时代, 白山).
    word_list("""唐山 秦皇岛 邯郸 邢台 保定 张家口 承德 沧州 廊坊 衡水 阳泉 长治 晋城 朔州 晋中 运城 忻州 临汾 吕梁
    包头 乌海 赤峰 通辽 鄂尔多斯 呼伦贝尔 巴彦淖尔 乌兰察布 鞍山 抚顺 本溪 丹东 锦州 营口 阜新 辽阳 盘锦 铁岭 葫芦岛
    四平 辽源 通化 松原 白城 延吉 齐齐哈尔 鸡西 鹤岗 双鸭山 大庆 伊春 佳木斯 七台河 牡丹江 黑河 绥化 徐州 常州 南通
    连云港 淮安 盐城 扬州 镇江 泰州 宿迁 昆山 江阴 常熟 张家港 温州 嘉兴 湖州 绍兴 金华 衢州 舟山 台州 丽水 义乌
    芜湖 蚌埠 淮南 马鞍山 淮北 铜陵 安庆 滁州 阜阳 宿州 六安 亳州 池州 宣城 莆田 三明 泉州 漳州 南平 龙岩 晋江
    景德镇 萍乡 九江 新余 鹰潭 赣州 吉安 宜春 抚州 上饶 淄博 枣庄 东营 烟台 潍坊 济宁 泰安 威海 日照 临沂 德州 聊城
    滨州 菏泽 开封 洛阳 平顶山 安阳 鹤壁 新乡 焦作 濮阳 许昌 漯河 三门峡 南阳 商丘 信阳 周口 驻马店 黄石 十堰 宜昌
    襄阳 鄂州 荆门 孝感 荆州 黄冈 咸宁 随州 恩施 株洲 湘潭 衡阳 邵阳 岳阳 常德 张家界 益阳 郴州 永州 怀化 娄底 湘西
    韶关 汕头 江门 湛江 茂名 肇庆 惠州 梅州 汕尾 河源 阳江 清远 潮州 揭阳 云浮 顺德 番禺 柳州 梧州 北海 防城港 钦州
    贵港 玉林 百色 贺州 河池 崇左 儋州 自贡 攀枝花 泸州 德阳 绵阳 广元 遂宁 内江 乐山 南充 眉山 宜宾 广安 达州 雅安
    巴中 资阳 六盘水 遵义 安顺 毕节 铜仁 凯里 曲靖 玉溪 保山 昭通 临沧 西双版纳 香格里拉 腾冲 日喀则 林芝 铜川 宝鸡
    咸阳 渭南 延安 汉中 榆林 商洛 嘉峪关 金昌 天水 武威 张掖 平凉 酒泉 庆阳 定西 敦煌 石嘴山 吴忠 固原 克拉玛依
    吐鲁番 哈密 喀什 伊犁 库尔勒 阿克苏 石河子 新竹 台中 台南 高雄 桃园 基隆 嘉义 花莲 宜兰 屏东 九龙 新界 铜锣湾
    尖沙咀 旺角""")
)
PLACE_SUFFIXES_ZH = "市|省|县|区|镇|村|山|湖|岛|海|江|河|寺|庙|公园|广场|古镇|景区|机场|草原|沙漠"
PLACE_SUFFIX_ZH_RE = re.compile(f"(?:{PLACE_SUFFIXES_ZH})$")
GENERIC_PLACES_ZH = frozenset(
    [
        "家",
        "家里",
        "老家",
        "外婆家",
        "奶奶家",
        "姥姥家",
        "公司",
        "单位",
        "学校",
        "医院",
        "地铁",
        "地铁上",
        "公交",
        "路上",
        "海边",
        "山上",
        "超市",
        "健身房",
        "办公室",
        "宿舍",
        "楼下",
        "外面",
        "那里",
        "这里",
        "那儿",
        "这儿",
        "国外",
        "城里",
        "乡下",
        "农村",
        "附近",
        "外地",
        "本地",
        "当地",
        "异地",
        "国内",
    ]
)
NATIONALITIES_EN = frozenset(
    [
        "chinese",
        "american",
        "british",
        "english",
        "canadian",
        "french",
        "german",
        "italian",
        "spanish",
        "japanese",
        "korean",
        "indian",
        "brazilian",
        "mexican",
        "australian",
        "russian",
        "dutch",
        "swedish",
        "irish",
        "scottish",
        "vietnamese",
        "thai",
    ]
)

# Relation nouns -> predicate. zh and en; longest match first when compiled.
RELATIONS_ZH: dict[str, str] = {
    "妻子": "spouse",
    "老婆": "spouse",
    "太太": "spouse",
    "媳妇": "spouse",
    "爱人": "spouse",
    "丈夫": "spouse",
    "老公": "spouse",
    "先生": "spouse",
    "女朋友": "partner",
    "男朋友": "partner",
    "女友": "partner",
    "男友": "partner",
    "对象": "partner",
    "未婚妻": "partner",
    "未婚夫": "partner",
    "姐姐": "sister",
    "妹妹": "sister",
    "姐": "sister",
    "妹": "sister",
    "哥哥": "brother",
    "弟弟": "brother",
    "哥": "brother",
    "弟": "brother",
    "妈妈": "mother",
    "母亲": "mother",
    "妈": "mother",
    "老妈": "mother",
    "爸爸": "father",
    "父亲": "father",
    "爸": "father",
    "老爸": "father",
    "儿子": "child",
    "女儿": "child",
    "孩子": "child",
    "小孩": "child",
    "老二": "child",  # 我们家老二叫小宝: the second child (老大 is also "the boss" in chat, so not listed)
    "老三": "child",
    "老幺": "child",
    "奶奶": "grandparent",
    "爷爷": "grandparent",
    "外婆": "grandparent",
    "外公": "grandparent",
    "姥姥": "grandparent",
    "姥爷": "grandparent",
    "孙女": "grandchild",
    "孙子": "grandchild",
    "外孙女": "grandchild",
    "外孙": "grandchild",
    "朋友": "friend",
    "好朋友": "friend",
    "最好的朋友": "friend",
    "好友": "friend",
    "闺蜜": "friend",
    "哥们": "friend",
    "兄弟": "friend",
    "同事": "colleague",
    "同学": "friend",
    "室友": "friend",
    "老板": "boss",
    "领导": "boss",
    "上司": "boss",
    "经理": "boss",
    "组长": "boss",
    "主管": "boss",
    "总监": "boss",
    "发小": "friend",
    "舍友": "friend",
    "猫": "pet",
    "狗": "pet",
    "小猫": "pet",
    "小狗": "pet",
    "宠物": "pet",
    "猫咪": "pet",
    "狗狗": "pet",
    # animals and common breeds: a pet however the speaker names the kind (我养了一只柯基，叫…)
    "兔子": "pet",
    "仓鼠": "pet",
    "鹦鹉": "pet",
    "乌龟": "pet",
    "金鱼": "pet",
    "柯基": "pet",
    "金毛": "pet",
    "泰迪": "pet",
    "哈士奇": "pet",
    "柴犬": "pet",
    "边牧": "pet",
    "拉布拉多": "pet",
    "比熊": "pet",
    "博美": "pet",
    "萨摩耶": "pet",
    "阿拉斯加": "pet",
    "橘猫": "pet",
    "布偶猫": "pet",
    "布偶": "pet",
    "英短": "pet",
    "美短": "pet",
    "蓝猫": "pet",
    "狸花猫": "pet",
}
RELATIONS_EN: dict[str, str] = {
    "wife": "spouse",
    "husband": "spouse",
    "spouse": "spouse",
    "girlfriend": "partner",
    "boyfriend": "partner",
    "partner": "partner",
    "fiancee": "partner",
    "fiance": "partner",
    "fiancée": "partner",
    "fiancé": "partner",
    "sister": "sister",
    "brother": "brother",
    "mom": "mother",
    "mother": "mother",
    "mum": "mother",
    "mommy": "mother",
    "dad": "father",
    "father": "father",
    "daddy": "father",
    "son": "child",
    "daughter": "child",
    "kid": "child",
    "child": "child",
    "kids": "child",
    "children": "child",
    "sons": "child",
    "daughters": "child",
    "grandma": "grandparent",
    "grandmother": "grandparent",
    "granny": "grandparent",
    "grandpa": "grandparent",
    "grandfather": "grandparent",
    "granddad": "grandparent",
    "grandad": "grandparent",
    "grandson": "grandchild",
    "granddaughter": "grandchild",
    "grandchild": "grandchild",
    "grandkid": "grandchild",
    "friend": "friend",
    "best friend": "friend",
    "buddy": "friend",
    "roommate": "friend",
    "colleague": "colleague",
    "coworker": "colleague",
    "co-worker": "colleague",
    "boss": "boss",
    "manager": "boss",
    "supervisor": "boss",  # a thesis's too: the one the user answers to
    "dog": "pet",
    "cat": "pet",
    "puppy": "pet",
    "kitten": "pet",
    "pet": "pet",
    "parrot": "pet",
    "hamster": "pet",
    "rabbit": "pet",
    "bunny": "pet",
    "retriever": "pet",
    "golden retriever": "pet",
    "labrador": "pet",
    "poodle": "pet",
    "terrier": "pet",
    "bulldog": "pet",
    "corgi": "pet",
    "husky": "pet",
    "goldfish": "pet",
    "turtle": "pet",
    "greyhound": "pet",
    "beagle": "pet",
    "dachshund": "pet",
    "pug": "pet",
    "spaniel": "pet",
    "collie": "pet",
    "border collie": "pet",
    "german shepherd": "pet",
    "chihuahua": "pet",
    "pomeranian": "pet",
    "schnauzer": "pet",
    "labradoodle": "pet",
    "goldendoodle": "pet",
    "guinea pig": "pet",
    "ferret": "pet",
    "gecko": "pet",
    "budgie": "pet",
    "cockatiel": "pet",
}

# Medical conditions (safety-critical facts).
CONDITIONS_ZH_RE = re.compile(
    r"(?:高血压|低血压|糖尿病|哮喘|心脏病|癫痫|抑郁症|焦虑症|贫血|痛风|胃病|胃炎|鼻炎|偏头痛|颈椎病|腰椎间盘突出|乙肝"
    r"|甲亢|甲减|乳糖不耐受"
    rf"|[{HAN}]{{1,6}}(?:病|症|炎|不耐受))"
)
CONDITIONS_EN_RE = re.compile(
    r"(?<![A-Za-z])(?:(?:type \d )?diabetes|asthma|epilepsy|hypertension|high blood pressure|low blood pressure"
    r"|heart disease"
    r"|a heart condition|celiac disease|coeliac disease|migraines?|depression|adhd|autism|arthritis|anemia"
    r"|anaemia|gout|cancer|hepatitis \w|crohn's disease|ibs|copd|insomnia|dyslexia|celiac|coeliac"
    r"|(?:lactose|gluten|fructose) intolerance|eczema|psoriasis|pcos|endometriosis|hypothyroidism"
    r"|hyperthyroidism|sleep apnea|ocd|ptsd|bipolar disorder|fibromyalgia|lupus|scoliosis|tinnitus"
    r"|(?:an? )?(?:anxiety|eating|panic|autoimmune|thyroid|kidney|liver|heart) (?:disorder|disease|condition))"
    r"(?![A-Za-z])",
    re.IGNORECASE,
)

# Role nouns: "我是X" with X a role is is_a, not a name. Suffixes catch most zh job words.
ROLE_SUFFIX_ZH_RE = re.compile(
    r"(?:师|生|员|士|者|家|手|工|长|官|医|妈|爸|理|主|板|迷|控|族|党|后|人员|狗|奴|宝|男|女|民)$"
)


# ----- whose a text is: the user's own, or someone else's ------------------------------------------------------

# Whose a memory is: the people it names, and he / she ("他", "我妈"): the user's own says none of them.
OTHERS_RE = re.compile(r"(?i)\b(?:he|she|they|his|her|their)\b|男朋友|女朋友|爷爷|奶奶|外公|外婆|我妈|我爸|他|她")

# The people an event or a routine belongs to: "the kids' dentist appt" is not "my dentist appointment", 女儿的钢琴课
# not 儿子的钢琴课 (compared as sets of these words, plural s and possessive dropped).
_ZH_PEOPLE = ("女儿|儿子|孩子|老婆|老公|妈妈|爸爸|姐姐|妹妹|哥哥|弟弟|同事|朋友|老板|邻居|室友"
              "|奶奶|爷爷|外婆|外公|姥姥|姥爷|孙女|孙子")
_PEOPLE_RE = re.compile(
    r"(?i)\b(kid|child|children|son|daughter|wife|husband|partner|mom|mum|mother|dad|father|sister|brother|boyfriend"
    r"|grandma|grandmother|grandpa|grandfather|grandson|granddaughter|grandkid|grandchild|grandchildren"
    r"|girlfriend|coworker|colleague|friend|boss|manager|neighbou?r|roommate)(?:s|'s|s')?\b"
    rf"|({_ZH_PEOPLE})"
)


def people(text: str) -> set[str]:
    return {(m[1] or m[2]).lower() for m in _PEOPLE_RE.finditer(text)}


# The user speaking of themself: I / me / we, 我 / 我们, not the 我 of 我爸, 我的女儿 (a possessive before a person).
_SELF_RE = re.compile(r"(?i)\b(?:i|me|my ?self|we|us|our ?selves)\b"
                      rf"|我(?!的?(?:{_ZH_PEOPLE}|爸|妈|姐|妹|哥|弟|男朋友|女朋友|爷爷|奶奶|外公|外婆|家人))")


@functools.lru_cache(maxsize=8192)  # recall asks it of the same memories recall after recall
def about_someone_else(text: str) -> bool:
    """Whether a text speaks of someone else and not of the user: a person word or he / she, and no I / me / we
    ("My dad's doctor increased his metformin", 我爸的医生把他的二甲双胍加到了1000毫克; not "My son and I are both
    allergic to peanuts")."""
    return bool(people(text) or OTHERS_RE.search(text)) and _SELF_RE.search(text) is None


# A capital letter other than the pronoun I (I, I'm, I've): a text without one is written all in lower case.
CAPITAL_BESIDE_I = r"(?<![A-Za-z'])(?!I(?:'[a-z]+)?(?![A-Za-z]))[A-Z]"

# Given names common in English chat, for a turn written all in lower case ("my brother greg lives in seattle"): the
# rules read a name by its capital, which such a turn never has (ingest/extract_en.py names_capitalized). Names that
# are also everyday words (will, may, mark, bill, rose, june, grace, hope, frank, jack, sky) are left out: a name
# missed is better than a word read as one.
GIVEN_NAMES_EN: frozenset[str] = frozenset({
    "aaron", "abby", "abigail", "adam", "adrian", "aiden", "alan", "albert", "alex", "alexander", "alexis", "alice",
    "alicia", "alison", "allison", "amanda", "amelia", "amy", "andrea", "andrew", "andy", "angela", "anna", "anne",
    "annie", "anthony", "antonio", "ashley", "audrey", "austin", "ava", "barbara", "ben", "benjamin", "beth", "betty",
    "brandon", "brenda", "brian", "brittany", "brooke", "bruce", "caleb", "cameron", "carl", "carlos", "carmen",
    "caroline", "carter", "catherine", "charles", "charlie", "charlotte", "chloe", "chris", "christina", "christine",
    "christopher", "cindy", "claire", "colin", "connor", "craig", "cynthia", "dan", "dana", "dani", "daniel",
    "danielle", "danny", "david", "dean", "debbie", "deborah", "denise", "dennis", "derek", "diana", "diane", "diego",
    "dominic", "donald", "donna", "doug", "douglas", "dylan", "edward", "elena", "eli", "elijah", "elizabeth", "ella",
    "ellie", "emily", "emma", "eric", "erica", "erin", "ethan", "evan", "evelyn", "felix", "fiona", "gabriel", "gary",
    "gavin", "george", "gloria", "greg", "gregory", "hailey", "hannah", "harold", "harry", "heather", "helen",
    "henry", "howard", "ian", "isaac", "isabel", "isabella", "jacob", "jake", "james", "jamie", "jane", "janet",
    "jared", "jason", "jeff", "jeffrey", "jenna", "jennifer", "jenny", "jeremy", "jerry", "jesse", "jessica", "jill",
    "joan", "joe", "joel", "john", "jonathan", "jordan", "jose", "joseph", "joshua", "joyce", "juan", "judy", "julia",
    "julie", "justin", "karen", "kate", "katherine", "kathy", "katie", "keith", "kelly", "kenneth", "kevin", "kim",
    "kimberly", "kyle", "laura", "lauren", "leah", "leo", "leon", "liam", "lily", "linda", "lisa", "logan", "lucas",
    "lucy", "luis", "luke", "lydia", "madison", "maggie", "marcus", "margaret", "maria", "marie", "marissa", "martha",
    "martin", "mary", "matt", "matthew", "maya", "megan", "melissa", "mia", "michael", "michelle", "mike", "molly",
    "monica", "nancy", "natalie", "nathan", "nicholas", "nick", "nicole", "noah", "nora", "olivia", "omar", "oscar",
    "owen", "pamela", "patrick", "paul", "paula", "peter", "philip", "priya", "rachel", "rebecca", "rick", "ricky",
    "riley", "robert", "roger", "ronald", "russell", "ruth", "ryan", "samantha", "samuel", "sandra", "sara", "sarah",
    "scott", "sean", "sebastian", "sharon", "shawn", "sophia", "sophie", "stephanie", "stephen", "steve", "steven",
    "susan", "tanya", "taylor", "teresa", "theo", "theresa", "thomas", "tiffany", "timothy", "tina", "todd", "tom",
    "tommy", "tony", "tracy", "tyler", "valerie", "vanessa", "victor", "victoria", "vincent", "walter", "wayne",
    "wendy", "william", "zach", "zachary", "zoe",
})


# Drinks one has instead of another of the same kind: a switch to one ends the other ("also switched to matcha"
# after "i drink like 4 coffees a day"; 改喝绿茶了 after 我每天喝三杯咖啡), a switch across kinds does not
# (ingest/extract_en.py and extract_zh.py read the switch; conflict_rules.py drink_switch_conflict ends the old one).
DRINK_KINDS: dict[str, str] = {
    **dict.fromkeys(("coffee", "decaf", "espresso", "latte", "cappuccino", "americano", "cold brew",
                     "flat white", "tea", "green tea", "black tea", "herbal tea", "matcha", "chai", "yerba mate",
                     "energy drinks", "caffeine", "咖啡", "美式", "拿铁", "茶", "绿茶", "红茶", "花茶", "抹茶", "奶茶",
                     "乌龙茶", "普洱", "茶水"), "caffeine"),
    **dict.fromkeys(("alcohol", "booze", "beer", "wine", "red wine", "white wine", "whiskey", "whisky", "sake",
                     "spirits", "cider", "酒", "白酒", "啤酒", "红酒", "黄酒", "米酒"), "alcohol"),
    **dict.fromkeys(("soda", "coke", "diet coke", "pop", "juice", "sparkling water", "seltzer", "kombucha",
                     "root beer", "ginger beer", "ginger ale",  # (no beer: the name ends with one's)
                     "可乐", "饮料", "碳酸饮料", "果汁", "气泡水", "苏打水"), "soft drink"),
    **dict.fromkeys(("milk", "oat milk", "almond milk", "soy milk", "牛奶", "燕麦奶", "豆奶", "豆浆"), "milk"),
}


def drink_kind(name: str) -> str | None:
    """The kind of a drink by its normalised name: its own, else that of the drink the name ends with (美式咖啡 as
    咖啡, "iced oat latte" as latte), else None."""
    if (kind := DRINK_KINDS.get(name)) is not None:
        return kind
    if has_han(name):
        ends = [d for d in DRINK_KINDS if has_han(d) and name.endswith(d)]
        return DRINK_KINDS[max(ends, key=len)] if ends else None
    words = name.split()
    return next((k for i in range(1, len(words)) if (k := DRINK_KINDS.get(" ".join(words[i:]))) is not None), None)


def same_drink_kind(a: str, b: str) -> bool:
    """Whether two drinks (normalised names) are of one kind, so that one switched to replaces the other."""
    kind = drink_kind(a)
    return kind is not None and drink_kind(b) == kind


# the English names, longest first, for the extractor's switch pattern
DRINKS_EN_PATTERN = "|".join(sorted((re.escape(d) for d in DRINK_KINDS if d.isascii()), key=len, reverse=True))
DRINKS_ZH_PATTERN = "|".join(sorted((re.escape(d) for d in DRINK_KINDS if not d.isascii()), key=len, reverse=True))


# What a food is made of, as a diet rules it out (ingest/conflict_rules.py diet_conflict): meat, fish (seafood too),
# dairy, egg, read from the words of a dish's name rather than a list of dishes (steak frites, beef noodles, chicken
# tikka, 红烧肉, 宫保鸡丁, 水煮鱼, 芝士蛋糕). A dish said meatless is none (veggie burger, vegan cheese, 素鸡, 素汉堡);
# animals kept or seen are no food (chickens, ducks, 小猪佩奇: an animal's character is read only beside a part or
# a way of cooking, 鸡翅, 牛排, 炸鸡, 烤鸭), nor is Turkey, the country.
_MEATLESS_DISH_RE = re.compile(r"(?i)\b(?:veggie|vegetarian|vegan|plant[- ]based|meatless|meat[- ]free|fake|mock|faux"
                               r"|impossible|beyond|tofu|soy|seitan|tempeh|jackfruit|dairy[- ]free|non[- ]dairy"
                               r"|egg[- ]free)\b|^素|人造")
_ANIMAL_FOOD_EN: dict[str, re.Pattern[str]] = {
    "meat": re.compile(r"(?i)\b(?:meats?|beef|pork|steaks?|bacon|ham|hams|lamb|mutton|veal|venison|chicken|turkey"
                       r"|duck|goose|sausages?|hot ?dogs?|(?:ham|cheese)?burgers?|meatballs?|meatloaf|ribs|brisket"
                       r"|pepperoni|salami|prosciutto|chorizo|pastrami|jerky|bulgogi|carnitas|kebabs?|shawarma|gyros?"
                       r"|foie gras|oxtail|wings|nuggets|schnitzel|bolognese|carbonara|pulled pork)\b"),
    "fish": re.compile(r"(?i)\b(?:fish|seafood|salmon|tuna|cod|trout|halibut|tilapia|mackerel|sardines?|anchov(?:y|ies)"
                       r"|shrimps?|prawns?|crabs?|lobsters?|oysters?|mussels?|clams?|scallops?|squid|calamari"
                       r"|octopus|sashimi|eel|caviar|poke)\b"),
    "dairy": re.compile(r"(?i)\b(?:cheese\w*|(?<!oat )(?<!soy )(?<!rice )(?<!almond )(?<!coconut )(?<!cashew )"
                        r"(?<!hemp )(?<!plant )milk|milkshakes?|(?<!peanut )(?<!almond )(?<!cashew )(?<!nut )"
                        r"(?<!apple )(?<!cocoa )(?<!shea )butter|buttermilk|cream|yogh?urts?|gelato|custard|paneer|ghee"
                        r"|mozzarella|parmesan|brie|feta|cheddar|ricotta|mascarpone|tiramisu)\b"),
    "egg": re.compile(r"(?i)\b(?:eggs?|omelet(?:te)?s?|frittatas?|quiches?|egg tarts?)\b"),
}
# An animal kept or seen, said alone: no food
_ANIMALS_EN_RE = re.compile(r"(?i)(?:chickens|ducks|lambs|turkeys|geese|cows|pigs|ducklings|chicks)")
_ANIMAL_FOOD_ZH: dict[str, re.Pattern[str]] = {
    "meat": re.compile(r"(?<![果椰素鱼虾蟹贝蚌])肉(?!桂|豆蔻)"
                       r"|[牛猪羊驴兔鸡鸭鹅](?=[肉排扒柳腩杂丁块翅腿脚爪蹄肝肚胗脖血皮煲锅肠丸骨架舌心片汤]|尾(?!酒)|头(?!发))"
                       r"|[烤炸卤烧熏酱焖炖切撕盘子花火板][鸡鸭鹅]|排骨|培根|火腿|香肠|腊肠|叉烧|汉堡|热狗|荤"),
    "fish": re.compile(r"(?<![金斗鲸钓养])鱼(?!香|缸)|虾|蟹|(?<![宝])贝(?![斯壳])|蚝|海鲜|刺身|海参|海胆|鳗"),
    "dairy": re.compile(r"(?<![豆椰麦仁米桃奶])奶(?!奶)|芝士|起司|黄油|冰淇淋|雪糕|乳酪|乳制品"),
    "egg": re.compile(r"(?<![笨坏混滚完捣])蛋(?!白质)"),
}


def animal_foods(food: str) -> frozenset[str]:
    """What of meat, fish, dairy and egg a food's name says it is made of (a set: a cheeseburger is meat and dairy;
    _ANIMAL_FOOD_EN, _ANIMAL_FOOD_ZH); none for a dish said meatless or an animal kept."""
    t = food.strip()
    if not t or t == "Turkey" or _MEATLESS_DISH_RE.search(t) or _ANIMALS_EN_RE.fullmatch(t):
        return frozenset()  # (Turkey: the country)
    said = _ANIMAL_FOOD_ZH if has_han(t) else _ANIMAL_FOOD_EN
    found = {kind for kind, pattern in said.items() if pattern.search(t)}
    if has_han(t):  # a dish named in English inside a Chinese one (芝士burger)
        found |= {kind for kind, pattern in _ANIMAL_FOOD_EN.items() if pattern.search(t)}
    return frozenset(found)
