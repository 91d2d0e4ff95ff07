#!/usr/bin/env bash
# Run the whole test suite: set up what is missing, start the local Neo4j if needed, run pytest.
# Without arguments (CI): the tests marked `ops` (servers of their own started, killed and restarted: mostly
# waiting) run in a second pytest beside the rest, whose output follows; with arguments, one pytest "$@".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
if [ -z "${NEO4J_URI:-}" ]; then .venv/bin/bmam neo4j start; fi
set +e
if [ $# -gt 0 ]; then
  .venv/bin/python -m pytest "$@"
  status=$?
else
  side_log="$(mktemp)"
  .venv/bin/python -m pytest -m ops -p no:cacheprovider > "$side_log" 2>&1 &
  side=$!
  .venv/bin/python -m pytest -m "not ops"
  status=$?
  wait "$side"
  side_status=$?
  echo "----- beside it, the tests marked ops (pytest -m ops) -----"
  cat "$side_log"
  rm -f "$side_log"
  if [ "$status" -eq 0 ]; then status=$side_status; fi
fi
set -e
# pytest's 5 means "no tests collected": that is a failure of the suite, not a pass.
exit $status
