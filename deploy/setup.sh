#!/usr/bin/env bash
# Installs what is missing, once: the venv with bmam and its dependencies, Java 17, Maven, and the
# Neo4j 5.26 jars from Maven Central. Sourced by deploy/serve.sh and deploy/test.sh; safe to re-run. What
# only the tests need (the browser tests' chromium, fonts and npm driver) is deploy/test.sh's, not a server's.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '\033[1m[bmam setup]\033[0m %s\n' "$*" >&2; }

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing $* with apt-get"
    if [ -z "${BMAM_APT_UPDATED:-}" ]; then apt-get update -qq >/dev/null; export BMAM_APT_UPDATED=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    say "please install: $*"; exit 1
  fi
}

# Python 3.11 (the project pins it).
PYTHON="${BMAM_PYTHON:-}"
if [ -z "$PYTHON" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      PYTHON="$(command -v "$candidate")"; break
    fi
  done
fi
[ -n "$PYTHON" ] || { say "Python 3.11 is required"; exit 1; }

# The venv, reinstalled only when pyproject.toml or the pinned versions (deploy/constraints.txt) changed.
STAMP=".venv/.bmam-installed"
WANT="$(cat pyproject.toml deploy/constraints.txt | sha256sum | cut -c1-16)"
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  "$PYTHON" -m venv .venv
fi
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  say "installing Python dependencies (first time: a few minutes)"
  # torch and its CUDA wheels take ~6.5 GB installed; say so up front rather than fail half-way.
  free_kb="$(df -Pk . | awk 'NR==2 {print $4}')"
  if [ "${free_kb:-0}" -lt 8000000 ]; then
    say "warning: only $((free_kb / 1024)) MB free here; the Python dependencies need about 7 GB"
  fi
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q --no-cache-dir -c deploy/constraints.txt -e '.[dev]'
  echo "$WANT" > "$STAMP"
fi

# Neo4j runs locally unless NEO4J_URI points at a server of the user's.
if [ -z "${NEO4J_URI:-}" ]; then
  command -v java >/dev/null || apt_install openjdk-17-jre-headless
  if ! ls deploy/neo4j/lib/neo4j-5.26.*.jar >/dev/null 2>&1; then
    command -v mvn >/dev/null || apt_install maven
    say "fetching Neo4j 5.26 and Neo4j Browser from Maven Central"
    mvn -q -B -f deploy/pom.xml dependency:copy-dependencies
  fi
fi
