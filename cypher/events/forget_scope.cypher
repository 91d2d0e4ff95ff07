// forgetUser: drop the user's events from the shared log (by the user's scope token), so no memory id of an
// erased user outlives the erasure there. Returns how many went. An earlier erasure's own FORGOTTEN event (a count,
// no memory id, relayed to the other processes' subscribers until the log's keep time prunes it) is left: it is no
// data of the user's, and dropping it made every erasure after the first report one node removed.
MATCH (e:MemoryEvent)
WHERE e.scope = $scope AND e.kind <> 'FORGOTTEN'
DELETE e
RETURN count(*) AS forgotten
