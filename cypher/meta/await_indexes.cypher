// Wait (up to 60 s) until every index is online, so a fresh schema is usable at once.
CALL db.awaitIndexes(60)
