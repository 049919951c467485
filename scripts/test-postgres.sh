#!/usr/bin/env bash
# Runs the end-to-end suites against PostgreSQL (npm run test:postgres [-- jest args]).
#
# SVC_TEST_DATABASE_URL is an admin URL of the server (its role needs CREATEDB); default
# postgres://postgres@127.0.0.1:5432/test, the server this machine and CI run (trust auth). Every
# test relay creates a database of its own there, svc_test_<run id>_<random>, and drops it when it
# closes; databases a crashed test left behind are dropped at the end of the run. The run id keeps
# concurrent runs on one server apart. No server there is an error here (exit 2); .ci/run checks
# first and skips the pass with a banner instead. See docs/database.md.
set -euo pipefail
cd "$(dirname "$0")/.."

export SVC_TEST_DATABASE_URL="${SVC_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
export SVC_TEST_RUN_ID="${SVC_TEST_RUN_ID:-$(node -e "process.stdout.write(require('node:crypto').randomBytes(5).toString('hex'))")}"

if ! node scripts/test-databases.js listening; then
  echo "test:postgres: no PostgreSQL server listens at SVC_TEST_DATABASE_URL's host and port (default 127.0.0.1:5432)" >&2
  exit 2
fi
node scripts/test-databases.js check
trap 'node scripts/test-databases.js drop-run || true' EXIT

# dist/ and web/dist built once, before the suites that start `npm start` or the CLI would each
# rebuild a stale one at the same moment (nest build empties dist/ first).
node scripts/build-if-needed.js
# Unit specs (src/) do not touch the database; they run in the ordinary suite.
TZ=UTC npx jest "$@" --testPathIgnorePatterns /src/
