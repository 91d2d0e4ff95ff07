// Data step data/history_unlocked: history is outside the tiers and core is locked (DESIGN.md "Tiers"), so a memory
// superseded while locked in core, before the user's settlement unlocked its loser (conflict/settle_pair), leaves
// core as tier/unlock takes it out: mid, unlocked, its decay clock and its tier clock starting at $now. Returns how
// many memories it unlocked. $tenant null: every tenant (the step); a tenant: only its memories (its test).
MATCH (m:Memory)
WHERE m.valid_to IS NOT NULL AND m.locked AND ($tenant IS NULL OR m.tenant = $tenant)
SET m.tier = 'mid', m.locked = false, m.tier_since = $now, m.decayed_at = $now
RETURN count(m) AS unlocked
