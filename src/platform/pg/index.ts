import type { Piece } from '../piece';
import { packageDir, sha256Of } from '../packages';

const preparingClient: Piece<'data-source'> = {
  name: 'pg named statements (PreparingClient)',
  changes: "a subclass of pg's Client, given to the pool as its public `Client` option by dataSourceOptions: parameterised SELECT, INSERT, UPDATE, DELETE and WITH statements go as named statements",
  why: 'planning was more of PostgreSQL time than running on GET /builds, and an upload is a dozen writes; now once per connection (docs/decisions.md#p2, docs/database.md)',
  checkedAgainst: { pg: '8.23.1', 'typeorm > pg': '8.23.1', 'pg > pg-pool': '3.14.0' },
  phase: 'data-source',
  // Client.query's overloads it relies on, and how the pool hands a config object on to it.
  fingerprint: () => {
    const { Client } = require(packageDir('pg')) as typeof import('pg');
    const Pool = require(packageDir('pg > pg-pool')) as { prototype: { query: unknown } };
    return sha256Of([String(Client.prototype.query), String(Pool.prototype.query)]);
  },
  expected: ['95e54fd33fe7a743a90021f7471bd25b1d12a8198ccb0331870c57e8d4d4b7a0'],
};

export const pieces = [preparingClient];
