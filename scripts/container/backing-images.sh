#!/usr/bin/env bash
# Makes local PostgreSQL and Redis images for test/deploy/kube-play.test.ts, the way base-image.sh
# makes the Dockerfile's base where Docker Hub cannot be reached: a minimal Debian bookworm root
# (mmdebstrap, from the apt mirror) with Debian's packages, imported into podman's local store.
#   scripts/container/backing-images.sh POSTGRES_TAG REDIS_TAG
# One root holds both servers (one mmdebstrap run, one layer in the store); each image is that
# root with its own entrypoint, and keeps to the part of the official image's contract that
# deploy/kubernetes' dev component (components/in-cluster-backends) uses, so the same manifests
# run on it:
#   - PostgreSQL (Debian's 15; the official image in the manifests is 17): POSTGRES_USER,
#     POSTGRES_PASSWORD, POSTGRES_DB and PGDATA at first start (initdb, password authentication
#     over TCP), `pg_isready` on PATH, uid/gid 999 owning its directories; the port is PGPORT;
#   - Redis (Debian's 7.0): arguments are redis-server's (`--save "" --appendonly no`), `redis-cli`
#     on PATH, working directory /data owned by uid 999 (the official image's redis user).
# Images already in the store are kept (delete them to make them anew). Says what it made.
set -euo pipefail
postgres_image=${1:?postgres image tag}
redis_image=${2:?redis image tag}
mib() { podman image inspect --format '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1/1e6}'; }

if podman image exists "$postgres_image" && podman image exists "$redis_image"; then
  echo "backing images: $postgres_image, $redis_image (in the local store)"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/postgres-entrypoint" <<'EOF'
#!/bin/sh
# The official image's first-start contract, in short: initdb into an empty PGDATA with
# POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB, password authentication over TCP.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  pwfile=$(mktemp)
  printf "%s" "$POSTGRES_PASSWORD" > "$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -A scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
      postgres --single -D "$PGDATA" -c listen_addresses="" postgres >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -c listen_addresses="*" "$@"
EOF
cat > "$work/redis-entrypoint" <<'EOF'
#!/bin/sh
# As the official image: arguments are redis-server's.
exec redis-server "$@"
EOF

# postgres becomes uid/gid 999 and owns its directories (the volumes podman makes copy them up).
mmdebstrap --quiet --variant=essential --include=postgresql-15,redis-server,redis-tools \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --customize-hook='chroot "$1" groupmod -g 999 postgres && chroot "$1" usermod -u 999 -g 999 postgres' \
  --customize-hook='mkdir -p "$1/data" "$1/var/run/postgresql" "$1/var/lib/postgresql"' \
  --customize-hook='chown -R 999:999 "$1/data" "$1/var/run/postgresql" "$1/var/lib/postgresql" "$1/var/log/postgresql"' \
  --customize-hook="upload $work/postgres-entrypoint /usr/local/bin/postgres-entrypoint" \
  --customize-hook="upload $work/redis-entrypoint /usr/local/bin/redis-entrypoint" \
  --customize-hook='chmod 755 "$1"/usr/local/bin/*-entrypoint' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/var/log/apt' \
  bookworm "$work/rootfs.tar" http://deb.debian.org/debian

podman import --quiet \
  --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'USER 999' --change 'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]' --change 'CMD []' \
  "$work/rootfs.tar" "$postgres_image" >/dev/null
podman import --quiet \
  --change 'USER 999' --change 'WORKDIR /data' \
  --change 'ENTRYPOINT ["/usr/local/bin/redis-entrypoint"]' --change 'CMD []' \
  "$work/rootfs.tar" "$redis_image" >/dev/null
echo "backing images: $postgres_image and $redis_image made locally from Debian's postgresql-15 and redis-server ($(mib "$postgres_image"), one layer)"
