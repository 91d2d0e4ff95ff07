// Recall's usage update when weights decay (issue 5): first weights/decay brings the recalled memories'
// weights to $now (locking them in id order), then recall/touch records the recall on them, in one
// statement (one round trip instead of two). Parameters: those of both ($with_before false: nothing
// reads the before-images here). Returns what recall/touch returns.
CALL () {
{{> weights/decay}}
}
WITH count(*) AS decayed
{{> recall/touch}}
