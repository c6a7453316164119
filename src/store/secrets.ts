/**
 * Secrets at rest (issue 24): Slack tokens and plat tokens are sealed with AES-256-GCM (Node's
 * crypto) under a key from PLATDESK_ENCRYPTION_KEY before they reach a row, and opened only when
 * used. A sealed value reads `v1:<keyId>:<iv>:<tag>:<ciphertext>` (each part base64url): the key
 * id travels with the value, so several keys can be configured while `npm run rotate-keys`
 * re-seals every value under the current (first) one. The additional authenticated data binds the
 * value to its row (tenant and purpose): a ciphertext copied into another row does not open.
 *
 * Nothing here logs; a failure names the key id or the row, never a value.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface EncryptionKey {
  /** A short name stored with each value ([A-Za-z0-9_-], at most 32 characters). */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

/** What a sealed value belongs to: it opens only for the same tenant and purpose. */
export interface SecretContext {
  tenant: string;
  /** e.g. `slack.bot_token`, `slack.bot_refresh_token`, `plat.token`. */
  purpose: string;
}

export class SecretError extends Error {
  readonly code = 'platdesk_secret';
  constructor(message: string) {
    super(message);
    this.name = 'SecretError';
  }
}

export interface SecretBox {
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;
  seal(plaintext: string, context: SecretContext): string;
  /** Throws SecretError when the value is not sealed, its key is unknown, or it belongs elsewhere. */
  open(sealed: string, context: SecretContext): string;
  /** The key id a sealed value names (null when it is not a sealed value). */
  keyIdOf(sealed: string): string | null;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

const aad = ({ tenant, purpose }: SecretContext) => Buffer.from(`platdesk:${purpose}:${tenant}`, 'utf8');

export function createSecretBox(keys: readonly EncryptionKey[]): SecretBox {
  const current = keys[0];
  if (!current) throw new SecretError('no encryption key is configured (PLATDESK_ENCRYPTION_KEY)');
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  return {
    currentKeyId: current.id,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [
        VERSION,
        current.id,
        iv.toString('base64url'),
        tag.toString('base64url'),
        body.toString('base64url'),
      ].join(':');
    },
    open(sealed, context) {
      const parts = sealed.split(':');
      const [version, keyId, iv, tag, body] = parts;
      if (parts.length !== 5 || version !== VERSION || !keyId || !iv || !tag || body === undefined)
        throw new SecretError(`a stored ${context.purpose} is not a sealed value`);
      const key = byId.get(keyId);
      if (!key)
        throw new SecretError(
          `a stored ${context.purpose} is sealed with key "${keyId}", which PLATDESK_ENCRYPTION_KEY does not hold`,
        );
      const authTag = Buffer.from(tag, 'base64url');
      try {
        // The tag length is pinned: GCM verifies only as many tag bytes as it is given, so a tag
        // cut to 4 bytes would be a 1-in-2^32 guess (NIST SP 800-38D §5.2.1.2; Node DEP0182).
        if (authTag.length !== TAG_BYTES) throw new SecretError('short tag');
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(aad(context));
        decipher.setAuthTag(authTag);
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretError(
          `a stored ${context.purpose} of ${context.tenant || 'the workspace'} does not open (wrong key, or copied from another row)`,
        );
      }
    },
    keyIdOf(sealed) {
      const parts = sealed.split(':');
      return parts.length === 5 && parts[0] === VERSION ? (parts[1] ?? null) : null;
    },
  };
}

/**
 * PLATDESK_ENCRYPTION_KEY: one 32-byte key (base64 or 64 hex digits; its id is `k1`), or several
 * `id:key` pairs separated by commas, the first being the current one. Problems name the pair's
 * position and id, never the key.
 */
export function parseEncryptionKeys(text: string): { keys: EncryptionKey[]; problems: string[] } {
  const keys: EncryptionKey[] = [];
  const problems: string[] = [];
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) problems.push('PLATDESK_ENCRYPTION_KEY is empty');
  parts.forEach((part, index) => {
    const colon = part.indexOf(':');
    const id = colon === -1 ? 'k1' : part.slice(0, colon).trim();
    const material = colon === -1 ? part : part.slice(colon + 1).trim();
    const where = `PLATDESK_ENCRYPTION_KEY: key ${index + 1}${colon === -1 ? '' : ` ("${KEY_ID.test(id) ? id : '?'}")`}`;
    if (colon === -1 && parts.length > 1) {
      problems.push(`${where} needs an id when several keys are given (id:key,id:key)`);
      return;
    }
    if (!KEY_ID.test(id)) {
      problems.push(`${where}: the id may hold letters, digits, _ and - only (at most 32)`);
      return;
    }
    const key = decodeKey(material);
    if (!key) {
      problems.push(`${where} must be 32 bytes, as base64 (44 characters) or hex (64 digits)`);
      return;
    }
    if (keys.some((k) => k.id === id)) {
      problems.push(`${where}: the id is given twice`);
      return;
    }
    keys.push({ id, key });
  });
  return { keys, problems };
}

function decodeKey(material: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(material)) return Buffer.from(material, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(material)) {
    const bytes = Buffer.from(material.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === 32 ? bytes : null;
  }
  return null;
}
