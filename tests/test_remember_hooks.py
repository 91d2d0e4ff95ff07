"""remember runs the stored-memory hooks as ingest does (against the real Neo4j): a remembered memory that
contradicts an older one is found and settled (LATEST: the older is superseded), one sharing a rare name with
another is associated with it, and its pending-hooks mark is cleared once they went through."""

from __future__ import annotations

from bmam.container import Container
from bmam.usecases.memories import RememberRequest
from bmam.usecases.recall import RecallRequest
from graph.model import Memory
from ingest.turns import TurnInput
from tests.ops_support import store_rows


def test_a_remembered_contradiction_is_found_and_settled(container: Container, tenant: str) -> None:
    old = container.memories.remember(tenant, RememberRequest(user_id="alice", type="EPISODIC",
                                                              text="I have been to Japan twice"))
    new = container.memories.remember(tenant, RememberRequest(user_id="alice", type="EPISODIC",
                                                              text="I have never been to Japan"))
    [conflict] = container.conflicts.conflicts(tenant, "alice", status=None)
    assert (conflict.kind.value, conflict.status.value) == ("NEGATION", "RESOLVED")
    assert (conflict.winner_id, conflict.loser_id) == (new.id, old.id)
    superseded = container.memories.get(tenant, "alice", old.id)
    assert superseded is not None and superseded.valid_to is not None
    assert new.valid_to is None and new.weight.final > old.weight.final  # answered as the hooks left it


def test_a_remembered_memory_is_associated_and_its_hooks_marked_done(container: Container, tenant: str) -> None:
    # rare words link memories only for a user with enough of them (recall.term_link_min_memories)
    for i in range(container.settings.recall.term_link_min_memories):
        container.memories.remember(tenant, RememberRequest(user_id="alice", type="FACTUAL",
                                                            text=f"filler note number {i} about errands"))
    a = container.memories.remember(tenant, RememberRequest(user_id="alice", type="FACTUAL",
                                                            text="Priyanka is my piano teacher"))
    b = container.memories.remember(tenant, RememberRequest(user_id="alice", type="EPISODIC",
                                                            text="Priyanka moved her lessons to Thursday"))
    linked = {frozenset((x.memory_a, x.memory_b)) for x in container.memories.associations(tenant, "alice", b.id)}
    assert linked == {frozenset((a.id, b.id))}  # the rare name they share
    pending = store_rows(container, "MATCH (m:Memory) WHERE m.tenant = $t AND m.hooks_pending_at IS NOT NULL "
                                    "RETURN m.id AS id", t=tenant)
    assert pending == []


def stored_among_fillers(container: Container, tenant: str, user: str, *said: tuple[str, str]) -> list[Memory]:
    """The memories said ((type, text) each), after enough filler for rare-term links to form
    (term_link_min_memories)."""
    for i in range(container.settings.recall.term_link_min_memories):
        container.memories.remember(tenant, RememberRequest(user_id=user, type="FACTUAL",
                                                            text=f"filler note number {i} about errands"))
    return [container.memories.remember(tenant, RememberRequest(user_id=user, type=t, text=text)) for t, text in said]


def linked_to(container: Container, tenant: str, user: str, memory: Memory) -> set[frozenset[str]]:
    return {frozenset((x.memory_a, x.memory_b)) for x in container.memories.associations(tenant, user, memory.id)}


def test_fillers_and_chinese_function_bigrams_link_nothing(container: Container, tenant: str) -> None:
    """"yeah" and 早上 / 上了 are rare among a small user's memories too: links on them (a physio visit with the
    beagle, yoga with a stomach medicine) grew with every recall and brought the one along with the other. A
    Han name they share still links them."""
    yoga, pills, physio, beagle, coach = stored_among_fillers(
        container, tenant, "mei", ("EPISODIC", "今天早上去上了瑜伽课，感觉不错"),
        ("FACTUAL", "还要吃一个月的奥美拉唑，每天早上饭前吃"), ("FACTUAL", "yeah honestly the physio said rest it"),
        ("FACTUAL", "yeah honestly he's our beagle"), ("EPISODIC", "瑜伽老师说我进步很快"))
    assert linked_to(container, tenant, "mei", pills) == set() and linked_to(container, tenant, "mei", beagle) == set()
    linked = linked_to(container, tenant, "mei", coach)
    assert frozenset((yoga.id, coach.id)) in linked and physio.id not in {i for p in linked for i in p}
    # a word holding a pronoun or particle character is still a word (吉他, 地铁: a character list broke them)
    guitar, teacher = stored_among_fillers(container, tenant, "lin", ("EPISODIC", "我在学吉他"),
                                           ("FACTUAL", "我的吉他老师姓王"))
    assert frozenset((guitar.id, teacher.id)) in linked_to(container, tenant, "lin", teacher)


def test_everyday_words_link_nothing(container: Container, tenant: str) -> None:
    """"found" and "week" are rare among a small user's memories, yet two memories sharing them are about nothing
    in common: no rare-term link (one formed and, recalled together, grew to 0.8 and pulled the move into every
    prompt). A name they share still links them."""
    moving, allergy, visit = stored_among_fillers(
        container, tenant, "alice", ("EPISODIC", "Moving to Cambridge next week, I found an apartment"),
        ("FACTUAL", "Last week I found out that shellfish makes me sick"),
        ("EPISODIC", "Priyanka will visit me in Cambridge"))
    assert linked_to(container, tenant, "alice", allergy) == set()
    assert frozenset((moving.id, visit.id)) in linked_to(container, tenant, "alice", visit)


def test_months_and_case_link_nothing(container: Container, tenant: str) -> None:
    """"case" (in case / case study) and "December" linked a birthday to an interview and a jazz show to a first day
    at work; each link brought the one into prompts about the other."""
    _birthday, study, _jazz, job = stored_among_fillers(
        container, tenant, "sam", ("FACTUAL", "My birthday is March 14, in case you need that"),
        ("EPISODIC", "The case study for the interview is done btw"),
        ("EPISODIC", "Going to a jazz show in December with Jordan"),
        ("FACTUAL", "I start on December 1st as Senior Product Manager"))
    assert linked_to(container, tenant, "sam", study) == set() and linked_to(container, tenant, "sam", job) == set()


def test_a_follow_up_opening_with_a_pronoun_is_linked_to_the_turn_before(container: Container, tenant: str) -> None:
    """"she lives in Denver. she's a nurse there" after "my sister Jess is flying in next month" named no one:
    "What does Jess do for work?" missed it. It is linked to the memories of the user's turn before it (an
    assistant's reply between), and recall reaches it from Jess."""
    said = [("user", "My sister Jess is flying in to visit next month."),
            ("assistant", "How lovely! Tell me about her."),
            ("user", "she lives in Denver. she's a nurse there"), ("user", "I bought new running shoes")]
    made = [container.ingest.ingest_turn(tenant, TurnInput(user_id="dan", session_id="s1", speaker=speaker,
                                                           text=text)).memories for speaker, text in said]
    jess, nurse, shoes = made[0][0], made[2][0], made[3][0]
    assert frozenset((jess.id, nurse.id)) in linked_to(container, tenant, "dan", nurse)
    assert frozenset((nurse.id, shoes.id)) not in linked_to(container, tenant, "dan", shoes)  # opens with no pronoun
    result = container.recall.recall(tenant, RecallRequest(user_id="dan", query="What does Jess do for work?"))
    assert nurse.id in [r.memory.id for r in result.memories]


def test_a_liking_said_after_a_request_is_linked_to_it(container: Container, tenant: str) -> None:
    """"I like true crime and history. Nothing political." after "Recommend some podcasts for a 14-hour day?" (an
    assistant's reply between) is what the user wants of the podcasts, yet shares no word with them: "Recommend me a
    few podcasts for next week's drives." found the request alone (blind 5). It is linked to the request's memories,
    and recall reaches it; a liking after a turn that asked for nothing is linked to nothing."""
    said = [("user", "I'm a long-haul trucker out of Omaha. Recommend some podcasts for a 14-hour day?"),
            ("assistant", "Hardcore History, Casefile and Behind the Bastards are popular with drivers."),
            ("user", "I like true crime and history. Nothing political, I get enough of that at truck stops."),
            ("user", "My daughter Kayla is graduating high school in May."),
            ("user", "I love the smell of diesel in the morning.")]
    made = [container.ingest.ingest_turn(tenant, TurnInput(user_id="hank", session_id="s1", speaker=speaker,
                                                           text=text)).memories for speaker, text in said]
    request, liking, kayla, diesel = made[0][0], made[2][0], made[3][0], made[4][0]
    assert frozenset((request.id, liking.id)) in linked_to(container, tenant, "hank", liking)
    assert linked_to(container, tenant, "hank", diesel) == set()  # Kayla's turn asked for nothing
    result = container.recall.recall(tenant, RecallRequest(user_id="hank",
                                                           query="Recommend me a few podcasts for next week's drives."))
    assert liking.id in [r.memory.id for r in result.memories], result.reason
    assert kayla.id not in [r.memory.id for r in result.memories]


def test_a_follow_up_links_only_to_the_person_the_turn_before_named(container: Container, tenant: str) -> None:
    """The pronoun's person is in the user's turn just before: "She's a nurse in Denver" was linked to the allergy
    said two turns back too, "They say it will rain all week" to the beagle."""
    said = ["I'm allergic to peanuts", "My sister Jess is flying in next month", "She's a nurse in Denver",
            "I adopted a beagle named Max", "They say it will rain all week here"]
    made = [container.ingest.ingest_turn(tenant, TurnInput(user_id="kim", session_id="s1", speaker="user",
                                                           text=text)).memories[0] for text in said]
    allergy, jess, nurse, max_, rain = made
    nurse_links = linked_to(container, tenant, "kim", nurse)
    assert frozenset((jess.id, nurse.id)) in nurse_links and frozenset((allergy.id, nurse.id)) not in nurse_links
    assert frozenset((max_.id, rain.id)) not in linked_to(container, tenant, "kim", rain)


def test_a_follow_up_links_to_someone_the_turn_before_spoke_of_unnamed(container: Container, tenant: str) -> None:
    """"she gave me clamshells and side planks to do every night" after "physio says IT band syndrome": the physio is
    no entity, yet she is who the pronoun means; "what should i do tonight for my knee?" missed the exercises. A turn
    before that speaks of no one ("the weather was awful") gets no link."""
    said = ["ugh. knee pain on the outside of my right knee after my 16 miler. physio says IT band syndrome",
            "she gave me clamshells and side planks to do every night, 3 sets of 15",
            "the weather was awful on my long run", "she said it would clear up by noon"]
    made = [container.ingest.ingest_turn(tenant, TurnInput(user_id="ana", session_id="s1", speaker="user",
                                                           text=text)).memories[0] for text in said]
    knee, exercises, weather, noon = made
    assert frozenset((knee.id, exercises.id)) in linked_to(container, tenant, "ana", exercises)
    assert frozenset((weather.id, noon.id)) not in linked_to(container, tenant, "ana", noon)
    asked = RecallRequest(user_id="ana", query="what should i do tonight for my knee?")
    result = container.recall.recall(tenant, asked)
    assert exercises.id in [r.memory.id for r in result.memories], result.reason


def test_the_steps_of_something_told_over_several_turns_are_one_hop_from_its_heading(container: Container,
                                                                                      tenant: str) -> None:
    """"Let me tell you how I deploy the blog." / "First, I run make build." / "Then I rsync ..." / "Finally I purge
    the CDN.": recall of "How do I deploy the blog?" found the heading alone (the steps share no word with it). Each
    step is linked to the heading and to the steps before it; a turn after the run opening with no step word is not."""
    said = [("user", "Let me tell you how I deploy the blog."), ("assistant", "Sure, go ahead."),
            ("user", "First, I run make build."), ("user", "Then I rsync public/ to the server."),
            ("assistant", "Got it."), ("user", "Finally I purge the CDN."), ("user", "I had pasta for lunch today.")]
    made = [container.ingest.ingest_turn(tenant, TurnInput(user_id="ops", session_id="s1", speaker=speaker,
                                                           text=text)).memories for speaker, text in said]
    heading, build, rsync, purge, lunch = made[0][0], made[2][0], made[3][0], made[5][0], made[6][0]
    links = linked_to(container, tenant, "ops", purge)
    assert {frozenset((purge.id, x.id)) for x in (heading, build, rsync)} <= links
    assert not any(lunch.id in pair for pair in linked_to(container, tenant, "ops", lunch))
    result = container.recall.recall(tenant, RecallRequest(user_id="ops", query="How do I deploy the blog?", k=10))
    assert {heading.id, build.id, rsync.id, purge.id} <= {r.memory.id for r in result.memories}
