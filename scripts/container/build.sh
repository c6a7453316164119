#!/usr/bin/env bash
# Builds the platdesk image from the Dockerfile with podman (Debian's package), as CI does.
#   scripts/container/build.sh [TAG]      (default platdesk:local)
# Constraints of the machines this project is built on, kept here rather than in README:
#   - base images: Docker Hub may be unreachable; base-image.sh makes local stand-ins then.
#   - --isolation chroot: the build needs no OCI runtime (crun fails on hybrid cgroups here).
#   - --format docker: keeps HEALTHCHECK (the OCI format drops it).
#   - npm inside the build must trust the same CA bundle as the host's npm: the host's cafile is
#     mounted read-only and passed as the build argument npm_config_cafile (not kept in the image).
# Prints the image's size and the build time.
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:-platdesk:local}

bash scripts/container/base-image.sh

args=(--isolation chroot --format docker --tag "$tag")
cafile=$(npm config get cafile 2>/dev/null || true)
if [ -n "$cafile" ] && [ "$cafile" != "null" ] && [ "$cafile" != "undefined" ] && [ -r "$cafile" ]; then
  args+=(--volume "$cafile:/run/host-npm-ca.crt:ro" --build-arg npm_config_cafile=/run/host-npm-ca.crt)
fi
start=$(date +%s.%N)
podman build --quiet "${args[@]}" . >/dev/null
end=$(date +%s.%N)
size=$(podman image inspect --format '{{.Size}}' "$tag")
awk -v s="$size" -v a="$start" -v b="$end" -v t="$tag" \
  'BEGIN { printf "image %s: %.0f MB uncompressed, built in %.1f s\n", t, s / 1e6, b - a }'
