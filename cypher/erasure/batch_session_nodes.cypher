// forgetSession, last (once its turns are gone): erase the session's other nodes (erasure/session_nodes: its Session
// node and its anti-repetition state) with every relationship touching them, and report the labels and relationship
// types removed. Last, so that an erasure stopped midway still finds the session when run again, and finishes it.
{{> erasure/session_nodes}}
WITH n LIMIT $batch
{{> erasure/delete_nodes}}
