// Bench only (bench/scale_load.py): one JMX bean's attributes (heap use of the Neo4j JVM).
CALL dbms.queryJmx($name) YIELD attributes
RETURN attributes
