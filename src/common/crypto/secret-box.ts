import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** The environment variable holding the key for secrets kept in the database (docs/integrations.md). */
export const SECRETS_KEY_ENV = 'SVC_SECRETS_KEY';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a sealed secret cannot be opened; `message` completes "its token …" / reads alone in a log line. */
export class SecretUnreadable extends Error {}

/**
 * The 32-byte key from SVC_SECRETS_KEY, written as 64 hexadecimal characters or as base64
 * (`openssl rand -base64 32`); null when the variable is unset; throws naming the shape otherwise.
 */
export function parseSecretsKey(raw: string | undefined): Buffer | null {
  const text = raw?.trim();
  if (!text) return null;
  if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text)) {
    const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === 32) return key;
  }
  throw new Error('32 random bytes as 64 hexadecimal characters or as base64 (openssl rand -base64 32)');
}

/**
 * Secrets the relay must read back (a forge's token or App key; a hash would not do), sealed with
 * AES-256-GCM under SVC_SECRETS_KEY: `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url). The key id
 * (an HMAC of a constant under the key) tells "stored with another key" from "damaged"; `purpose`
 * is authenticated data, so a sealed token cannot be passed off as a sealed App key.
 */
export class SecretBox {
  private readonly keyId: string | null;

  constructor(private readonly key: Buffer | null) {
    this.keyId = key ? createHmac('sha256', key).update('svc relay secrets key id').digest().subarray(0, 6).toString('base64url') : null;
  }

  get configured(): boolean {
    return this.key !== null;
  }

  /** Throws when no key is configured: callers check `configured` first and refuse with a 4xx. */
  seal(plaintext: string, purpose: string): string {
    if (!this.key) throw new SecretUnreadable(`${SECRETS_KEY_ENV} is not set`);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.keyId, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The plaintext, or SecretUnreadable saying why not (no key, another key, damaged). */
  open(sealed: string, purpose: string): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretUnreadable('it is not in a format this relay reads');
    if (!this.key) throw new SecretUnreadable(`${SECRETS_KEY_ENV} is not set, so it cannot be decrypted`);
    const [, keyId, iv, data, tag] = parts;
    if (keyId !== this.keyId) throw new SecretUnreadable(`it was encrypted with another ${SECRETS_KEY_ENV} than the one set now`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadable('it does not decrypt (damaged, or not sealed for this use)');
    }
  }
}
