// Bench only (bench/scale_load.py): which of these memory ids of one tenant are loaded already (a batch
// commits whole, so its first id tells whether to skip it when a run resumes). Never run by the service.
MATCH (m:Memory)
WHERE m.id IN $ids AND m.tenant = $tenant
RETURN m.id AS id
