"""Which turns say facts again and nothing besides (ingest/salience.py restates, pure): ingest makes such a turn a
mention of the memory asserting its facts, however it is worded (tests/test_ingest_pipeline.py)."""

from __future__ import annotations

import pytest

from ingest.extract import RuleTripleExtractor
from ingest.salience import restates

EXTRACT = RuleTripleExtractor()


@pytest.mark.parametrize(("text", "again"), [
    # the allergy of a long-horizon audit (session 52), said again with a word to the assistant, or with emphasis
    ("对了，我对花生过敏，你推荐菜的时候要注意。", True),
    ("我对花生过敏，这个一定要记住。", True),
    ("I live in Chengdu.", True),
    ("I have a cat named Mochi.", True),
    # something besides: what the rest says is a memory of its own
    ("I love sushi, my sister took me to the new place on 5th street", False),
    ("我对花生过敏，很严重，吃了会休克。", False),
    # a plan, an outing: two of them are two memories
    ("I'm going to Tokyo next week.", False),
    ("I went to Japan again this spring", False),
    # no fact at all
    ("Mochi will stay with a pet sitter.", False),
])
def test_a_turn_restates_facts_that_last_and_nothing_besides(text: str, again: bool) -> None:
    assert restates(text, EXTRACT.extract(text), EXTRACT) is again
