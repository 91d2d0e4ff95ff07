"""The fixture conversation of the knowledge-out tests (RDF, inspect queries, GraphML): Chinese and English
turns through the real ingest use-case (episodes, sessions, DERIVED_FROM, a LATEST conflict with its
SUPERSEDES edge), plus what ingest does not produce on its own, through the real use-cases: a core
memory, explicit triples (one negated), an association and a conflict held for REVIEW."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from graph.model import Scope, Tier
from graph.triples import TripleRepository
from ingest.turns import TurnInput

USER = "alice"
START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

TURNS: tuple[tuple[str, str, str], ...] = (
    ("s1", "user", "我叫小明，我住在成都。"),
    ("s1", "assistant", "你好小明！成都是个好地方。"),
    ("s1", "user", "我不吃辣。"),
    ("s1", "user", "上次在成都玉林路吃的那家火锅很棒。"),
    ("s2", "user", "I work at a bank in Shanghai and I love hiking on weekends."),
    ("s2", "user", "我现在很喜欢吃辣的川菜。"),
    ("s2", "assistant", "Noted: you like spicy Sichuan food now."),
)


@dataclass(frozen=True)
class Conversation:
    tenant: str
    user: str
    core_id: str
    pork_no_id: str
    pork_yes_id: str


def load(container: Container, tenant: str, user: str = USER) -> Conversation:
    turns = [TurnInput(user_id=user, session_id=s, speaker=speaker, text=text, at=START + timedelta(minutes=i),
                       device_id="phone" if s == "s1" else "laptop")
             for i, (s, speaker, text) in enumerate(TURNS)]
    report = container.ingest.ingest_conversation(tenant, turns)
    assert report.failed == 0, report
    m = container.memories
    core = m.remember(tenant, RememberRequest(user_id=user, text="记住：我对花生过敏 (peanut allergy)", type="FACTUAL",
                                              tier=Tier.CORE, session_id="s1"))
    # a predicate of the app's own, with a space (outside the extractor's vocabulary: kept as written)
    m.add_triple(tenant, user, memory_id=core.id, subject="user", subject_kind="person", predicate="is allergic to",
                 object_="花生", object_kind="food")
    no = m.remember(tenant, RememberRequest(user_id=user, text="I don't eat pork.", type="FACTUAL", tier=Tier.MID))
    m.add_triple(tenant, user, memory_id=no.id, subject="user", subject_kind="person", predicate="eats",
                 object_="pork", object_kind="food", polarity=-1)
    yes = m.remember(tenant, RememberRequest(user_id=user, text="These days I eat pork every day.", type="FACTUAL"))
    # written as ingest writes a triple: addTriple would settle the pair at once (LATEST), not hold it for review
    TripleRepository(container.store).add(Scope(tenant, user), memory_id=yes.id, subject="user", subject_kind="user",
                                          predicate="eats", object_="pork", object_kind="food", polarity=1,
                                          now=container.clock.now())
    m.associate(tenant, user, core.id, no.id, 0.8)
    m.associate(tenant, user, yes.id, no.id, 0.35)
    conflicts = container.conflicts.check(tenant, user, yes.id, strategy="REVIEW")
    assert conflicts, "the pork pair should be held for review"
    return Conversation(tenant=tenant, user=user, core_id=core.id, pork_no_id=no.id, pork_yes_id=yes.id)
