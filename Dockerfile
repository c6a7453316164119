# platdesk image: multi-stage, Node 24 LTS (slim), no compiler, non-root.
# Build with any OCI builder (`docker build .`); CI builds and smoke-tests it with podman:
# scripts/container/build.sh, test/image.test.ts.
#
# Install scripts are off (`--ignore-scripts`), so nothing compiles and nothing downloads:
# better-sqlite3 ships prebuilt Node-API binaries in its registry package (prebuilds/, loaded by
# lib/binding.js), and the `node` devDependency (a whole Node binary, for npm scripts on machines
# with an older system Node) is never fetched: the image has its own Node.

FROM docker.io/library/node:24-bookworm-slim AS build
WORKDIR /app
# Set only where the registry is reached through a private CA (see scripts/container/build.sh).
ARG npm_config_cafile
ARG npm_config_update_notifier=false
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
# The chart font: the build copies it to dist/fonts, beside dist/chart-worker.js (the charts' worker).
COPY assets/fonts ./assets/fonts
# esbuild: dist/app.js (the app, with source maps, pg and ioredis in chunks loaded only when
# configured) behind dist/main.js (checks the Node version), and dist/chart-worker.js (Vega and
# resvg, loaded only in the charts' renderer process). The bundle needs one package at run
# time, better-sqlite3 (a native addon), and of it only its JavaScript and this platform's binary,
# and @resvg/resvg-js (the charts' rasteriser, a native addon: npm installed this platform's only).
# The compile cache (dist/.cache) is filled here, by the Node that runs the app and at the paths it
# runs from, so a new container's first start is as fast as its next (scripts/warm-compile-cache.mjs).
RUN npm run build \
 && node scripts/warm-compile-cache.mjs \
 && mkdir -p /runtime/node_modules \
 && cp -r node_modules/better-sqlite3 node_modules/@resvg /runtime/node_modules/ \
 && cd /runtime/node_modules/better-sqlite3 \
 && rm -rf deps src build \
 && find prebuilds -name '*.node' ! -name "linux-$(node -p process.arch).node" -delete

FROM docker.io/library/node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_PATH=/data/platdesk.sqlite
WORKDIR /app
COPY --from=build --chown=node:node /runtime/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json manifest.yml ./
# ./data (the default DATABASE_PATH's directory, relative to /app) is the volume too, so a .env
# passed with --env-file that sets DATABASE_PATH=./data/... still keeps the database on /data.
RUN mkdir -p /data && chown node:node /data && ln -s /data /app/data
VOLUME ["/data"]
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node runs as PID 1: it gets SIGTERM directly and platdesk handles it (graceful stop). Use
# `docker run --init` (or compose's init: true) to also reap stray child processes.
STOPSIGNAL SIGTERM
# Node's flags as npm start gives them (package.json "start"; test/start.test.ts keeps the two equal):
# a young generation of 1 MB semi-spaces instead of up to 16 MB keeps an idle replica ~5 MB smaller;
# a 256 MB old generation keeps a busy one's RSS near 190 MB instead of 300+ (docs/operations.md).
CMD ["node", "--max-semi-space-size=1", "--max-old-space-size=256", "dist/main.js"]
