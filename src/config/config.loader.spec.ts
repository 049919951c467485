import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { DEFAULT_POSTGRES_POOL_SIZE, loadConfig, peekLogSettings } from './config.loader';

describe('loadConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const writeFile = (values: unknown, name = 'svc.config.json') => {
    writeFileSync(join(dir, name), typeof values === 'string' ? values : JSON.stringify(values));
  };
  const failure = (env: Record<string, string>) => {
    try {
      loadConfig(env, dir);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('an absent file means the documented defaults', () => {
    const config = loadConfig({}, dir);
    expect(config).toEqual(
      expect.objectContaining({
        port: 8080,
        host: '0.0.0.0',
        dataDir: join(dir, 'data'),
        database: { type: 'sqlite', path: join(dir, 'data', 'svc.sqlite') },
        relayUrl: null,
        buildTtlDays: 7,
        maxBuildBytes: 524_288_000,
        maxRecordingBytes: 209_715_200,
        maxRecordingDurationMs: 1_800_000,
        recordingSnapshotIntervalMs: 5000,
        trustProxy: false,
        smtp: null,
        logLevel: 'info',
        logFormat: 'json',
        bcryptCost: 11,
        passwordWorkers: Math.max(1, Math.min(4, availableParallelism() - 1)),
        tlsCert: null,
        tlsKey: null,
        webhooks: [],
        configFile: null,
      }),
    );
  });

  it('reads svc.config.json and lets environment variables override it', () => {
    writeFile({
      port: 9000,
      host: '127.0.0.1',
      relay: { url: 'https://file.example.com' },
      builds: { ttlDays: 3, maxBytes: 1000 },
      log: { level: 'warn' },
      smtp: { host: 'smtp.example.com' },
    });
    const fromFile = loadConfig({}, dir);
    expect(fromFile).toEqual(
      expect.objectContaining({
        port: 9000,
        host: '127.0.0.1',
        relayUrl: 'https://file.example.com',
        buildTtlDays: 3,
        maxBuildBytes: 1000,
        logLevel: 'warn',
        configFile: join(dir, 'svc.config.json'),
      }),
    );
    expect(fromFile.smtp).toEqual(expect.objectContaining({ host: 'smtp.example.com', port: 587, secure: false }));

    const overridden = loadConfig(
      { SVC_PORT: '9100', SVC_RELAY_URL: 'http://env.example.com:8080/', SVC_LOG_LEVEL: 'DEBUG', SVC_SMTP_SECURE: 'true' },
      dir,
    );
    expect(overridden).toEqual(
      expect.objectContaining({ port: 9100, relayUrl: 'http://env.example.com:8080', logLevel: 'debug', maxBuildBytes: 1000 }),
    );
    expect(overridden.smtp).toEqual(expect.objectContaining({ secure: true, port: 465 }));
  });

  it('SVC_LOG_FORMAT (log.format): json or text; peekLogSettings reads it (and the level) before the rest, never throwing', () => {
    writeFile({ log: { format: 'text', level: 'warn' }, port: 'eighty' });
    expect(peekLogSettings({}, dir)).toEqual({ level: 'warn', format: 'text' });
    expect(peekLogSettings({ SVC_LOG_FORMAT: 'JSON' }, dir)).toEqual({ level: 'warn', format: 'json' });
    expect(failure({})).toContain('port (in svc.config.json)');
    expect(loadConfig({ SVC_PORT: '1', SVC_LOG_FORMAT: 'text' }, dir).logFormat).toBe('text');
    // a value it cannot use falls back here; loadConfig then names the key
    expect(peekLogSettings({ SVC_LOG_FORMAT: 'xml' }, dir).format).toBe('json');
    expect(failure({ SVC_PORT: '1', SVC_LOG_FORMAT: 'xml' })).toContain('SVC_LOG_FORMAT: expected one of json, text');
    writeFile('not json');
    expect(peekLogSettings({ SVC_LOG_FORMAT: 'text' }, dir)).toEqual({ level: 'info', format: 'text' });
  });

  it('SVC_CONFIG points at another file; a missing one is an error', () => {
    writeFile({ port: 7000 }, 'other.json');
    expect(loadConfig({ SVC_CONFIG: 'other.json' }, dir).port).toBe(7000);
    expect(failure({ SVC_CONFIG: 'missing.json' })).toMatch(/SVC_CONFIG/);
  });

  it('a file that is not a JSON object is an error naming SVC_CONFIG', () => {
    writeFile('{ not json');
    expect(failure({})).toMatch(/^Invalid configuration SVC_CONFIG: expected a readable JSON file/);
    writeFile('[1,2]');
    expect(failure({})).toMatch(/SVC_CONFIG: expected a JSON object/);
  });

  it.each([
    ['SVC_PORT', 'abc', /SVC_PORT: expected a whole number from 0 to 65535, got "abc"/],
    ['SVC_PORT', '70000', /SVC_PORT: expected a whole number from 0 to 65535/],
    ['SVC_PORT', '-1', /SVC_PORT/],
    ['SVC_PORT', '80.5', /SVC_PORT/],
    ['SVC_PORT', '0x50', /SVC_PORT/],
    ['SVC_PORT', '8e3', /SVC_PORT/],
    ['SVC_HOST', 'not a host!', /SVC_HOST: expected an IP address/],
    ['SVC_DATABASE_URL', 'mysql://x', /SVC_DATABASE_URL: expected postgres:/],
    ['SVC_RELAY_URL', 'relay.example.com', /SVC_RELAY_URL: expected an absolute http:\/\/ or https:\/\/ URL/],
    ['SVC_RELAY_URL', 'ftp://relay.example.com', /SVC_RELAY_URL/],
    ['SVC_RELAY_URL', 'https://relay.example.com/?x=1', /SVC_RELAY_URL: .*without query/],
    ['SVC_BUILD_TTL_DAYS', 'soon', /SVC_BUILD_TTL_DAYS: expected a number/],
    ['SVC_BUILD_TTL_DAYS', '0', /SVC_BUILD_TTL_DAYS/],
    ['SVC_MAX_BUILD_BYTES', '0', /SVC_MAX_BUILD_BYTES: expected a whole number from 1/],
    ['SVC_MAX_BUILD_BYTES', '500MB', /SVC_MAX_BUILD_BYTES/],
    ['SVC_MAX_RECORDING_BYTES', '-5', /SVC_MAX_RECORDING_BYTES/],
    ['SVC_TRUST_PROXY', 'maybe', /SVC_TRUST_PROXY: expected true, false, a number of hops/],
    ['SVC_LOG_LEVEL', 'verbose', /SVC_LOG_LEVEL: expected one of error, warn, info, debug, got "verbose"/],
    ['SVC_BCRYPT_COST', '3', /SVC_BCRYPT_COST: expected a whole number from 4 to 15/],
    ['SVC_BCRYPT_COST', '16', /SVC_BCRYPT_COST/],
    ['SVC_TLS_CERT', 'missing.pem', /SVC_TLS_CERT/],
  ])('%s=%s is refused with a message naming the key and what is allowed', (key, value, message) => {
    expect(failure({ [key]: value })).toMatch(message);
  });

  it('audit forwarding: syslog as tcp:// or tls://host:port, an HTTP URL, the header read from the variable audit.httpAuthorizationEnv names', () => {
    expect(loadConfig({}, dir).audit).toEqual({ syslog: null, httpUrl: null, httpAuthorization: null });
    writeFile({ audit: { syslog: 'tls://siem.example.com:6514', httpUrl: 'https://logs.example.com/in', httpAuthorizationEnv: 'AUDIT_AUTH' } });
    expect(loadConfig({ AUDIT_AUTH: 'Bearer t' }, dir).audit).toEqual({
      syslog: { host: 'siem.example.com', port: 6514, tls: true, caFile: null },
      httpUrl: 'https://logs.example.com/in',
      httpAuthorization: 'Bearer t',
    });
    expect(loadConfig({ SVC_AUDIT_SYSLOG: 'tcp://[::1]:514' }, dir).audit.syslog).toEqual({ host: '::1', port: 514, tls: false, caFile: null });
    expect(failure({ SVC_AUDIT_SYSLOG: 'udp://siem:514' })).toMatch(/audit\.syslog: expected tcp:\/\/host:port or tls:\/\/host:port/);
    expect(failure({ SVC_AUDIT_SYSLOG: 'tcp://siem:70000' })).toMatch(/audit\.syslog/);
  });

  it('SVC_REDIS_URL (several instances) needs PostgreSQL: with SQLite the relay refuses to start, saying why', () => {
    expect(failure({ SVC_REDIS_URL: 'redis://127.0.0.1:6379' })).toMatch(
      /SVC_REDIS_URL: expected a PostgreSQL database .*several instances cannot share a SQLite file/,
    );
    expect(failure({ SVC_REDIS_URL: 'http://x', SVC_DATABASE_URL: 'postgres://db/svc' })).toMatch(/SVC_REDIS_URL: expected redis:\/\//);
    const secret = 'k'.repeat(32);
    const config = loadConfig({ SVC_REDIS_URL: 'redis://cache:6379/2', SVC_DATABASE_URL: 'postgres://db/svc', SVC_CLUSTER_SECRET: secret }, dir);
    expect(config.redis).toEqual({ url: 'redis://cache:6379/2', prefix: 'svc:', secret });
    expect(loadConfig({}, dir).redis).toBeNull();
  });

  it('SVC_REDIS_URL needs SVC_CLUSTER_SECRET (or cluster.secret) of at least 32 characters; the message never shows the secret', () => {
    const clustered = { SVC_REDIS_URL: 'redis://cache:6379', SVC_DATABASE_URL: 'postgres://db/svc' };
    expect(failure(clustered)).toMatch(/^Invalid configuration SVC_CLUSTER_SECRET: expected at least 32 characters, the same on every instance, alongside SVC_REDIS_URL/);
    const short = failure({ ...clustered, SVC_CLUSTER_SECRET: 'hunter2-hunter2' });
    expect(short).toMatch(/SVC_CLUSTER_SECRET: .*got "15 characters"$/);
    expect(short).not.toContain('hunter2');
    writeFile({ cluster: { secret: 'f'.repeat(40) } });
    expect(loadConfig(clustered, dir).redis?.secret).toBe('f'.repeat(40));
    // Alone, no secret is asked for.
    expect(loadConfig({ SVC_DATABASE_URL: 'postgres://db/svc' }, dir).redis).toBeNull();
  });

  it('SVC_DATABASE_POOL_SIZE (database.poolSize): PostgreSQL connections at most, a default when unset, a bad value names the key', () => {
    expect(loadConfig({ SVC_DATABASE_URL: 'postgres://db/svc' }, dir).database).toEqual({ type: 'postgres', url: 'postgres://db/svc', poolSize: DEFAULT_POSTGRES_POOL_SIZE });
    expect(loadConfig({ SVC_DATABASE_URL: 'postgres://db/svc', SVC_DATABASE_POOL_SIZE: '32' }, dir).database).toMatchObject({ poolSize: 32 });
    expect(failure({ SVC_DATABASE_URL: 'postgres://db/svc', SVC_DATABASE_POOL_SIZE: '0' })).toMatch(/SVC_DATABASE_POOL_SIZE/);
    // One connection would deadlock a member change (its advisory lock holds one while it writes through another).
    expect(failure({ SVC_DATABASE_URL: 'postgres://db/svc', SVC_DATABASE_POOL_SIZE: '1' })).toMatch(/SVC_DATABASE_POOL_SIZE/);
    // SQLite has one connection: the setting is not read.
    expect(loadConfig({ SVC_DATABASE_POOL_SIZE: 'many' }, dir).database.type).toBe('sqlite');
    writeFile({ database: { url: 'postgres://db/svc', poolSize: 6 } });
    expect(loadConfig({}, dir).database).toMatchObject({ poolSize: 6 });
  });

  it('SVC_STORAGE_URL: absent is the data folder; s3://bucket/prefix with the SVC_S3_* settings; anything else names the key', () => {
    expect(loadConfig({}, dir).storage).toEqual({ type: 'data-dir' });
    expect(
      loadConfig({ SVC_STORAGE_URL: 's3://svc-files/team/relay/', SVC_S3_ENDPOINT: 'http://minio:9000/', SVC_S3_FORCE_PATH_STYLE: 'true' }, dir).storage,
    ).toEqual({ type: 's3', bucket: 'svc-files', prefix: 'team/relay', endpoint: 'http://minio:9000', region: 'us-east-1', forcePathStyle: true });
    expect(loadConfig({ SVC_STORAGE_URL: 's3://svc-files', AWS_REGION: 'eu-west-3' }, dir).storage).toEqual({
      type: 's3',
      bucket: 'svc-files',
      prefix: '',
      endpoint: null,
      region: 'eu-west-3',
      forcePathStyle: false,
    });
    expect(loadConfig({ SVC_STORAGE_URL: 's3://b-1', SVC_S3_REGION: 'auto', AWS_REGION: 'eu-west-3' }, dir).storage).toMatchObject({ region: 'auto' });
    expect(failure({ SVC_STORAGE_URL: 'file:///srv/svc' })).toMatch(/SVC_STORAGE_URL: expected s3:\/\/bucket or s3:\/\/bucket\/prefix/);
    expect(failure({ SVC_STORAGE_URL: 's3://Bad_Bucket/x' })).toMatch(/SVC_STORAGE_URL/);
    expect(failure({ SVC_STORAGE_URL: 's3://b-1', SVC_S3_ENDPOINT: 'minio:9000' })).toMatch(/SVC_S3_ENDPOINT/);
    expect(failure({ SVC_STORAGE_URL: 's3://b-1', SVC_S3_FORCE_PATH_STYLE: 'yes please' })).toMatch(/SVC_S3_FORCE_PATH_STYLE/);
  });

  it('SMTP values are checked only when SMTP is configured', () => {
    expect(failure({ SVC_SMTP_HOST: 'smtp.example.com', SVC_SMTP_PORT: 'x' })).toMatch(/SVC_SMTP_PORT/);
    expect(failure({ SVC_SMTP_HOST: 'smtp.example.com', SVC_SMTP_SECURE: 'perhaps' })).toMatch(/SVC_SMTP_SECURE: expected true or false/);
  });

  it('file values are validated too, and the message names the file key', () => {
    writeFile({ port: 'eighty' });
    expect(failure({})).toMatch(/port \(in svc\.config\.json\): expected a whole number/);
    writeFile({ relay: { url: 42 } });
    expect(failure({})).toMatch(/relay\.url \(in svc\.config\.json\): expected a string/);
    writeFile({ relay: { url: 'nope' } });
    expect(failure({})).toMatch(/relay\.url \(in svc\.config\.json\): expected an absolute/);
    writeFile({ builds: { ttlDays: 1.5 }, port: 8081.5 });
    expect(failure({})).toMatch(/port \(in svc\.config\.json\)/);
  });

  it('connection limits: a quarter of SVC_MAX_CONNECTIONS per address (at least 4) unless set; heads within 10 s', () => {
    expect(loadConfig({}, dir).limits).toEqual(expect.objectContaining({ maxConnections: 1000, maxConnectionsPerAddress: 250, headersTimeoutMs: 10_000 }));
    expect(loadConfig({ SVC_MAX_CONNECTIONS: '30' }, dir).limits.maxConnectionsPerAddress).toBe(7);
    expect(loadConfig({ SVC_MAX_CONNECTIONS: '8' }, dir).limits.maxConnectionsPerAddress).toBe(4);
    const set = loadConfig({ SVC_MAX_CONNECTIONS_PER_ADDRESS: '40', SVC_HEADERS_TIMEOUT_MS: '2000' }, dir).limits;
    expect(set).toEqual(expect.objectContaining({ maxConnectionsPerAddress: 40, headersTimeoutMs: 2000 }));
    expect(failure({ SVC_HEADERS_TIMEOUT_MS: '10' })).toContain('SVC_HEADERS_TIMEOUT_MS');
    expect(failure({ SVC_MAX_CONNECTIONS_PER_ADDRESS: '0' })).toContain('SVC_MAX_CONNECTIONS_PER_ADDRESS');
  });

  it('SVC_TRUST_PROXY accepts the forms Express does', () => {
    expect(loadConfig({ SVC_TRUST_PROXY: 'true' }, dir).trustProxy).toBe(true);
    expect(loadConfig({ SVC_TRUST_PROXY: 'FALSE' }, dir).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: '2' }, dir).trustProxy).toBe(2);
    expect(loadConfig({ SVC_TRUST_PROXY: 'loopback, 10.0.0.0/8' }, dir).trustProxy).toBe('loopback,10.0.0.0/8');
  });

  it('TLS needs both a certificate and a key', () => {
    writeFileSync(join(dir, 'cert.pem'), 'x');
    expect(failure({ SVC_TLS_CERT: 'cert.pem' })).toMatch(/SVC_TLS_CERT\/SVC_TLS_KEY: expected both/);
  });

  it('config-file webhooks: the secret comes from secretEnv; an unset variable leaves it null (the endpoint is then skipped)', () => {
    writeFile({ webhooks: [{ url: 'https://ci.example.com/h', secretEnv: 'HOOK_SECRET' }] });
    expect(loadConfig({}, dir).webhooks).toEqual([
      { url: 'https://ci.example.com/h', secretEnv: 'HOOK_SECRET', secret: null, enabled: true },
    ]);
    expect(loadConfig({ HOOK_SECRET: 's3' }, dir).webhooks).toEqual([
      { url: 'https://ci.example.com/h', secretEnv: 'HOOK_SECRET', secret: 's3', enabled: true },
    ]);
    writeFile({ webhooks: [{ url: 'file:///etc/passwd' }] });
    expect(failure({})).toMatch(/webhooks\[0\]\.url: expected an http:\/\/ or https:\/\/ URL/);
  });

  it('an empty variable counts as unset', () => {
    writeFile({ port: 9000 });
    expect(loadConfig({ SVC_PORT: '' }, dir).port).toBe(9000);
  });
});
