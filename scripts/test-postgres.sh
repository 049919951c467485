#!/usr/bin/env bash
# Runs the end-to-end suite against PostgreSQL (npm run test:postgres [-- jest args]).
#
# With SVC_TEST_DATABASE_URL already set (an admin URL of a server you run, e.g.
# postgres://svc@127.0.0.1:5432/postgres), it only runs jest: every test relay creates its own
# database on that server and drops it when it closes. Otherwise it starts a throwaway cluster
# (initdb in a temp dir, 127.0.0.1 on a free port, trust auth, fsync off), runs jest, and removes
# it. Needs the PostgreSQL server binaries (Debian: apt-get install postgresql).
#
# Suites that inspect the SQLite file itself (CLI backup/restore, WAL pragmas, the spawned server
# and CLI processes) are left out here; see docs/database.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# Unit specs (src/) do not touch the database; they run in the ordinary suite.
IGNORE="/src/"
run_jest() {
  TZ=UTC npx jest "$@" --testPathIgnorePatterns "$IGNORE"
}

if [ -n "${SVC_TEST_DATABASE_URL:-}" ]; then
  run_jest "$@"
  exit $?
fi

bindir="${PG_BINDIR:-}"
if [ -z "$bindir" ]; then
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    bindir="$(pg_config --bindir)"
  else
    bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  fi
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
  echo "test:postgres: no PostgreSQL server binaries found (apt-get install postgresql, or set PG_BINDIR / SVC_TEST_DATABASE_URL)" >&2
  exit 2
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/svc-pg-XXXXXX")"
port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
# initdb refuses to run as root: run the server as the postgres account then.
as_owner=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
cleanup() {
  "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

# ICU en-US ordering (PostgreSQL 15+), as many installs have, so locale-dependent queries show up;
# older servers get their default libc locale.
initdb=("${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U svc -A trust -E UTF8 --locale=C.UTF-8)
"${initdb[@]}" --locale-provider=icu --icu-locale=en-US >"$dir/initdb.log" 2>&1 \
  || { rm -rf "$dir/data"; "${initdb[@]}" >"$dir/initdb.log" 2>&1; } \
  || { cat "$dir/initdb.log" >&2; exit 1; }
"${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
locale="$(sed -n 's/^ *\(provider\|ICU locale\|LC_COLLATE\): *//p' "$dir/initdb.log" | paste -sd ' ')"
echo "test:postgres: $("$bindir/postgres" --version) on 127.0.0.1:$port, locale $locale ($dir)"

export SVC_TEST_DATABASE_URL="postgres://svc@127.0.0.1:$port/postgres"
run_jest "$@"
