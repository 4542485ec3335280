#!/usr/bin/env bash
# Start/stop a real Neo4j 5.26 Community for CI on 127.0.0.1:7687 (Bolt) / 7474 (HTTP, Browser),
# without a password (--no-auth: a throwaway server of the CI machine, which the suite and its Browser tests
# reach as they are; `cw db start` asks one by default), without Docker: neo4j-launcher/ (neo4j-harness)
# built with Maven, run with java.
#   .ci/neo4j.sh start    # builds the launcher if needed, waits up to 180 s, exit 1 + log tail on failure
#   .ci/neo4j.sh stop     # SIGTERM (then SIGKILL after 30 s), removes the pid/state files
# Needs Java 17+, Maven and the codewalk package's Python dependencies; state lives in the gitignored
# neo4j-launcher/target/ci-home/ (neo4j.log there is the server's output).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOME_DIR="${CODEWALK_CI_NEO4J_HOME:-$ROOT/neo4j-launcher/target/ci-home}"
PY="${PYTHON:-python3}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export CODEWALK_NEO4J_BACKEND=java
export CODEWALK_NEO4J_HOME="$HOME_DIR"  # where `cw db` keeps this server

case "${1:-}" in
  start)
    mkdir -p "$HOME_DIR"
    # dbserver prints the last 30 log lines itself when the server dies or is not ready in time.
    if ! "$PY" -m codewalk db start --no-auth --timeout "${NEO4J_START_TIMEOUT:-180}"; then
      echo "neo4j failed to start; full log: $HOME_DIR/neo4j.log" >&2
      exit 1
    fi
    ;;
  stop)
    "$PY" -m codewalk db stop || true
    ;;
  status)
    "$PY" -m codewalk db status
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
