// The shared event log (graph/events.py): memory events carried between the processes serving one store.
// One EventSequence node numbers them; the unique name makes its MERGE safe under concurrent appends, and
// the seq index makes "the events after seq s" a seek, the logged_at one the prune of old events.
CREATE CONSTRAINT event_sequence_name IF NOT EXISTS FOR (c:EventSequence) REQUIRE c.name IS UNIQUE;
CREATE INDEX memory_event_seq IF NOT EXISTS FOR (e:MemoryEvent) ON (e.seq);
CREATE INDEX memory_event_logged_at IF NOT EXISTS FOR (e:MemoryEvent) ON (e.logged_at)
