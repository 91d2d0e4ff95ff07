"""recall end to end: through the gql client against the live server and real Neo4j (gating, the score
breakdown, graph expansion, usage recorded in the same transaction, co-recall strengthening, damping
across the turns of a session, filters, hostile input), plus the use-case where the clock matters."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from bmam.client import BmamClient, BmamClientError
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.errors import BadInput
from ingest.turns import TurnInput
from tests.test_maintenance import living

__all__ = ["living"]  # the fixture, used by name


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:10]}"


def seed(client: BmamClient, user: str) -> dict[str, str]:
    texts = {
        "city": ("I live in Chengdu, have been for five years", "FACTUAL"),
        "hotpot": ("我最喜欢吃成都的火锅", "FACTUAL"),
        "sister": ("My sister Lina works as a nurse in Hangzhou", "FACTUAL"),
        "dish": ("The West Lake fish in Hangzhou is amazing, I always get it there", "SEMANTIC"),
        "dog": ("I have a dog named Biscuit", "FACTUAL"),
        "coffee": ("I drink a flat white every morning", "PROCEDURAL"),
        "rain": ("今天一直在下雨，有点烦", "EMOTIONAL"),
    }
    ids = {k: client.remember(user, text, type_)["id"] for k, (text, type_) in texts.items()}
    client.add_triple(user, ids["sister"], "user", "sister", "Lina", objectKind="person")
    client.add_triple(user, ids["sister"], "Lina", "lives_in", "Hangzhou", subjectKind="person", objectKind="place")
    client.add_triple(user, ids["dish"], "West Lake fish", "from", "Hangzhou", objectKind="place")
    client.add_triple(user, ids["dog"], "user", "has_pet", "Biscuit", objectKind="animal")
    return ids


def test_unrelated_input_is_gated_and_returns_nothing(client: BmamClient, user: str) -> None:
    seed(client, user)
    for text in ("What is the capital of Australia?", "帮我写一首关于秋天的诗", "How do black holes form?"):
        r = client.recall(user, text)
        assert r["gated"] is True, text
        assert r["memories"] == []
        assert "nothing relates" in r["reason"]


def test_a_user_without_memories_is_gated(client: BmamClient, user: str) -> None:
    r = client.recall(user, "Where do I live?")
    assert r["gated"] is True and r["memories"] == [] and r["bestSimilarity"] is None


def test_recall_answers_with_a_score_breakdown_and_records_the_use(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    before = client.memory(user, ids["city"])
    assert before is not None
    r = client.recall(user, "Which city do I live in?", k=3)
    assert r["gated"] is False
    top = r["memories"][0]
    assert top["memory"]["id"] == ids["city"]
    s = top["scores"]
    assert -1.0 <= s["vector"] <= 1.0
    for part in ("fulltext", "graph", "freshness", "weight", "relevance", "damping", "final"):
        assert 0.0 <= s[part] <= 1.0
    assert s["freshness"] > 0.9  # just remembered
    assert top["why"]
    # the memory as returned already carries this recall (same transaction), and so does a later read
    assert top["memory"]["recallCount"] == before["recallCount"] + 1
    after = client.memory(user, ids["city"])
    assert after is not None
    assert after["recallCount"] == before["recallCount"] + 1
    assert after["lastRecalledAt"] is not None
    assert after["weight"]["passive"] == pytest.approx(min(1.0, before["weight"]["passive"] + 0.1))
    w = after["weight"]
    assert w["final"] == pytest.approx(0.6 * w["passive"] + 0.3 * w["active"] + 0.1 * w["preset"])


def test_graph_expansion_brings_the_second_hop(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    r = client.recall(user, "What should I eat when I visit my sister?", k=5)
    got = {m["memory"]["id"]: m for m in r["memories"]}
    assert ids["sister"] in got
    assert ids["dish"] in got  # shares Hangzhou with the sister memory
    assert got[ids["dish"]]["scores"]["graph"] > 0  # reached through the graph, not by its own similarity


def test_a_named_entity_opens_the_gate(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    r = client.recall(user, "Biscuit")
    assert r["gated"] is False
    assert r["memories"][0]["memory"]["id"] == ids["dog"]
    assert "Biscuit".lower() in r["memories"][0]["why"].lower()


@pytest.mark.parametrize("hostile", [
    "') MATCH (n) DETACH DELETE n //",
    '" OR 1=1 } RETURN m //',
    "text:* OR user_id:* AND NOT x~ [a TO z]",
    "\\\\ / ? : ^ ~ * ! ( ) { } [ ]",
])
def test_hostile_queries_are_harmless(client: BmamClient, user: str, hostile: str) -> None:
    ids = seed(client, user)
    r = client.recall(user, hostile)
    assert isinstance(r["gated"], bool)
    assert all(client.memory(user, i) is not None for i in ids.values())


def test_recall_never_crosses_users(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    other = f"{user}-other"
    client.remember(other, "I collect vintage stamps", "FACTUAL")
    for query, owned in (("我喜欢吃什么？", "hotpot"), ("Biscuit the dog", "dog")):
        # the owner's recall finds the memory: asked of the other user, nothing of the owner may come back
        assert ids[owned] in [m["memory"]["id"] for m in client.recall(user, query)["memories"]], query
        r = client.recall(other, query)
        assert all(m["memory"]["userId"] == other for m in r["memories"])
        assert not {m["memory"]["id"] for m in r["memories"]} & set(ids.values())


def test_filters_by_type_and_min_score(client: BmamClient, user: str) -> None:
    seed(client, user)
    r = client.recall(user, "Where do I live and what do I drink in the morning?", k=10, types=["PROCEDURAL"])
    assert r["memories"] and all(m["memory"]["type"] == "PROCEDURAL" for m in r["memories"])
    # (not 我最喜欢吃什么: 吃什么 asks for advice, where a liking ranks with a bonus up to 1.0)
    r = client.recall(user, "我住在哪里？", k=10, minScore=0.99)
    assert r["memories"] == [] and r["gated"] is False and "minScore" in r["reason"]


@pytest.mark.parametrize(("k", "code"), [(0, "BAD_USER_INPUT"), (101, "LIMIT_EXCEEDED")])
def test_bad_k_is_refused(client: BmamClient, user: str, k: int, code: str) -> None:
    with pytest.raises(BmamClientError) as err:
        client.recall(user, "hello", k=k)
    assert err.value.code == code


def test_empty_query_is_refused(client: BmamClient, user: str) -> None:
    with pytest.raises(BmamClientError) as err:
        client.recall(user, "   ")
    assert err.value.code == "BAD_USER_INPUT"


def test_damping_across_the_turns_of_a_session(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    session = f"s-{uuid.uuid4().hex[:8]}"
    first = client.recall(user, "Where do I live?", session_id=session, k=3)
    top = first["memories"][0]
    assert top["memory"]["id"] == ids["city"] and top["scores"]["damping"] == 1.0
    second = client.recall(user, "Where do I live?", session_id=session, k=10)
    again = next(m for m in second["memories"] if m["memory"]["id"] == ids["city"])
    assert again["scores"]["damping"] < 1.0
    assert again["scores"]["final"] < top["scores"]["final"]
    assert "damped" in again["why"]
    # another session, or no session at all, is not damped
    fresh = client.recall(user, "Where do I live?", session_id=f"{session}-b", k=10)
    assert next(m for m in fresh["memories"] if m["memory"]["id"] == ids["city"])["scores"]["damping"] == 1.0
    plain = client.recall(user, "Where do I live?", k=10)
    assert next(m for m in plain["memories"] if m["memory"]["id"] == ids["city"])["scores"]["damping"] == 1.0
    # after the window (3 turns) without it, the memory is no longer damped
    for _ in range(3):
        client.recall(user, "What is the capital of Australia?", session_id=session)
    later = client.recall(user, "Where do I live?", session_id=session, k=10)
    assert next(m for m in later["memories"] if m["memory"]["id"] == ids["city"])["scores"]["damping"] == 1.0


def test_memories_recalled_together_strengthen_their_association(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    pair = frozenset((ids["sister"], ids["dish"]))

    def strength() -> float:
        return {frozenset((a["memoryA"], a["memoryB"])): a["strength"]
                for a in client.associations(user, ids["dish"])}.get(pair, 0.0)

    before = strength()
    r = client.recall(user, "What should I eat when I visit my sister Lina in Hangzhou?", k=3)
    got = [m["memory"]["id"] for m in r["memories"]]
    assert ids["sister"] in got and ids["dish"] in got
    assert strength() > before


def test_as_of_and_history(container: Container, tenant: str) -> None:
    """asOf sees only what was valid then; a memory remembered later does not exist yet."""
    before = datetime.now(UTC) - timedelta(minutes=5)
    container.memories.remember(tenant, RememberRequest(user_id="alice", text="I live in Lisbon", type="FACTUAL"))
    now = container.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?"))
    assert not now.gated and now.memories[0].memory.text == "I live in Lisbon"
    then = container.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?", as_of=before))
    assert then.gated and then.memories == []
    history = container.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?",
                                                            include_history=True))
    assert [m.memory.text for m in history.memories][:1] == ["I live in Lisbon"]


def test_history_of_a_conversation_ingested_later_is_in_its_own_time(container: Container, tenant: str) -> None:
    """A change of mind said in June ends the old memory's validity in June, not when the conversation was
    ingested (months later): asOf a date in between sees the new value only, and before June the old one."""
    said = {"我住在成都": datetime(2026, 1, 10, 9, 0, tzinfo=UTC),
            "我现在住在北京": datetime(2026, 6, 10, 9, 0, tzinfo=UTC)}
    for i, (text, at) in enumerate(said.items()):
        container.ingest.ingest_indexed(tenant, [TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                           text=text, turn=i, at=at)])
    history = container.memories.page(tenant, "alice", include_history=True).items
    by_text = {m.text: m for m in history}
    assert by_text["我住在成都"].valid_to == said["我现在住在北京"]  # superseded when the winner was said
    assert by_text["我现在住在北京"].valid_to is None

    def texts_as_of(day: datetime) -> list[str]:
        found = container.recall.recall(tenant, RecallRequest(user_id="alice", query="我住在哪里？", as_of=day))
        return [m.memory.text for m in found.memories]

    assert texts_as_of(datetime(2026, 8, 1, tzinfo=UTC)) == ["我现在住在北京"]
    assert texts_as_of(datetime(2026, 3, 1, tzinfo=UTC)) == ["我住在成都"]


def test_a_look_at_the_past_is_no_use_of_what_no_longer_holds(container: Container, tenant: str) -> None:
    """A superseded memory recalled asOf a past time (or with includeHistory) comes back as it is: its recall count,
    last recall and weight untouched; the live memories recalled with it record the recall."""
    said = {"I live in Lisbon": datetime(2026, 1, 10, 9, 0, tzinfo=UTC),
            "I moved to Porto": datetime(2026, 6, 10, 9, 0, tzinfo=UTC),
            "I work at Farfetch": datetime(2026, 1, 11, 9, 0, tzinfo=UTC)}
    for i, (text, at) in enumerate(said.items()):
        container.ingest.ingest_indexed(tenant, [TurnInput(user_id="alice", session_id="s1", speaker="user",
                                                           text=text, turn=i, at=at)])
    by_text = {m.text: m for m in container.memories.page(tenant, "alice", include_history=True).items}
    lisbon, job = by_text["I live in Lisbon"], by_text["I work at Farfetch"]
    assert lisbon.valid_to is not None and job.valid_to is None
    question = "Where do I live and work?"
    for request in (RecallRequest(user_id="alice", query=question, as_of=datetime(2026, 3, 1, tzinfo=UTC)),
                    RecallRequest(user_id="alice", query=question, include_history=True)):
        found = {m.memory.id: m.memory for m in container.recall.recall(tenant, request).memories}
        assert lisbon.id in found and job.id in found
        assert (found[lisbon.id].recall_count, found[lisbon.id].last_recalled_at) == (0, None)
        assert found[lisbon.id].weight == lisbon.weight
    after = container.memories.get(tenant, "alice", lisbon.id)
    assert after is not None and (after.recall_count, after.weight.passive) == (0, lisbon.weight.passive)
    kept = container.memories.get(tenant, "alice", job.id)
    assert kept is not None and kept.recall_count == 2 and kept.weight.passive > job.weight.passive


def test_forget_user_drops_the_session_state(container: Container, tenant: str) -> None:
    container.memories.remember(tenant, RememberRequest(user_id="alice", text="I live in Lisbon", type="FACTUAL"))
    container.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?", session_id="s1"))
    assert len(container.recall.repetition) >= 1
    container.erasure.forget_user(tenant, "alice", confirm=True)
    assert container.recall.repetition.damping((tenant, "alice", "s1"), [("x", "y")], "q") == {}
    assert container.recall.recall(tenant, RecallRequest(user_id="alice", query="Where do I live?")).gated


def test_related_search_over_http(client: BmamClient, user: str) -> None:
    ids = seed(client, user)
    found = client.related_search(user, ids["sister"], depth=2)
    hop = next(r for r in found if r["memory"]["id"] == ids["dish"])
    [step] = hop["path"]
    # addTriple formed an association from the entity the two share (as ingest does), as strong as the entity
    # hop: the path goes by either
    formed = {a["memoryA"] if a["memoryB"] == ids["sister"] else a["memoryB"]: a["strength"]
              for a in client.associations(user, ids["sister"])}
    assert formed[ids["dish"]] == pytest.approx(step["strength"])
    assert (step["via"], step["entity"]) in {("ENTITY", "Hangzhou"), ("ASSOCIATED", None)}
    assert hop["score"] == pytest.approx(step["strength"])
    with pytest.raises(BmamClientError) as err:
        client.related_search(f"{user}-other", ids["sister"])
    assert err.value.code == "NOT_FOUND"
    with pytest.raises(BmamClientError) as err:
        client.related_search(user, ids["sister"], depth=50)
    assert err.value.code == "BAD_USER_INPUT"


def test_association_hook_is_registered(container: Container) -> None:
    assert container.association_forming in container.stored_memory_hooks


def test_bad_input_is_refused_by_the_use_case(container: Container, tenant: str) -> None:
    with pytest.raises(BadInput):
        container.recall.recall(tenant, RecallRequest(user_id="", query="x"))
    with pytest.raises(BadInput):
        container.recall.recall(tenant, RecallRequest(user_id="alice", query="x", min_score=1.5))
    with pytest.raises(BadInput):
        container.recall.recall(tenant, RecallRequest(user_id="alice", query="x", as_of=datetime(2026, 1, 1)))
    with pytest.raises(BadInput):
        container.recall.recall(tenant, RecallRequest(user_id="alice", query="x", types=["WORKING"]))


def test_exact_scan_and_vector_index_paths_find_the_same_best_memory(container: Container, tenant: str,
                                                                       user: str) -> None:
    """The candidate read chooses the exact scan or the global vector index by cost; both must find the
    user's own nearest memory (and only the user's)."""
    from graph.model import Scope
    from graph.recall import CandidateSet, RecallFilters, RecallRepository, RetrievalLimits
    from graph.store import Tx
    from ingest.scoring import lucene_query, terms

    marker = uuid.uuid4().hex[:6]
    texts = [f"My climbing gym {marker} opens at seven", f"我的猫{marker}叫团子", f"Pasta water needs salt {marker}"]
    stored = [container.memories.remember(tenant, RememberRequest(user_id=user, text=t, type="FACTUAL"))
              for t in texts]
    repo = RecallRepository(container.store, container.vector_dimensions)
    scope = Scope(tenant=tenant, user_id=user)
    query = f"When does climbing gym {marker} open?"
    embedding = [float(x) for x in container.embedder.embed_query(query)]
    found = {}
    for path, limits in (("exact", RetrievalLimits(exact_max=10**6)),
                         ("index", RetrievalLimits(exact_max=0, exact_per_candidate=0))):
        def candidates(tx: Tx, lim: RetrievalLimits = limits) -> CandidateSet:
            return repo.candidates(tx, scope, embedding, terms(query), lucene_query(terms(query)), RecallFilters(),
                                   lim)

        got = container.store.read_tx(candidates)
        assert got.user_memories == 3
        assert {d.memory.id for d in got.dense} <= {m.id for m in stored}, path  # never another user's
        found[path] = got.dense[0].memory.id
    assert found["exact"] == found["index"] == stored[0].id


def test_the_full_text_index_finds_a_users_hits_however_many_other_users_match_better(
        container: Container, tenant: str, user: str) -> None:
    """A large user's full-text candidates come from the store-wide index: it must hand back that user's
    best hits, not the store's best hits filtered to the user (on a shared store those can all be other
    users', here 40 short memories that outscore the user's long ones)."""
    from graph.model import Scope
    from graph.recall import RecallFilters, RecallRepository, RetrievalLimits
    from ingest.scoring import lucene_query, terms

    word = f"zq{uuid.uuid4().hex[:8]}"
    for i in range(40):
        container.memories.remember(tenant, RememberRequest(user_id=f"{user}-other", text=f"{word} {i}",
                                                            type="FACTUAL"))
    mine = [container.memories.remember(tenant, RememberRequest(user_id=user, text=t, type="FACTUAL")).id for t in (
        f"Last spring I finally went to the {word} exhibition downtown with two old friends",
        f"My neighbour keeps talking about {word} whenever we meet in the long corridor upstairs",
        f"I wrote a very long letter about {word} to my grandmother who lives far away in the north")]
    repo = RecallRepository(container.store, container.vector_dimensions)
    query = f"what do I know about {word}"
    embedding = [float(x) for x in container.embedder.embed_query(query)]
    limits = RetrievalLimits(k_text=5, exact_max=0, exact_per_candidate=0, max_candidates=10)  # the index
    found = container.store.read_tx(lambda tx: repo.candidates(
        tx, Scope(tenant=tenant, user_id=user), embedding, terms(query), lucene_query(terms(query)),
        RecallFilters(), limits))
    assert sorted(t.memory.id for t in found.text) == sorted(mine)


def test_recall_ranks_on_weights_as_of_now_not_as_last_written(living: tuple[Container, FakeClock],
                                                                tenant: str) -> None:
    """A memory last written 20 weeks ago holds its weight of then; recall scores it decayed to now (the
    weight policy's formula, as weights/decay would leave it), before its own usage write."""
    from graph.ids import new_memory_id
    from graph.model import MemoryType, NewMemory, Scope
    from ingest.weights import Parts, decayed, elapsed_ms, final_weight

    c, clock = living
    scope = Scope(tenant, "alice")
    text = "My sister Lina lives in Hangzhou"
    new = NewMemory(id=new_memory_id(), text=text, type=MemoryType.FACTUAL,
                    embedding=[float(x) for x in c.embedder.embed_passages([text])[0]])
    stored = c.memory_repository.remember(scope, new, now=clock.now(), passive=1.0, active=0.5).memory
    clock.advance(timedelta(weeks=20))
    found = c.recall.recall(tenant, RecallRequest(user_id="alice", query="Where does my sister Lina live?"))
    [hit] = [m for m in found.memories if m.memory.id == stored.id]
    policy = c.weight_policy
    now = decayed(Parts(1.0, 0.5, stored.weight.preset), MemoryType.FACTUAL,
                  elapsed_ms(stored.created_at, clock.now()), policy)
    assert stored.weight.final == pytest.approx(0.8)
    assert hit.scores.weight == pytest.approx(final_weight(now, policy), abs=1e-6)  # 0.6 * 0.95^20 + 0.2
