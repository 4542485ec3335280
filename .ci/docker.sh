#!/usr/bin/env bash
# The docker runtime without any image registry: a Docker daemon from Debian's packages and a Python base
# image built from Debian's own packages (debootstrap), for CI and for a user whose machine reaches no registry.
#   eval "$(bash .ci/docker.sh start)"   # installs what is missing, starts dockerd unless one answers at
#                                        # DOCKER_HOST, imports the base image if absent; prints the exports
#   bash .ci/docker.sh stop              # stops the dockerd this script started (nothing else)
#   bash .ci/docker.sh env               # prints the exports only
# Needs root (dockerd, debootstrap). Settings (environment): DOCKER_HOST (default unix:///run/cw-docker.sock),
# CODEWALK_CI_DOCKER_HOME (daemon state, default /var/lib/codewalk-docker), CODEWALK_DOCKER_BASE (the base image's
# tag, default codewalk-base:bookworm), DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Progress goes to stderr; stdout holds only the export lines.
set -euo pipefail
SOCK="${DOCKER_HOST:-unix:///run/cw-docker.sock}"
STATE="${CODEWALK_CI_DOCKER_HOME:-/var/lib/codewalk-docker}"
BASE="${CODEWALK_DOCKER_BASE:-codewalk-base:bookworm}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
PIDFILE="$STATE/dockerd.pid"
say() { echo "docker.sh: $*" >&2; }
exports() {
  echo "export DOCKER_HOST=$SOCK"
  echo "export CODEWALK_DOCKER_BASE=$BASE"
  # Image builds run on the daemon's default network; a daemon without a bridge (the one started below) has
  # none worth the name, so builds get the host's, by this explicit setting (docs/safety.md).
  DOCKER_HOST="$SOCK" docker network inspect bridge >/dev/null 2>&1 || echo "export CODEWALK_BUILD_NETWORK=host"
}
answers() { DOCKER_HOST="$SOCK" docker info >/dev/null 2>&1; }

start() {
  local need=()
  command -v dockerd >/dev/null || need+=(docker.io)
  command -v debootstrap >/dev/null || need+=(debootstrap)
  command -v docker-registry >/dev/null || need+=(docker-registry)  # the pull test's own registry
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
  fi
  if answers; then
    say "a daemon answers at $SOCK: using it"
  else
    case "$SOCK" in unix://*) ;; *) say "DOCKER_HOST=$SOCK is not a unix socket this script can start"; exit 1;; esac
    mkdir -p "$STATE/data" "$STATE/exec"
    # No iptables and no bridge on these machines: containers get no network unless run with the host's,
    # which only image builds use (CODEWALK_BUILD_NETWORK=host, exported below). overlay2 starts a container in well under a second (vfs copies the image).
    say "starting dockerd at $SOCK (state in $STATE, log in $STATE/dockerd.log)"
    nohup dockerd --iptables=false --bridge=none --storage-driver=overlay2 --data-root "$STATE/data" \
      --exec-root "$STATE/exec" -H "$SOCK" --pidfile "$PIDFILE" >"$STATE/dockerd.log" 2>&1 &
    for _ in $(seq 60); do answers && break; sleep 1; done
    if ! answers; then
      say "dockerd did not answer within 60 s; its log ends:"
      tail -n 30 "$STATE/dockerd.log" >&2
      exit 1
    fi
  fi
  if DOCKER_HOST="$SOCK" docker image inspect "$BASE" >/dev/null 2>&1; then
    say "base image $BASE is here"
  else
    # Python 3.11, venv, pip, git and patch from Debian bookworm (about 3 minutes, 380 MB); no registry involved.
    local root
    root="$(mktemp -d /var/tmp/codewalk-base.XXXXXX)"
    say "building the base image $BASE with debootstrap in $root"
    debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,git,ca-certificates,patch \
      bookworm "$root" "$MIRROR" >&2
    tar -C "$root" --exclude=./proc --exclude=./sys --exclude=./dev -c . \
      | DOCKER_HOST="$SOCK" docker import --change 'LABEL codewalk=base' --change 'CMD ["/bin/bash"]' - "$BASE" >&2
    rm -rf "$root"
  fi
  exports
}

stop() {
  if [ -f "$PIDFILE" ]; then
    local pid
    pid="$(cat "$PIDFILE")"
    say "stopping dockerd ($pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) exports ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
