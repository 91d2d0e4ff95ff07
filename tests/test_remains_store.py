"""A superseded memory's remains, end to end (real Neo4j): a conflict that contradicts part of what a memory said
supersedes it whole (DESIGN.md "Conflicts"), and its uncontested facts live on as a memory of their own
(bmam/usecases/remains.py): the name survives a change of job, through GraphQL and the CLI's container alike."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from typer.testing import CliRunner

from bmam.cli import app
from bmam.client import BmamClient
from bmam.clock import FakeClock
from bmam.container import Container
from bmam.usecases.recall import RecallRequest
from bmam.usecases.remains import SweepReport, remains_id
from graph.conflicts import ConflictStatus, ConflictStrategy
from graph.model import Memory, Scope
from graph.remains import RemainsRepository
from ingest.turns import TurnInput
from tests.ops_support import store_rows
from tests.test_conflicts import get, living, store

__all__ = ["living"]  # the fixture (a container on a fake clock), used by name

runner = CliRunner()
NAME_AND_JOB = "我叫李明，在杭州的阿里巴巴做产品经理"
WIFE = "我妻子叫王芳，她是一名医生"
NEW_JOB = "我上个月跳槽去了腾讯，现在住在深圳"
# what the new employer leaves of the first turn: the name and the job (做产品经理), said on their own
REMAINS = "我叫李明，我是产品经理"


def ingest(container: Container, tenant: str, user: str) -> None:
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id=user, session_id="s1", speaker="user", text=NAME_AND_JOB),
        TurnInput(user_id=user, session_id="s1", speaker="user", text=WIFE),
        TurnInput(user_id=user, session_id="s2", speaker="user", text=NEW_JOB),
    ])


def live_texts(container: Container, tenant: str, user: str) -> set[str]:
    return {m.text for m in container.memories.page(tenant, user, first=50).items}


def test_a_change_of_job_keeps_the_name(container: Container, tenant: str) -> None:
    ingest(container, tenant, "liming")
    [settled] = container.conflicts.conflicts(tenant, "liming", status=ConflictStatus.RESOLVED)
    assert settled.loser_id is not None
    loser = container.memories.get(tenant, "liming", settled.loser_id)
    assert loser is not None and loser.text == NAME_AND_JOB and loser.valid_to is not None  # superseded, as before

    assert live_texts(container, tenant, "liming") == {REMAINS, WIFE, NEW_JOB}
    scope = Scope(tenant=tenant, user_id="liming")
    kept = container.memories.get(tenant, "liming", remains_id(scope, loser.id))
    assert kept is not None
    assert (kept.text, kept.remains_of, kept.type, kept.tier) == (REMAINS, loser.id, loser.type, loser.tier)
    assert kept.valid_from == loser.valid_from and kept.valid_to is None  # said when the loser was
    assert kept.provenance == loser.provenance
    # what the kept clauses state, live; the employer's triple closed with the loser
    assert sorted((t.subject.name, t.predicate, t.object.name, t.valid_to) for t in
                  container.memories.triples(tenant, "liming", kept.id)) == [("user", "is_a", "产品经理", None),
                                                                              ("user", "name", "李明", None)]
    edges = store_rows(container, "MATCH (r:Memory {id: $r})-[e]->(x) WHERE r.tenant = $t "
                                  "RETURN type(e) AS type, coalesce(x.id, '') AS to ORDER BY type",
                       r=kept.id, t=tenant)
    derived = store_rows(container, "MATCH (l:Memory {id: $l})-[:DERIVED_FROM]->(e) RETURN e.id AS id", l=loser.id)
    assert {(e["type"], e["to"]) for e in edges} >= {("REMAINS_OF", loser.id), *(("DERIVED_FROM", d["id"])
                                                                                  for d in derived)}

    # what Neo4j Browser's "what superseded what" shows (bmam inspect)
    shown = container.store.read("inspect/superseded", {"tenant": tenant, "user_id": "liming"})
    assert [(r["winner"], r["loser"], r["remains"]) for r in shown] == [(NEW_JOB, NAME_AND_JOB, REMAINS)]

    # the question the user asked: answered by the remains, first
    answer = container.recall.recall(tenant, RecallRequest(user_id="liming", query="我叫什么名字？", k=3))
    assert not answer.gated
    assert answer.memories[0].memory.id == kept.id

    # settling is done once: keeping the remains again stores nothing new
    count = len(live_texts(container, tenant, "liming"))
    assert container.remains.keep(scope, loser.id, settled.winner_id or "") == \
        container.memories.get(tenant, "liming", kept.id)
    assert len(live_texts(container, tenant, "liming")) == count


def test_nothing_remains_of_a_memory_contradicted_whole(container: Container, tenant: str) -> None:
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="I live in Boston."),
        TurnInput(user_id="zoe", session_id="s2", speaker="user", text="Big news: we moved to Seattle last month."),
    ])
    [settled] = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert live_texts(container, tenant, "zoe") == {"Big news: we moved to Seattle last month."}
    rows = store_rows(container, "MATCH (m:Memory) WHERE m.tenant = $t AND m.remains_of IS NOT NULL RETURN m.id AS id",
                      t=tenant)
    assert rows == [] and settled.loser_id is not None


def test_a_friends_move_keeps_who_the_friend_is(container: Container, tenant: str) -> None:
    """A fact about a person by name ("Tom moved to Berlin") supersedes where the person lived; who the person is to
    the speaker, said in the same clause, lives on restated, with its triple."""
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="My colleague Tom lives in Paris."),
        TurnInput(user_id="zoe", session_id="s2", speaker="user", text="Tom moved to Berlin last month."),
    ])
    [settled] = container.conflicts.conflicts(tenant, "zoe", status=ConflictStatus.RESOLVED)
    assert "Paris" in settled.reason and "Berlin" in settled.reason
    assert live_texts(container, tenant, "zoe") == {"Tom moved to Berlin last month.", "Tom is my colleague"}
    live = {(t.subject.name, t.predicate, t.object.name) for m in container.memories.page(tenant, "zoe").items
            for t in container.memories.triples(tenant, "zoe", m.id) if t.valid_to is None}
    assert live == {("Tom", "lives_in", "Berlin"), ("user", "colleague", "Tom")}


def test_the_remains_through_graphql(client: BmamClient, api_tenant: str) -> None:
    user = "u" + uuid.uuid4().hex[:10]
    turns = [{"userId": user, "sessionId": s, "speaker": "user", "text": t}
             for s, t in (("s1", "I live in Boston and I work as a data engineer at Moderna"),
                          ("s2", "Big news: we moved to Seattle last month"))]
    client.execute("mutation($t: [TurnInput!]!) { ingestConversation(turns: $t) { stored } }", {"t": turns})
    data = client.execute(
        "query($u: String!) { memories(userId: $u, includeHistory: true) { edges { node { id text validTo "
        "remainsOf } } } }", {"u": user})
    nodes = {n["text"]: n for n in (e["node"] for e in data["memories"]["edges"])}
    loser = nodes["I live in Boston and I work as a data engineer at Moderna"]
    assert loser["validTo"] is not None and loser["remainsOf"] is None
    kept = nodes["I work as a data engineer at Moderna"]
    assert kept["validTo"] is None and kept["remainsOf"] == loser["id"]
    recalled = client.execute("query($u: String!) { recall(userId: $u, query: \"Where do I work?\", k: 3) "
                              "{ memories { memory { text remainsOf } } } }", {"u": user})
    assert recalled["recall"]["memories"][0]["memory"]["text"] == "I work as a data engineer at Moderna"


def test_the_remains_go_through_an_rdf_export_and_import(container: Container, tenant: str) -> None:
    ingest(container, tenant, "liming")
    exported = b"".join(container.export.export_rdf(tenant, "liming", "turtle"))
    target = Scope(tenant, "liming-copy")
    report = container.export.import_rdf(target.tenant, target.user_id, exported, "turtle")
    assert report.ignored == 0
    rows = store_rows(container, "MATCH (r:Memory)-[:REMAINS_OF]->(l:Memory) WHERE r.tenant = $t AND r.user_id = $u "
                                 "RETURN r.text AS text, r.remains_of AS remains_of, l.id AS loser, "
                                 "l.text AS loser_text, l.valid_to IS NOT NULL AS superseded",
                      t=tenant, u=target.user_id)
    assert rows == [{"text": REMAINS, "remains_of": rows[0]["loser"], "loser": rows[0]["loser"],
                     "loser_text": NAME_AND_JOB, "superseded": True}]


def _stored_and_said(container: Container, tenant: str, user: str) -> tuple[list[str], list[str]]:
    """The user's memories' texts in the order stored (seq), and in the order said (a remains' said_seq, else seq)."""
    rows = store_rows(container, "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u "
                                 "RETURN m.text AS text, m.seq AS seq, coalesce(m.said_seq, m.seq) AS said",
                      t=tenant, u=user)
    return ([r["text"] for r in sorted(rows, key=lambda r: r["seq"])],
            [r["text"] for r in sorted(rows, key=lambda r: (r["said"], r["seq"]))])


def test_an_rdf_copy_keeps_the_order_the_user_said_things_in(container: Container, tenant: str) -> None:
    """The order said breaks a tie of times (conflicts._newer): the copy numbers its memories anew in the source's
    order, and the remains stand where their loser stood there, whatever order the file lists them in (by id)."""
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="tom", session_id="s1", speaker="user",
                  text="Hi, I'm Tom. I live in Boston and I work at Google as a software engineer. "
                       "I have a golden retriever named Max."),
        *[TurnInput(user_id="tom", session_id="s1", speaker="user", text=f"My colleague number {i} is called {name}.")
          for i, name in enumerate(["Ann", "Bo", "Cy", "Di", "Ed", "Flo"])],
        TurnInput(user_id="tom", session_id="s2", speaker="user",
                  text="I quit Google last week, I'm joining Stripe now."),
    ])
    stored, said = _stored_and_said(container, tenant, "tom")
    assert stored != said and len(stored) >= 8  # the remains were stored last and said first
    for fmt in ("turtle", "jsonld"):
        target = Scope(tenant, f"tom-copy-{fmt}")
        container.export.import_rdf(target.tenant, target.user_id,
                                    b"".join(container.export.export_rdf(tenant, "tom", fmt)), fmt)
        assert _stored_and_said(container, tenant, target.user_id) == (stored, said)


def test_an_import_cut_before_the_said_seq_gets_it_when_the_file_is_imported_again(container: Container,
                                                                                   tenant: str) -> None:
    """The remains' said_seq is written after the memories' batches: an import cut between the two left the
    remains standing where they were stored, and importing the file again (which creates nothing) did not set it.
    Now it does, to the value the whole import gives; and a further import changes nothing."""
    ingest(container, tenant, "liming")
    exported = b"".join(container.export.export_rdf(tenant, "liming", "turtle"))
    target = Scope(tenant, "liming-cut")
    container.export.import_rdf(target.tenant, target.user_id, exported, "turtle")
    whole = _stored_and_said(container, tenant, target.user_id)
    said = ("MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u AND m.remains_of IS NOT NULL "
            "RETURN m.id AS id, m.said_seq AS said_seq, m.seq AS seq ORDER BY id")
    remains = store_rows(container, said, t=tenant, u=target.user_id)
    assert remains and all(r["said_seq"] is not None and r["said_seq"] < r["seq"] for r in remains)

    # the cut: the memories written, the said_seq statement never ran
    store_rows(container, "MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u AND m.remains_of IS NOT NULL "
                          "REMOVE m.said_seq", t=tenant, u=target.user_id)
    assert _stored_and_said(container, tenant, target.user_id) != whole

    again = container.export.import_rdf(target.tenant, target.user_id, exported, "turtle")
    assert sum(again.created.values()) == 0
    assert store_rows(container, said, t=tenant, u=target.user_id) == remains
    assert _stored_and_said(container, tenant, target.user_id) == whole

    every = ("MATCH (m:Memory) WHERE m.tenant = $t AND m.user_id = $u "
             "RETURN m.id AS id, m {.*, embedding: null} AS props ORDER BY id")
    before = store_rows(container, every, t=tenant, u=target.user_id)
    container.export.import_rdf(target.tenant, target.user_id, exported, "turtle")
    assert store_rows(container, every, t=tenant, u=target.user_id) == before


def test_a_sweep_keeps_the_remains_a_stopped_process_left_out(container: Container, tenant: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # settled, and the process stopped before the remains (no callback ran)
    monkeypatch.setattr(container.conflicts, "superseded", [])
    ingest(container, tenant, "liming")
    container.ingest.ingest_conversation(tenant, [  # a loser of which nothing remains
        TurnInput(user_id="zoe", session_id="s1", speaker="user", text="I live in Boston."),
        TurnInput(user_id="zoe", session_id="s2", speaker="user", text="I live in Seattle now."),
    ])
    unchecked = RemainsRepository(container.store).unchecked
    assert REMAINS not in live_texts(container, tenant, "liming")
    assert len(unchecked(tenant=tenant)) == 2

    swept = runner.invoke(app, ["remains", "--tenant", tenant])
    assert swept.exit_code == 0, swept.output
    assert "2 superseded memories looked at, remains kept for 1" in swept.stdout
    assert REMAINS in live_texts(container, tenant, "liming")
    # both losers looked at: a second sweep finds nothing to do
    assert unchecked(tenant=tenant) == []
    assert container.remains.sweep(tenant=tenant) == SweepReport(looked=0, kept=0)


def test_the_cli_refuses_a_tenant_with_all_tenants(tenant: str) -> None:
    refused = runner.invoke(app, ["remains", "--all-tenants", "--tenant", tenant])
    assert refused.exit_code == 2 and "--all-tenants takes neither" in refused.output


def test_a_conflict_the_user_resolves_keeps_the_remains(living: tuple[Container, FakeClock]) -> None:
    c, clock = living
    scope = Scope(f"test-{uuid.uuid4().hex[:12]}", "tom")
    old = store(c, scope, "I'm Tom, I live in Boston", triples=[("user", "name", "Tom", 1),
                                                                 ("user", "lives_in", "Boston", 1)], hook=False)
    clock.advance(timedelta(days=30))
    new = store(c, scope, "I live in Seattle now", triples=[("user", "lives_in", "Seattle", 1)],
                strategy=ConflictStrategy.REVIEW)
    [held] = c.conflicts.conflicts(scope.tenant, scope.user_id)
    assert live_texts(c, scope.tenant, scope.user_id) == {"I'm Tom, I live in Boston", "I live in Seattle now"}
    c.conflicts.resolve(scope.tenant, scope.user_id, held.id, new.id)
    kept = c.memories.get(scope.tenant, scope.user_id, remains_id(scope, old.id))
    assert kept is not None and kept.text == "I'm Tom" and kept.remains_of == old.id
    assert live_texts(c, scope.tenant, scope.user_id) == {"I'm Tom", "I live in Seattle now"}


def test_the_remains_stand_where_the_loser_stood_in_a_tie_of_times(container: Container, tenant: str) -> None:
    """A conversation sent at once without times stamps every turn with one time: the order the user said things
    breaks the tie (the user's memory sequence). The remains of the first turn were said then, not when they were
    stored: "I quit Google" (said after) wins over their "I work at Google"."""
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="tom", session_id="s1", speaker="user",
                  text="Hi, I'm Tom. I live in Boston and I work at Google as a software engineer. "
                       "I have a golden retriever named Max."),
        TurnInput(user_id="tom", session_id="s2", speaker="user",
                  text="I quit Google last week, I'm joining Stripe now."),
        TurnInput(user_id="tom", session_id="s3", speaker="user", text="We moved to Beijing last year."),
    ])
    assert live_texts(container, tenant, "tom") == {
        "I quit Google last week, I'm joining Stripe now.", "We moved to Beijing last year.",
        # the occupation said with the employer is restated: quitting Google leaves the engineer
        "I'm Tom, I'm a software engineer, I have a golden retriever named Max"}


def test_a_batchs_settlements_get_their_remains_at_once(container: Container, tenant: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks of one ingest run segment by segment (a segment ends at each memory that settles something), and
    the remains of all its settlements are kept in one call, after the commit."""
    calls: list[list[tuple[str, str]]] = []
    kept: dict[str, Memory] = {}
    keep_many = container.remains.keep_many

    def spy(scope: Scope, pairs: list[tuple[str, str]]) -> dict[str, Memory]:
        calls.append(list(pairs))
        kept.update(keep_many(scope, pairs))
        return kept

    monkeypatch.setattr(container.remains, "keep_many", spy)
    container.ingest.ingest_conversation(tenant, [
        TurnInput(user_id="ann", session_id="s1", speaker="user", text="I'm Ann, I live in Boston"),
        TurnInput(user_id="ann", session_id="s1", speaker="user", text="I have a cat named Tom, I work at Moderna"),
        TurnInput(user_id="ann", session_id="s2", speaker="user", text="I live in Seattle now"),
        TurnInput(user_id="ann", session_id="s2", speaker="user", text="These days I work at Amazon"),
    ])
    assert len(calls) == 1 and len(calls[0]) == 2, calls
    # the remains as stored and tied: each names its loser
    assert sorted((m.remains_of, m.text) for m in kept.values()) == sorted(
        (loser, container.memories.get(tenant, "ann", remains_id(Scope(tenant, "ann"), loser)).text)  # type: ignore[union-attr]
        for loser, _ in calls[0])
    assert live_texts(container, tenant, "ann") == {"I'm Ann", "I have a cat named Tom", "I live in Seattle now",
                                                    "These days I work at Amazon"}


def test_the_remains_are_not_decayed_again_for_the_time_their_loser_was(
        living: tuple[Container, FakeClock]) -> None:
    """The remains keep the loser's weight parts as the settlement left them (decayed up to it): their decay
    clock starts where the loser's stood, not at the time the loser was said (which would take the same weeks
    off twice, and could leave them under maintenance's purge line)."""
    c, clock = living
    scope = Scope(f"test-{uuid.uuid4().hex[:12]}", "tom")
    old = store(c, scope, "I'm Tom, I live in Boston", triples=[("user", "name", "Tom", 1),
                                                                 ("user", "lives_in", "Boston", 1)],
                passive=0.8, hook=False)
    clock.advance(timedelta(weeks=26))
    store(c, scope, "I live in Seattle now", triples=[("user", "lives_in", "Seattle", 1)])
    kept = c.memories.get(scope.tenant, scope.user_id, remains_id(scope, old.id))
    loser = c.memories.get(scope.tenant, scope.user_id, old.id)
    assert kept is not None and loser is not None and loser.valid_to is not None
    assert loser.weight.passive < 0.8 * 0.96  # the settlement decayed the loser's parts up to it
    assert kept.weight.passive == pytest.approx(loser.weight.passive)

    # Decaying everything to the same moment changes nothing more: no time has passed for either.
    c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id)
    after = c.memories.get(scope.tenant, scope.user_id, kept.id)
    assert after is not None and after.weight.passive == pytest.approx(loser.weight.passive)
    # A week later the remains lose one week's 5 %, as any memory does.
    clock.advance(timedelta(weeks=1))
    c.maintenance.run(scope.tenant, "DECAY", user_id=scope.user_id)
    week_on = c.memories.get(scope.tenant, scope.user_id, kept.id)
    assert week_on is not None and week_on.weight.passive == pytest.approx(loser.weight.passive * 0.95)


@pytest.mark.parametrize("by_user", [False, True], ids=["system-settles", "user-resolves"])
def test_the_remains_get_back_only_what_the_penalty_took(living: tuple[Container, FakeClock],
                                                         by_user: bool) -> None:
    """A loser whose active part was under the penalty loses all of it (clamped at 0): its remains get back
    what it had, not the whole penalty (which would leave them more active than the loser ever was). A loser
    with more keeps the full give-back. Both the system's settlement and the user's record what they took."""
    c, clock = living
    penalty = c.weight_policy.loser_penalty
    scope = Scope(f"test-{uuid.uuid4().hex[:12]}", "tom")
    strategy = ConflictStrategy.REVIEW if by_user else None
    low = store(c, scope, "I'm Tom, I live in Boston", triples=[("user", "name", "Tom", 1),
                                                                 ("user", "lives_in", "Boston", 1)],
                active=0.05, hook=False)
    high = store(c, scope, "I'm a nurse, I work at Mercy", triples=[("user", "occupation", "nurse", 1),
                                                                     ("user", "works_at", "Mercy", 1)],
                 active=0.6, hook=False)
    clock.advance(timedelta(days=1))
    store(c, scope, "I live in Seattle now", triples=[("user", "lives_in", "Seattle", 1)],
                  strategy=strategy)
    store(c, scope, "I work at Kaiser now", triples=[("user", "works_at", "Kaiser", 1)], strategy=strategy)
    if by_user:
        for held in c.conflicts.conflicts(scope.tenant, scope.user_id):
            c.conflicts.resolve(scope.tenant, scope.user_id, held.id, held.new_memory_id)
    for old, had in ((low, 0.05), (high, 0.6)):
        loser = get(c, scope, old.id)
        kept = c.memories.get(scope.tenant, scope.user_id, remains_id(scope, old.id))
        assert loser.valid_to is not None and kept is not None, old.text
        assert loser.weight.active == pytest.approx(max(0.0, had - penalty))
        assert kept.weight.active == pytest.approx(had), old.text  # what the loser had before the penalty
