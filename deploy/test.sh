#!/usr/bin/env bash
# Run the whole test suite: set up what is missing, start the local Neo4j if needed, run pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

# The memory inspector's browser tests (tests/test_ui_e2e.py): Debian's chromium, CJK fonts for the
# screenshots, and playwright-core from npm (tests/ui_driver, pinned by its package-lock.json).
# (The font check reads fc-list whole: `grep -q` would stop at the first match, fc-list die of SIGPIPE, and
# pipefail call the fonts missing, an apt-get on most starts.)
if [ "$(id -u)" = 0 ] && { [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -c "Noto Sans CJK" >/dev/null; }; then
  apt_install chromium fonts-noto-cjk
fi
if [ "$(id -u)" = 0 ] && ! command -v npm >/dev/null; then
  apt_install nodejs npm
fi
if command -v npm >/dev/null && [ ! -d tests/ui_driver/node_modules/playwright-core ]; then
  say "installing the UI test driver (playwright-core) from npm"
  (cd tests/ui_driver && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

if [ -z "${NEO4J_URI:-}" ]; then .venv/bin/bmam neo4j start; fi
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
# pytest's 5 means "no tests collected": that is a failure of the suite, not a pass.
exit $status
