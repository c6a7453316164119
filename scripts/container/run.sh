#!/usr/bin/env bash
# Runs a container with podman the way this project's machines need (and CI's smoke test uses):
#   scripts/container/run.sh [podman run options...] IMAGE [command...]
#   - --runtime runc: crun fails here (cgroups v1/hybrid; setrlimit not permitted);
#   - --ulimit nofile=<hard>:<hard> and nproc: podman's defaults ask for more than is permitted.
set -euo pipefail
hard=$(ulimit -Hn)
exec podman run --runtime runc --ulimit "nofile=$hard:$hard" --ulimit nproc=4096:4096 "$@"
