"""The text key: what makes two memories "say the same text" (NFKC, casefolded, single spaces, trailing
punctuation dropped), stored on each memory as m.text_key so the repeat check asks the same question of a
batch's own turns, of stored memories in Neo4j and of the vector cache."""

from __future__ import annotations

import hashlib
import unicodedata

# A digest, not the folded text: a fixed size for the range index on (tenant, user_id, text_key) (Neo4j
# refuses to index a value over ~8 KB, and a turn may be 32 KB) and for the vector cache's copy.
_DIGITS = 32


def normalized_text(text: str) -> str:
    """The folded form two mentions of the same text share: NFKC, casefolded, single spaces, trailing
    punctuation dropped ("I love  Spicy food!" and "i love spicy food")."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return folded.rstrip(" .!?~。！？…,，;；")


def text_key(text: str) -> str:
    """32 hex digits of sha256(normalized_text(text)): equal for texts that say the same thing."""
    return hashlib.sha256(normalized_text(text).encode("utf-8", "surrogatepass")).hexdigest()[:_DIGITS]
