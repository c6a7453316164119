# syntax=docker/dockerfile:1
# platdesk: multi-stage build on Node 24 LTS (slim). Nothing compiles: better-sqlite3 13 ships
# prebuilt Node-API binaries in its registry package. The build stage also installs the pinned
# `node` devDependency (used by npm scripts on machines with an older system Node); `npm prune`
# drops it, and the runtime stage runs on the image's own Node 24 with production dependencies
# only, as a non-root user.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# esbuild: dist/app.js (the app, with source maps) behind dist/main.js (checks the Node version).
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_PATH=/data/platdesk.sqlite
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
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
# dist/main.js keeps Node's compile cache in dist/.cache (owned by node) and maps stack traces to src/.
CMD ["node", "dist/main.js"]
