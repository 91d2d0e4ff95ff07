// The state of every index bmam relies on (ONLINE, POPULATING, FAILED).
SHOW INDEXES YIELD name, type, state, populationPercent
RETURN name, type, state, populationPercent ORDER BY name
