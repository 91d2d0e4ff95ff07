"""What a user's turn pasted (code blocks, logs, tracebacks, a tool's quoted output) as opposed to what the user says.

A coding assistant's user pastes code and logs to ask about them: the paste is not a statement of the user, so
salience (filter 1) judges only the prose around it. Pure functions over text, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.lexicon import normalize_text

# A fenced block, its info string (```tsx) included; a fence left open runs to the end of the turn.
_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
# Lines only a program writes: Python's traceback header and frames, pytest's failure lines, a compiler's or
# git's lowercase "error:", an exception line, a shell prompt with its command. Case-sensitive on purpose:
# "Warning: I'm allergic to penicillin" is the user's.
_LOG_LINE_RE = re.compile(
    r"Traceback \(most recent call last\):"
    r"|E {3}"
    r"|\s+File \"[^\"]*\", line \d+"
    r"|(?:error|fatal|warning|hint|ERROR|FATAL|WARNING)(?:\[\w+\])?: "
    r"|[A-Za-z_][\w.]*(?:Error|Exception)(?::|$)"
    r"|\$ [A-Za-z./~]"
)
# A line shaped like a log that speaks of the user ("warning: I'm pregnant, don't suggest alcohol", "ERROR: I can't
# eat gluten"): the user's words, not a program's.
_SAID_BY_THE_USER_RE = re.compile(r"(?i)\b(?:i|i'm|i've|i'd|i'll|my|me|we|we're|our)\b|我")
_TRACEBACK_RE = re.compile(r"Traceback \(most recent call last\):")
# A tool's output quoted inline ("git says 'error: could not apply ...'"): a paste on one line.
# An apostrophe before a letter is inside a word ('error: can't open file'), not the closing quote.
_QUOTED_OUTPUT_RE = re.compile(r"'((?:error|fatal|warning|hint): (?:[^'\n]|'(?=[a-z]))*)'"
                               r"|\"((?:error|fatal|warning|hint): [^\"\n]*)\"")
# Inline code: a backtick pair not inside a word ("don`t ... it`s" writes apostrophes with backticks).
_INLINE_CODE_RE = re.compile(r"(?<![A-Za-z])`([^`\n]+)`(?![A-Za-z])")
_CLAUSE_MARKS_RE = re.compile(r"[,!;:?.。！；，…~\-—]+")
# A colon inside a code token splits no clause: ":memory:", "test_dates.py::test_parse", "http://". Only beside
# Latin letters: 记住：我对花生过敏 (NFKC makes "：" a ":") and "at 10:30" split as before.
_CODE_COLON_RE = re.compile(r"(?<=[A-Za-z_]):+(?=[A-Za-z_/])")
_COLON_NAME_RE = re.compile(r"(?<![\w:]):([A-Za-z_]\w*):(?!\w)")
_BREAK = "\n.\n"  # where a paste was: the prose before and after it are two sentences


@dataclass(frozen=True, slots=True)
class Prose:
    """A turn's text without its pastes."""

    text: str  # normalised; inline code kept where the user wrote it
    pasted: bool  # a fenced block, a log line or a tool's quoted output was taken out (or quoted inline)


def prose(text: str) -> Prose:
    """The turn's prose: fenced blocks and log lines taken out, a tool's quoted output made inline code."""
    rest, fenced = _FENCE_RE.subn(_BREAK, text)
    lines: list[str] = []
    logged = False
    in_traceback = False
    for line in rest.split("\n"):
        if _LOG_LINE_RE.match(line) and not _SAID_BY_THE_USER_RE.search(line):
            logged = True
            in_traceback = in_traceback or _TRACEBACK_RE.match(line) is not None
            lines.append(".")
            continue
        if in_traceback and line[:1].isspace() and line.strip():
            continue  # a frame's source line, indented under its "File ..., line N"
        in_traceback = False
        lines.append(line)
    quoted = "\n".join(lines)
    quoted, outputs = _QUOTED_OUTPUT_RE.subn(lambda m: f"`{m.group(1) or m.group(2)}`", quoted)
    return Prose(normalize_text(quoted), pasted=bool(fenced or logged or outputs))


def unsplittable(text: str) -> str:
    """The text with no clause boundary inside code: inline code's marks and a code token's colons go."""
    text = _INLINE_CODE_RE.sub(lambda m: "`" + _CLAUSE_MARKS_RE.sub(" ", m.group(1)).strip() + "`", text)
    return _CODE_COLON_RE.sub(" ", _COLON_NAME_RE.sub(r" \1 ", text))


# A clause that is nothing but code: inline code spans, or one token written as code (a dotted name such as
# "packaging.version", a call "parse()", a path "src/app.py", a scope "std::vector"). ASCII only, and a path
# has a letter: 上海/北京 and "24/7" are no code.
_CODE_ONLY_RE = re.compile(
    r"(?:\s*`[^`]*`\s*)+"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_][\w.]*\(\)|(?=\S*[A-Za-z])[\w.\-]+(?:/[\w.\-]+)+"
    r"|\w+(?:::\w+)+",
    re.ASCII,
)


def is_code_only(clause: str) -> bool:
    return _CODE_ONLY_RE.fullmatch(clause.strip().rstrip("?")) is not None


# The words that hand a paste over ("git cherry-pick says: ...", "I'm getting this:", "here's the traceback",
# "this is the output"): about the paste, not the user. Read only in a turn that pasted something.
_PASTE_INTRO_RE = re.compile(
    r"(?:(?:so|and|now|ok|okay|hmm|but)\s+)?"
    r"(?:(?:[\w.\-/']+\s+){0,3}(?:says|said|prints|printed|shows|showed|gives|gave|returns|returned|throws|threw"
    r"|outputs|complains|fails with|failed with|errors (?:out )?with)"
    r"|(?:(?:i'm|i am|i keep|we're|we keep|i|we)\s+)?(?:getting|seeing|get|got|see|saw)\s+(?:this|that|these"
    r"|the following|an? (?:error|exception|warning|traceback))"
    r"|here(?:'s| is| are)|this is (?:the|my|what)|(?:the )?(?:error|traceback|output|log|logs|diff|stack ?trace)"
    r"(?: is| was)?)"
    r"(?:\s+(?:the|my|an?|this|that)?\s*(?:error|exception|warning|traceback|output|log|logs|diff|stack ?trace"
    r"|message|code|snippet|config|file|test|query|result)s?)?"
    r"(?:\s+(?:i get|i got|i see|we get|now|again|here|below))?"
    r"(?:\s*`[^`]*`)?",
    re.IGNORECASE,
)


def introduces_paste(clause: str) -> bool:
    return _PASTE_INTRO_RE.fullmatch(clause.strip()) is not None
