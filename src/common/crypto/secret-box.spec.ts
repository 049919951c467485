import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../config/config.loader';
import { parseSecretsKey, SecretBox, SecretUnreadable } from './secret-box';

describe('SecretBox (secrets at rest under SVC_SECRETS_KEY)', () => {
  const key = randomBytes(32);
  const box = new SecretBox(key);

  it('reads the key as 64 hex characters or base64 (standard or URL-safe); unset is null', () => {
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64url'))).toEqual(key);
    expect(parseSecretsKey(undefined)).toBeNull();
    expect(parseSecretsKey('  ')).toBeNull();
    for (const bad of ['short', randomBytes(16).toString('hex'), randomBytes(24).toString('base64'), 'z'.repeat(64)]) expect(() => parseSecretsKey(bad)).toThrow(/32 random bytes/);
  });

  it('stops the relay on a malformed key, naming the variable and never echoing the value', () => {
    expect(() => loadConfig({ SVC_SECRETS_KEY: 'not-a-key-value' }, '/tmp')).toThrow('Invalid configuration SVC_SECRETS_KEY: expected 32 random bytes as 64 hexadecimal characters or as base64 (openssl rand -base64 32)');
  });

  it('seals with a fresh IV each time and opens what it sealed', () => {
    const a = box.seal('ghp_secret', 'forges.token');
    const b = box.seal('ghp_secret', 'forges.token');
    expect(a).not.toBe(b);
    expect(a).not.toContain('ghp_secret');
    expect(a).toMatch(/^v1\./);
    expect(box.open(a, 'forges.token')).toBe('ghp_secret');
  });

  it('tells another key, no key, a damaged value and another purpose apart', () => {
    const sealed = box.seal('ghp_secret', 'forges.token');
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'forges.token')).toThrow(new SecretUnreadable('it was encrypted with another SVC_SECRETS_KEY than the one set now'));
    expect(() => new SecretBox(null).open(sealed, 'forges.token')).toThrow(new SecretUnreadable('SVC_SECRETS_KEY is not set, so it cannot be decrypted'));
    const parts = sealed.split('.');
    const data = Buffer.from(parts[3], 'base64url');
    data[0] ^= 1;
    parts[3] = data.toString('base64url');
    expect(() => box.open(parts.join('.'), 'forges.token')).toThrow(/does not decrypt/);
    expect(() => box.open(sealed, 'forges.private_key')).toThrow(/does not decrypt/);
    expect(() => box.open('plain-text-token', 'forges.token')).toThrow(/not in a format/);
    expect(() => new SecretBox(null).seal('x', 'forges.token')).toThrow(/SVC_SECRETS_KEY is not set/);
  });
});
