// When the Neo4j server's JVM started (epoch ms): a restart empties the plan cache, so bmam serve warms it again
// when this changes (bmam/usecases/warm_up.py RestartWatch). Needs the JMX procedure (an admin's on a secured
// server: bmam then does without the watch).
CALL dbms.queryJmx('java.lang:type=Runtime') YIELD attributes
RETURN attributes.StartTime.value AS started
