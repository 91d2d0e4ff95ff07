#!/usr/bin/env bash
# Run the service: set up what is missing, start the local Neo4j (unless NEO4J_URI), serve GraphQL.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec .venv/bin/bmam serve "$@"
