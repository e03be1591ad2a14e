#!/usr/bin/env bash
# Make sure a Docker engine answers on the default socket (/var/run/docker.sock).
# Idempotent: exits 0 at once when `docker info` already works.
# Otherwise (as root, or with passwordless sudo): installs docker.io from Debian if dockerd is
# missing, starts dockerd in the background (log: $DOCKERD_LOG, default /tmp/dockerd.log) and waits
# up to $DOCKER_WAIT_SECONDS (default 60) for `docker info`.
#
# Start attempts, in order, each tried only if the previous one made dockerd exit:
#   1. defaults (overlay2 storage, bridge network with iptables)     <- what works on the CI machine
#   2. --storage-driver=vfs                                          (overlay unusable, e.g. nested)
#   3. --storage-driver=vfs --iptables=false --ip-masq=false         (no netfilter in a sandbox;
#      the docker0 bridge and the userland proxy stay, so -p / testcontainers port mapping works)
# DOCKERD_EXTRA_ARGS (space separated) is appended to every attempt.
# Works non-interactively (CI=true, no stdin). Exit non-zero with a message on failure.
set -uo pipefail

LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"
WAIT="${DOCKER_WAIT_SECONDS:-60}"
read -r -a EXTRA <<<"${DOCKERD_EXTRA_ARGS:-}"
START=$SECONDS

say() { echo "ensure-docker: $*"; }
die() { echo "ensure-docker: ERROR: $*" >&2; exit 1; }
docker_ok() { timeout 10 docker info >/dev/null 2>&1; }
elapsed() { echo "$((SECONDS - START))s"; }

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); fi
fi

if command -v docker >/dev/null && docker_ok; then
  say "docker engine already running ($(docker version --format '{{.Server.Version}}' 2>/dev/null))"
  exit 0
fi
if [[ -n "${DOCKER_HOST:-}" && "$DOCKER_HOST" != unix:///var/run/docker.sock ]]; then
  die "DOCKER_HOST=$DOCKER_HOST does not answer; this script only manages the local daemon on /var/run/docker.sock (unset DOCKER_HOST)"
fi
if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
  die "no Docker engine answers and this is not root (no passwordless sudo): cannot start dockerd"
fi

# ---- install --------------------------------------------------------------------------------
if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null; then
  say "dockerd/docker not found: installing docker.io with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq </dev/null >/tmp/ensure-docker-apt.log 2>&1 \
    || { tail -20 /tmp/ensure-docker-apt.log >&2; die "apt-get update failed (log: /tmp/ensure-docker-apt.log)"; }
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends docker.io </dev/null >>/tmp/ensure-docker-apt.log 2>&1 \
    || { tail -20 /tmp/ensure-docker-apt.log >&2; die "apt-get install docker.io failed (log: /tmp/ensure-docker-apt.log)"; }
  hash -r
  command -v dockerd >/dev/null || die "docker.io installed but dockerd is still not on PATH"
  say "installed $(dockerd --version)"
fi

alive() { # pid alive and not a zombie (a dead child of ours stays in /proc until reaped)
  local st _
  [[ -r /proc/$1/stat ]] || return 1
  read -r _ _ st _ </proc/"$1"/stat 2>/dev/null || return 1
  [[ $st != Z ]]
}
wait_for_docker() { # $1 = pid of the dockerd we started ("" = not ours); returns 0 ok, 1 died, 2 timeout
  local pid=$1 deadline=$((SECONDS + WAIT))
  while (( SECONDS < deadline )); do
    docker_ok && return 0
    if [[ -n "$pid" ]] && ! alive "$pid"; then return 1; fi
    sleep 0.5
  done
  docker_ok && return 0
  return 2
}

# ---- a dockerd that is already starting? ----------------------------------------------------
if pid=$(pgrep -x dockerd | head -n1) && [[ -n "$pid" ]]; then
  say "dockerd (pid $pid) is running but not answering yet; waiting up to ${WAIT}s"
  wait_for_docker "$pid"; rc=$?
  if [[ $rc -eq 0 ]]; then say "docker engine ready after $(elapsed)"; exit 0; fi
  [[ $rc -eq 2 ]] && die "dockerd (pid $pid, not started by this script) does not answer after ${WAIT}s; see its log"
  say "that dockerd exited; starting a new one"
fi
# A pid file left by a dead dockerd makes a new one refuse to start.
for f in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
  if [[ -f $f ]] && ! alive "$(cat "$f" 2>/dev/null || echo none)"; then "${SUDO[@]}" rm -f "$f"; fi
done

# ---- start ----------------------------------------------------------------------------------
ATTEMPTS=(
  ""
  "--storage-driver=vfs"
  "--storage-driver=vfs --iptables=false --ip-masq=false"
)
for args in "${ATTEMPTS[@]}"; do
  read -r -a argv <<<"$args"
  say "starting: dockerd ${args:-(defaults)} ${EXTRA[*]:-} (log: $LOG)"
  # the log does not exist before the first attempt (a redirect from a missing file would print an error)
  logstart=$(( $(if [[ -f "$LOG" ]]; then wc -l <"$LOG"; else echo 0; fi) + 1 ))
  echo "==== $(date -u +%FT%TZ) ensure-docker: dockerd ${args} ${EXTRA[*]:-}" >>"$LOG"
  # setsid + nohup: the daemon outlives this shell and its CI job; no stdin.
  "${SUDO[@]}" setsid nohup dockerd "${argv[@]}" "${EXTRA[@]}" </dev/null >>"$LOG" 2>&1 &
  pid=$!
  wait_for_docker "$pid"; rc=$?
  if [[ $rc -eq 0 ]]; then
    info=$(docker info --format '{{.ServerVersion}} storage={{.Driver}} cgroup={{.CgroupVersion}}' 2>/dev/null)
    say "docker engine ready after $(elapsed): $info"
    exit 0
  fi
  if [[ $rc -eq 2 ]]; then
    tail -25 "$LOG" >&2
    die "dockerd (pid $pid) started but 'docker info' did not answer within ${WAIT}s (log: $LOG)"
  fi
  wait "$pid" 2>/dev/null
  say "dockerd exited during startup with '${args:-defaults}'; its errors:"
  tail -n +"$logstart" "$LOG" | grep -iE 'level=(error|fatal)|failed|error' | tail -6 | sed 's/^/    /' >&2
  sleep 1   # let it release /var/run/docker.sock and its pid file
  for f in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
    if [[ -f $f ]] && ! alive "$(cat "$f" 2>/dev/null || echo none)"; then "${SUDO[@]}" rm -f "$f"; fi
  done
done
tail -40 "$LOG" >&2
die "could not start dockerd with any of: defaults | --storage-driver=vfs | vfs + --iptables=false (log: $LOG)"
