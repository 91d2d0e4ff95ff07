#!/usr/bin/env bash
# Run the whole test suite: set up what is missing, start the local Neo4j if needed, run pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
if [ -z "${NEO4J_URI:-}" ]; then .venv/bin/bmam neo4j start; fi
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
# pytest's 5 means "no tests collected": that is a failure of the suite, not a pass.
exit $status
