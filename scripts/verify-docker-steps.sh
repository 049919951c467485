#!/usr/bin/env bash
# Runs the Dockerfile's steps without Docker (this machine has no Docker engine): a clean copy of the
# sources, `npm ci`, build, prune to production dependencies, then the runtime layout (dist/,
# node_modules/, bin/, package.json only) started as `svc relay` with SVC_DATA_DIR, probed by the
# HEALTHCHECK script. Needs the npm registry. Usage: scripts/verify-docker-steps.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'kill "${relay_pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

echo "== build stage (in $work/build)"
mkdir -p "$work/build"
cp "$root/package.json" "$root/package-lock.json" "$root/tsconfig.json" "$root/tsconfig.build.json" "$root/nest-cli.json" "$work/build/"
mkdir -p "$work/build/packages/cli" && cp "$root/packages/cli/package.json" "$work/build/packages/cli/"
cp -r "$root/src" "$work/build/src"
cp -r "$root/web" "$work/build/web" && rm -rf "$work/build/web/dist"
(cd "$work/build" && npm ci --no-audit --no-fund && npm run build && npm run build:web && npm prune --omit=dev --no-audit --no-fund)

echo "== runtime stage (in $work/app)"
mkdir -p "$work/app" "$work/data"
cp "$work/build/package.json" "$work/app/"
cp -r "$work/build/node_modules" "$work/build/dist" "$work/app/"
mkdir -p "$work/app/web" && cp -r "$work/build/web/dist" "$work/app/web/dist"
cp -r "$root/bin" "$work/app/bin"
test ! -e "$work/app/src" && test ! -e "$work/app/node_modules/typescript" && test ! -e "$work/app/node_modules/@nestjs/cli"

port=$((20000 + RANDOM % 20000))
(cd "$work/app" && env -i PATH="$PATH" HOME="$work" NODE_ENV=production TZ=UTC SVC_DATA_DIR="$work/data" SVC_HOST=0.0.0.0 \
  SVC_PORT="$port" SVC_IN_CONTAINER=1 node /"$work"/app/bin/svc.js relay) &
relay_pid=$!
for _ in $(seq 1 60); do
  if SVC_PORT="$port" node "$work/app/bin/healthcheck.js"; then break; fi
  sleep 0.5
done
SVC_PORT="$port" node "$work/app/bin/healthcheck.js"
echo "== HEALTHCHECK passed on port $port"
(cd "$work/app" && SVC_DATA_DIR="$work/data" SVC_ADMIN_PASSWORD='docker steps check' node bin/svc.js admin init --email admin@example.com)
curl -fsS "http://127.0.0.1:$port/api/v1/auth/status"; echo
curl -fsS "http://127.0.0.1:$port/" | grep -q '<div id="root">'
echo "== the dashboard is served at /"
test -f "$work/data/svc.sqlite"
echo "== OK: build, prune, runtime start, healthcheck, admin init all worked outside Docker"
