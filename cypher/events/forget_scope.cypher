// forgetUser: drop the user's events from the shared log (by the user's scope token), so no memory id of an
// erased user outlives the erasure there. Returns how many went.
MATCH (e:MemoryEvent)
WHERE e.scope = $scope
DELETE e
RETURN count(*) AS forgotten
