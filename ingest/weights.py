"""Weight formulas (DESIGN.md "Weights"), pure: the executable reference cypher/weights/* mirrors.

final = 0.6 * passive + 0.3 * active + 0.1 * preset, every part and the result clamped to [0, 1].

- passive: +0.1 per recall; loses 5 % a week, compounded continuously over the elapsed time:
  passive(t) = passive(t0) * 0.95 ** (elapsed_ms / WEEK_MS). Decay is multiplicative, so applying it
  at t1 and again at t2 equals applying it once at t2 (path independent): the store keeps
  `decayed_at`, and any step may bring a memory up to `now` (maintenance, feedback, conflicts) without
  changing the result. Elapsed time is counted in whole milliseconds, as Neo4j's `epochMillis` does.
  A locked (core) memory does not decay at all (cypher/weights/decay): callers of `decayed` weigh unlocked ones.
- active: explicit feedback (LIKE / DISLIKE) +/-0.5, implicit feedback (DWELL / SKIP) +/-0.2;
  conflict winner +0.2, loser -0.3.
- preset by kind: safety-critical fixed at 1.0 (never damped, never purged), temporary 0.3, default from
  settings (0.5).
- emotional memories also fade by the deployment's scenario factor, per DAY: passive and active are
  multiplied by factor ** elapsed_days (social 0.9, customer service 0.95, education 0.8). See README
  "Living memory" for why the unit is a day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from graph.model import MemoryType, PresetKind

DAY_MS = 86_400_000
WEEK_MS = 7 * DAY_MS
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
# Slack for "weight above the damping line": damping lands exactly on the line up to rounding, and a
# second rebalance must not damp it again.
DAMP_EPSILON = 1e-9


class FeedbackSignal(StrEnum):
    """What the user did with a surfaced memory: explicit (LIKE / DISLIKE) or implicit (DWELL / SKIP)."""

    LIKE = "LIKE"
    DISLIKE = "DISLIKE"
    DWELL = "DWELL"
    SKIP = "SKIP"


class Scenario(StrEnum):
    """The deployment's scenario, which sets how fast emotional memories fade."""

    SOCIAL = "social"
    CUSTOMER_SERVICE = "customer_service"
    EDUCATION = "education"


# Per-day factor by which an emotional memory's passive and active parts fade (seed "BMAM").
SCENARIO_FACTORS: dict[Scenario, float] = {
    Scenario.SOCIAL: 0.9,
    Scenario.CUSTOMER_SERVICE: 0.95,
    Scenario.EDUCATION: 0.8,
}


@dataclass(frozen=True, slots=True)
class WeightPolicy:
    """Every number of the weight formulas; built from settings by the composition root."""

    passive_share: float = 0.6
    active_share: float = 0.3
    preset_share: float = 0.1
    recall_boost: float = 0.1
    weekly_passive_decay: float = 0.05
    explicit_feedback: float = 0.5
    implicit_feedback: float = 0.2
    emotional_daily_factor: float = SCENARIO_FACTORS[Scenario.SOCIAL]
    winner_bonus: float = 0.2
    loser_penalty: float = 0.3
    preset_default: float = 0.5
    preset_safety: float = 1.0
    preset_temporary: float = 0.3

    @property
    def passive_keep_per_week(self) -> float:
        return 1.0 - self.weekly_passive_decay

    def cypher_params(self) -> dict[str, float]:
        """The parameters every statement of cypher/weights/ expects (one name per number)."""
        return {
            "passive_share": self.passive_share,
            "active_share": self.active_share,
            "preset_share": self.preset_share,
            "passive_keep": self.passive_keep_per_week,
            "emotional_factor": self.emotional_daily_factor,
            "week_ms": float(WEEK_MS),
            "day_ms": float(DAY_MS),
        }


@dataclass(frozen=True, slots=True)
class Parts:
    """The three weight parts of one memory."""

    passive: float
    active: float
    preset: float


def clamp01(x: float) -> float:
    """x held to [0, 1] (a NaN passes through unchanged)."""
    return 1.0 if x > 1.0 else 0.0 if x < 0.0 else x


def final_weight(parts: Parts, policy: WeightPolicy) -> float:
    """0.6 * passive + 0.3 * active + 0.1 * preset, clamped (same order of operations as the Cypher)."""
    total = (
        policy.passive_share * clamp01(parts.passive)
        + policy.active_share * clamp01(parts.active)
        + policy.preset_share * clamp01(parts.preset)
    )
    return clamp01(total)


def preset_for(kind: PresetKind, policy: WeightPolicy) -> float:
    if kind is PresetKind.SAFETY:
        return policy.preset_safety
    if kind is PresetKind.TEMPORARY:
        return policy.preset_temporary
    return policy.preset_default


def epoch_ms(t: datetime) -> int:
    """Milliseconds since the epoch, sub-millisecond part dropped (as Neo4j's `epochMillis`)."""
    return (t - _EPOCH) // _MS


def elapsed_ms(since: datetime, now: datetime) -> int:
    """Whole milliseconds from `since` to `now`, never negative (a clock set back decays nothing)."""
    return max(0, epoch_ms(now) - epoch_ms(since))


def decayed(parts: Parts, memory_type: MemoryType, elapsed: int, policy: WeightPolicy) -> Parts:
    """The parts after `elapsed` milliseconds: passive * keep ** weeks, and for emotional memories
    passive and active also * factor ** days. The preset never decays."""
    if elapsed <= 0:
        return parts
    weeks = elapsed / float(WEEK_MS)
    days = elapsed / float(DAY_MS)
    emotional = policy.emotional_daily_factor**days if memory_type is MemoryType.EMOTIONAL else 1.0
    passive = clamp01(parts.passive * policy.passive_keep_per_week**weeks * emotional)
    active = clamp01(parts.active * emotional) if memory_type is MemoryType.EMOTIONAL else parts.active
    return Parts(passive=passive, active=active, preset=parts.preset)


def feedback_delta(signal: FeedbackSignal, policy: WeightPolicy) -> float:
    return {
        FeedbackSignal.LIKE: policy.explicit_feedback,
        FeedbackSignal.DISLIKE: -policy.explicit_feedback,
        FeedbackSignal.DWELL: policy.implicit_feedback,
        FeedbackSignal.SKIP: -policy.implicit_feedback,
    }[signal]


def with_active(parts: Parts, delta: float) -> Parts:
    """active + delta, clamped to [0, 1]."""
    return Parts(passive=parts.passive, active=clamp01(parts.active + delta), preset=parts.preset)


def recalled(parts: Parts, policy: WeightPolicy) -> Parts:
    """passive + 0.1 for one recall, clamped."""
    return Parts(passive=clamp01(parts.passive + policy.recall_boost), active=parts.active, preset=parts.preset)


# ----- maintenance: rebalance ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RebalancePolicy:
    """Weekly rebalance (seed "BMAM" 5.2).

    damp: a memory whose weight is above `damp_above` (and is neither locked nor a fixed safety preset)
      loses `damp_by` of final weight: passive and active are scaled by the same factor k so that
      0.6 p' + 0.3 a' = 0.6 p + 0.3 a - damp_by, i.e. the final weight drops by exactly damp_by. As a
      weight is at most 1, the result is at most 1 - damp_by <= damp_above (0.9 with the defaults), so
      a second rebalance leaves it alone (idempotent), and the order of the damped memories is kept.
    lift: a memory is *valuable* when the user engaged with it, i.e. its active part is at least
      `lift_active_min` (a LIKE or a DWELL beyond the starting 0.5) or it was mentioned at least
      `lift_mentions_min` times, and *low-frequency* when recalled at most `lift_max_recalls` times. Such
      a memory whose weight is below `lift_below` gets its passive part raised to `lift_passive_floor`
      (as if recalled that often); raising to a floor is idempotent too.
    """

    damp_above: float = 0.9
    damp_by: float = 0.1
    lift_active_min: float = 0.7
    lift_mentions_min: int = 3
    lift_max_recalls: int = 1
    lift_below: float = 0.5
    lift_passive_floor: float = 0.5

    def cypher_params(self) -> dict[str, float | int]:
        return {
            "damp_above": self.damp_above,
            "damp_by": self.damp_by,
            "lift_active_min": self.lift_active_min,
            "lift_mentions_min": self.lift_mentions_min,
            "lift_max_recalls": self.lift_max_recalls,
            "lift_below": self.lift_below,
            "lift_passive_floor": self.lift_passive_floor,
        }


def damped(parts: Parts, preset_kind: PresetKind, locked: bool, policy: WeightPolicy,
           rebalance: RebalancePolicy) -> Parts | None:
    """The parts after damping, or None when the memory is not damped."""
    if locked or preset_kind is PresetKind.SAFETY:
        return None
    if final_weight(parts, policy) <= rebalance.damp_above + DAMP_EPSILON:
        return None
    variable = policy.passive_share * parts.passive + policy.active_share * parts.active
    if variable <= 0.0:
        return None
    k = (variable - rebalance.damp_by) / variable
    if k < 0.0:
        k = 0.0
    return Parts(passive=clamp01(parts.passive * k), active=clamp01(parts.active * k), preset=parts.preset)


def is_valuable_low_frequency(parts: Parts, *, mention_count: int, recall_count: int, locked: bool,
                              policy: WeightPolicy, rebalance: RebalancePolicy, temporary: bool = False) -> bool:
    if locked or temporary:  # a temporary preset (weather, a one-off) is not for keeping
        return False
    valuable = parts.active >= rebalance.lift_active_min or mention_count >= rebalance.lift_mentions_min
    low_frequency = recall_count <= rebalance.lift_max_recalls
    return (valuable and low_frequency and final_weight(parts, policy) < rebalance.lift_below
            and parts.passive < rebalance.lift_passive_floor)


def lifted(parts: Parts, rebalance: RebalancePolicy) -> Parts:
    return Parts(passive=max(parts.passive, rebalance.lift_passive_floor), active=parts.active, preset=parts.preset)
