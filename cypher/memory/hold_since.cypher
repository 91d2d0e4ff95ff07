// A correction holds since the memory it corrects did (bmam/usecases/corrections.py): its valid_from moved back to
// $valid_from (ISO text), as the validity of what it states; created_at and last_mentioned_at stay when it was
// written. Settling then leaves the corrected memory no validity at all (conflict/settle_pair: a winner said before
// the loser), so asOf a time before the correction reads the corrected text, not the mistake.
MATCH (m:Memory {id: $id})
WHERE m.tenant = $tenant AND m.user_id = $user_id
SET m.valid_from = datetime($valid_from)
