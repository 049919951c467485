# syntax=docker/dockerfile:1
# svc relay: build stage compiles TypeScript and the dashboard; the runtime stage holds dist/, web/dist/ and production
# dependencies only, runs as the unprivileged `node` user and keeps everything in the /data volume.
ARG NODE_VERSION=20.20

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# Toolchain only for native modules (better-sqlite3, bcrypt) when no prebuilt binary fits the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The CLI workspace's manifest, so `npm ci` finds the workspace the lock file names (its code is in src/cli).
COPY packages/cli/package.json ./packages/cli/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY web ./web
# The relay (dist/) and the dashboard (web/dist, Vite); then only production dependencies remain.
RUN npm run build \
 && npm run build:web \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    TZ=UTC \
    SVC_DATA_DIR=/data \
    SVC_HOST=0.0.0.0 \
    SVC_PORT=8080 \
    SVC_IN_CONTAINER=1
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/bin/healthcheck.js"]
# `docker run IMAGE` starts the relay; `docker run IMAGE admin init --email …` runs any other svc command.
ENTRYPOINT ["node", "/app/bin/svc.js"]
CMD ["relay"]
