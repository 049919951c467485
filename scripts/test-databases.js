#!/usr/bin/env node
// The PostgreSQL server of the test pass (SVC_TEST_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test): scripts/test-postgres.sh and .ci/run call this.
//
//   node scripts/test-databases.js listening   exit 0 when something accepts TCP connections at the
//                                              URL's host and port, 3 when nothing does
//   node scripts/test-databases.js check       signs in and prints the server's version; exit 1 with
//                                              the reason when it cannot, or when the role may not
//                                              create databases
//   node scripts/test-databases.js drop-run    drops every database of this run (svc_test_<SVC_TEST_RUN_ID>_*)
//                                              that a crashed test left behind
//
// Test relays create their databases themselves (test/support/test-relay.ts): svc_test_<run>_<random>,
// dropped when each relay closes. The run id keeps concurrent runs on one server apart.
const net = require('node:net');
const { Client } = require('pg');

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
const url = process.env.SVC_TEST_DATABASE_URL || DEFAULT_URL;
const parsed = new URL(url);
const where = `${parsed.hostname}:${parsed.port || 5432}`;

function listening() {
  return new Promise((resolve) => {
    const socket = net.connect({ host: parsed.hostname, port: Number(parsed.port || 5432) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(3000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function withClient(body) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

async function check() {
  await withClient(async (client) => {
    const { rows } = await client.query(
      "SELECT version() AS version, (SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user) AS may_create",
    );
    if (!rows[0].may_create) throw new Error(`role ${parsed.username || '(default)'} may not create databases (needs CREATEDB)`);
    console.log(`test:postgres: ${rows[0].version.split(',')[0]} at ${where}`);
  });
}

async function dropRun() {
  const run = process.env.SVC_TEST_RUN_ID;
  if (!run || !/^[a-z0-9]+$/.test(run)) throw new Error('SVC_TEST_RUN_ID must be set (lower-case letters and digits)');
  await withClient(async (client) => {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1', [`svc_test_${run}_%`]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    if (rows.length) console.log(`test:postgres: dropped ${rows.length} database(s) left by this run`);
  });
}

async function main(command) {
  if (command === 'listening') process.exit((await listening()) ? 0 : 3);
  if (command === 'check') return check();
  if (command === 'drop-run') return dropRun();
  throw new Error(`usage: test-databases.js listening|check|drop-run`);
}

main(process.argv[2]).catch((err) => {
  console.error(`test:postgres: ${where}: ${err.message}`);
  process.exit(1);
});
