"""The three-tier growth rules (DESIGN.md "Tiers"), pure: which memory moves where, and why.

Given the tier state of a user's memories (graph.tiers.TierMemory rows) these functions decide;
graph/tiers.py applies the decisions in Cypher, inside the caller's transaction. Nothing here
reads a clock or the store, so every rule is testable alone.

The rules:
- every new memory lands in temp;
- temp -> mid: the user engages (react ENGAGED), picks the topic up in a later turn, or repeats it;
- mid -> core (locked): mentioned `core_after_mentions` times, or emphasised (记住 / remember this);
  temp -> core directly on emphasis; a user's lock mutation; refused when core is full;
- mid -> temp: mid over capacity (its least useful), react DISMISSED, or the sweep finds it
  unmentioned longer than `mid_fallback_after` with its weight below `mid_fallback_max_weight`;
- temp -> deleted: temp over capacity (its least useful; never a safety memory), react DISMISSED, or the
  sweep finds it unmentioned longer than `temp_stale_after` with its weight below `temp_stale_max_weight`
  (safety-critical memories are never stale, nor the user's lasting knowledge: one stating a triple of
  DURABLE_PREDICATES, or a routine or how-to of theirs, LASTING_TYPES; nor the winner of a conflict with a mid
  or core memory: "We cancelled the Japan trip" ending a plan kept in mid is what the user now says of a thing
  kept);
- core -> mid: only the user's unlock; a locked memory is never moved or removed by the system.
"Least useful" is: unlocked only, lowest weight first, then longest unmentioned, then oldest, then id.
"Unmentioned" for the stale and fade rules counts from the last mention, the last recall or the memory's move into
its tier, whichever is latest (quiet_since): a recall, the user's ENGAGED or unlock, or a fall back to temp, starts the
clock again.

Two kinds of memory that sweeps and capacities never demote or delete (the user's forget removes them):
- superseded history (valid_to set: the loser of a resolved conflict, kept per DESIGN "Conflicts") is
  outside the tiers: it keeps the tier it had, takes no room in any capacity, and sweeps pass it by;
- a memory held in an open conflict (review) stays where it is until the conflict is resolved: it still
  counts in its tier, so a tier holding more of them than its capacity stays over it until then.
A user's DISMISSED may send such a mid memory back to temp but never deletes it (refused, like a locked one).

Weights are judged as of now: the stored weight is only as fresh as the last call that decayed it
(recall, feedback, conflicts, maintenance), so `decayed_to` brings each memory's stored parts from their
last decay to now (ingest/weights.py `decayed`). Computed here, not written back: decay is path
independent, so this is exactly the weight a later decay stores, and the capacity check on ingest's hot
path reads what it reads anyway and writes nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from graph.model import MemoryType, PresetKind, Tier
from graph.tiers import TierMemory
from ingest.extract import PERSONAL_FACT_PREDICATES, REPLY_STYLE_PREDICATE
from ingest.weights import Parts, WeightPolicy, decayed, elapsed_ms, final_weight

# What a memory states that makes it the user's lasting knowledge, never stale (DESIGN "Two filters": keep what is
# specific to the user, their preferences and the facts about them): a live triple with one of these predicates,
# either polarity ("I don't eat pork" is diet too): their home, work, family, pets, health, contact; likes and diet;
# their routines, way to work, team and plans, and how they want to be answered.
# Unmentioned for a week it is not unimportant: "I started a new job at Microsoft" was deleted 8 days after it was
# said, and "What's my job?" answered "我有点饿了"; a 90-day life lost its gym days, commute and a trip planned five
# weeks ahead a week after each was said. Trivia and one-offs still go stale; capacity may still evict any.
DURABLE_PREDICATES: frozenset[str] = PERSONAL_FACT_PREDICATES | {
    "likes", "eats", "drinks", "has_routine", "commutes_by", "supports_team", "going_to", REPLY_STYLE_PREDICATE}

# The kinds of memory that are the user's ways, lasting with no triple to say so: a routine or a how-to of theirs
# (我每天早上都要喝一杯美式咖啡 states no triple, and went a week after it was said). Said as temporary (a preset),
# they go stale as any one-off.
LASTING_TYPES: frozenset[MemoryType] = frozenset({MemoryType.PROCEDURAL})


class Signal(StrEnum):
    """The user's reaction when a memory comes up again (filter 2)."""

    ENGAGED = "ENGAGED"
    IGNORED = "IGNORED"
    DISMISSED = "DISMISSED"


class Reason(StrEnum):
    """Why a memory changed tier (carried on events and in results)."""

    ENGAGED = "engaged"
    TOPIC_PICKED_UP = "topic_picked_up"
    REPEATED = "repeated"
    MENTIONED_OFTEN = "mentioned_often"
    EMPHASIS = "emphasis"
    LOCKED_BY_USER = "locked_by_user"
    UNLOCKED_BY_USER = "unlocked_by_user"
    DISMISSED = "dismissed"
    MID_FULL = "mid_full"
    TEMP_FULL = "temp_full"
    FADED = "unmentioned_and_faded"
    STALE = "stale"


@dataclass(frozen=True, slots=True)
class TierChange:
    """One move: to_tier None means the memory was deleted."""

    memory_id: str
    from_tier: Tier
    to_tier: Tier | None
    reason: Reason

    @property
    def deleted(self) -> bool:
        return self.to_tier is None


@dataclass(frozen=True, slots=True)
class Capacities:
    core: int = 64
    mid: int = 1024
    temp: int = 256

    def of(self, tier: Tier) -> int:
        return {Tier.CORE: self.core, Tier.MID: self.mid, Tier.TEMP: self.temp}[tier]


@dataclass(frozen=True, slots=True)
class TierRules:
    """The tunables of the rules (built from settings by the composition root)."""

    capacities: Capacities = Capacities()
    core_after_mentions: int = 3
    mid_fallback_after: timedelta = timedelta(days=30)
    mid_fallback_max_weight: float = 0.4
    temp_stale_after: timedelta = timedelta(days=7)
    temp_stale_max_weight: float = 0.3
    explicit_feedback: float = 0.5
    implicit_feedback: float = 0.2
    durable_predicates: frozenset[str] = DURABLE_PREDICATES
    # the decay the weights are brought to now with (the deployment's, from the composition root)
    weights: WeightPolicy = field(default_factory=WeightPolicy)


# ----- weights as of now -------------------------------------------------------------------


def current_weight(m: TierMemory, weights: WeightPolicy, now: datetime) -> float:
    """The memory's final weight decayed from its last decay to now (its stored weight when its parts
    were not read)."""
    if m.parts is None:
        return m.weight
    parts = Parts(passive=m.parts.passive, active=m.parts.active, preset=m.parts.preset)
    since = m.decayed_at or m.created_at
    return final_weight(decayed(parts, m.memory_type, elapsed_ms(since, now), weights), weights)


def decayed_to(memories: Iterable[TierMemory], weights: WeightPolicy, now: datetime) -> list[TierMemory]:
    """The memories with their weights as of now, what every rule below compares."""
    return [replace(m, weight=current_weight(m, weights, now)) for m in memories]


# ----- ordering ---------------------------------------------------------------------------


def last_mentioned(m: TierMemory) -> datetime:
    return m.last_mentioned_at or m.created_at


def quiet_since(m: TierMemory) -> datetime:
    """Where the stale and fade clocks start: the latest of the last mention, the last recall and the move into its
    tier (a memory the user just engaged with, unlocked, or that just fell back to temp is not judged on the time
    before; one recall just returned is in use: "Yesterday I ran a 10K" answered "What did I do last week?" and the
    sweep minutes later deleted it as stale)."""
    return max(t for t in (last_mentioned(m), m.tier_since, m.last_recalled_at) if t is not None)


def lasting(m: TierMemory) -> bool:
    """The user's lasting knowledge, which no sweep calls stale: a live triple of a durable predicate (the rows read
    it), or a routine or how-to of theirs not said as temporary."""
    return m.durable or (m.memory_type in LASTING_TYPES and m.preset_kind is PresetKind.DEFAULT)


def held(m: TierMemory) -> bool:
    """History or held for review: never moved or removed by the system."""
    return m.superseded or m.in_open_conflict


def usefulness(m: TierMemory) -> tuple[float, datetime, datetime, str]:
    """Sort key, least useful first: lowest weight, then longest unmentioned, then oldest, then id."""
    return (m.weight, last_mentioned(m), m.created_at, m.id)


def evictable(m: TierMemory) -> bool:
    return not m.locked and m.tier is not Tier.CORE and not held(m)


def least_useful_first(memories: Iterable[TierMemory]) -> list[TierMemory]:
    """The memories the system may move or remove, least useful first (locked, core and held never)."""
    return sorted((m for m in memories if evictable(m)), key=usefulness)


# ----- capacity ---------------------------------------------------------------------------


def enforce_capacity(memories: Iterable[TierMemory], capacities: Capacities,
                     keep: frozenset[str] = frozenset()) -> list[TierChange]:
    """Bring mid and temp back within capacity: mid's least useful fall back to temp, then temp's
    least useful are evicted (a memory just demoted may be among them). Core is never touched:
    promotions into a full core are refused before they happen. Weights as of now (`decayed_to`);
    superseded history is not counted. The memories in `keep` count and give way last (the one a user
    just remembered straight into its tier gives way to none; of a batch that promoted more than the tier
    holds, the least useful of those go too: the capacity is the rule, keep a preference)."""
    state = [m for m in memories if not m.superseded]
    changes: list[TierChange] = []
    mid = [m for m in state if m.tier is Tier.MID]
    overflow = len(mid) - capacities.mid
    demoted: set[str] = set()
    if overflow > 0:
        for m in _giving_way(mid, keep)[:overflow]:
            changes.append(TierChange(m.id, Tier.MID, Tier.TEMP, Reason.MID_FULL))
            demoted.add(m.id)
    temp = [replace(m, tier=Tier.TEMP) if m.id in demoted else m for m in state
            if m.tier is Tier.TEMP or m.id in demoted]
    overflow = len(temp) - capacities.temp
    if overflow > 0:  # a safety memory counts but is never evicted (a full temp evicted a bee-sting allergy)
        for m in _giving_way([m for m in temp if m.preset_kind is not PresetKind.SAFETY], keep)[:overflow]:
            changes.append(TierChange(m.id, Tier.TEMP, None, Reason.TEMP_FULL))
    return changes


def _giving_way(tier: Sequence[TierMemory], keep: frozenset[str]) -> list[TierMemory]:
    """The order a full tier gives way in: the least useful first, those in keep after all the others."""
    return (least_useful_first(m for m in tier if m.id not in keep)
            + least_useful_first(m for m in tier if m.id in keep))


def core_has_room(core_count: int, capacities: Capacities) -> bool:
    return core_count < capacities.core


# ----- time -------------------------------------------------------------------------------


def is_stale(m: TierMemory, rules: TierRules, now: datetime) -> bool:
    """A temp memory nobody mentioned for a long time and that never gained weight (as of now)."""
    return (
        m.tier is Tier.TEMP
        and evictable(m)
        and m.preset_kind is not PresetKind.SAFETY
        and not m.succeeds_kept
        and not lasting(m)
        and now - quiet_since(m) > rules.temp_stale_after
        and current_weight(m, rules.weights, now) < rules.temp_stale_max_weight
    )


def has_faded(m: TierMemory, rules: TierRules, now: datetime) -> bool:
    """A mid memory long unmentioned whose weight has decayed (as of now): it falls back to temp."""
    return (
        m.tier is Tier.MID
        and evictable(m)
        and now - quiet_since(m) > rules.mid_fallback_after
        and current_weight(m, rules.weights, now) < rules.mid_fallback_max_weight
    )


def sweep(memories: Sequence[TierMemory], rules: TierRules, now: datetime) -> list[TierChange]:
    """The periodic sweep: delete stale temp memories, let faded mid memories fall back to temp, then
    restore capacities. (A memory that falls back now is judged stale `temp_stale_after` after it fell back:
    its tier_since.)"""
    memories = decayed_to(memories, rules.weights, now)
    changes = [TierChange(m.id, Tier.TEMP, None, Reason.STALE) for m in memories if is_stale(m, rules, now)]
    deleted = {c.memory_id for c in changes}
    fallen = [TierChange(m.id, Tier.MID, Tier.TEMP, Reason.FADED) for m in memories if has_faded(m, rules, now)]
    changes += fallen
    moved = {c.memory_id for c in fallen}
    rest = [replace(m, tier=Tier.TEMP) if m.id in moved else m for m in memories if m.id not in deleted]
    return changes + enforce_capacity(rest, rules.capacities)


# ----- the user's reaction (filter 2) ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReactionOutcome:
    """What a reaction does: a move (to_tier None = delete), an active-weight delta, or a refusal."""

    change: TierChange | None
    active_delta: float
    refused: str | None = None


def react(m: TierMemory, signal: Signal, rules: TierRules) -> ReactionOutcome:
    """ENGAGED promotes temp to mid (+explicit active); IGNORED changes nothing; DISMISSED deletes a
    temp memory and sends a mid one back to temp (-explicit active). A locked core memory is changed
    only by unlock or forget: ENGAGED / IGNORED leave it, DISMISSED is refused; so is every signal on superseded
    history (IGNORED too: it answered success while ENGAGED and DISMISSED were refused, when no signal applies to
    history), and dismissing a temp memory held for review."""
    if m.superseded:
        return ReactionOutcome(None, 0.0, refused="it is superseded history (validTo set), kept outside the tiers: a "
                                                 "reaction changes nothing of it (forget removes it)")
    if m.locked or m.tier is Tier.CORE:
        if signal is Signal.DISMISSED:
            return ReactionOutcome(None, 0.0, refused="a locked core memory changes only by unlock or forget "
                                                     "with confirm: true")
        return ReactionOutcome(None, 0.0)
    if signal is Signal.DISMISSED and m.tier is Tier.TEMP and held(m):
        return ReactionOutcome(None, 0.0, refused="a dismissal deletes a temp memory, but this one is held in an "
                                                 "open conflict; resolve it first (forget removes it)")
    if signal is Signal.IGNORED:
        return ReactionOutcome(None, 0.0)
    if signal is Signal.ENGAGED:
        change = TierChange(m.id, Tier.TEMP, Tier.MID, Reason.ENGAGED) if m.tier is Tier.TEMP else None
        return ReactionOutcome(change, rules.explicit_feedback)
    if m.tier is Tier.TEMP:
        return ReactionOutcome(TierChange(m.id, Tier.TEMP, None, Reason.DISMISSED), 0.0)
    return ReactionOutcome(TierChange(m.id, Tier.MID, Tier.TEMP, Reason.DISMISSED), -rules.explicit_feedback)


# ----- ingest: repetition, emphasis, topic ------------------------------------------------


def on_mention(tier: Tier, mention_count: int, *, emphasis: bool, rules: TierRules) -> list[tuple[Tier, Tier, Reason]]:
    """The promotions when a memory is mentioned again (mention_count includes this mention) or said
    with emphasis: temp -> mid on repetition, mid -> core at `core_after_mentions`, -> core on emphasis.
    Steps in order; core capacity is the caller's check."""
    steps: list[tuple[Tier, Tier, Reason]] = []
    if tier is Tier.CORE:
        return steps
    if emphasis:
        return [(tier, Tier.CORE, Reason.EMPHASIS)]
    if tier is Tier.TEMP and mention_count >= 2:
        steps.append((Tier.TEMP, Tier.MID, Reason.REPEATED))
        tier = Tier.MID
    if tier is Tier.MID and mention_count >= rules.core_after_mentions:
        steps.append((Tier.MID, Tier.CORE, Reason.MENTIONED_OFTEN))
    return steps


def on_new_memory(*, emphasis: bool) -> list[tuple[Tier, Tier, Reason]]:
    """A new memory lands in temp; said with emphasis it goes on to core."""
    return [(Tier.TEMP, Tier.CORE, Reason.EMPHASIS)] if emphasis else []


def on_topic(tier: Tier) -> tuple[Tier, Tier, Reason] | None:
    """A later user turn picks a temp memory's topic up: implicit engagement, temp -> mid."""
    return (Tier.TEMP, Tier.MID, Reason.TOPIC_PICKED_UP) if tier is Tier.TEMP else None
