/**
 * Secrets at rest (issue 24): AES-256-GCM sealed values carry their key id, open only for the row
 * they were sealed for, and PLATDESK_ENCRYPTION_KEY is parsed with problems that never show a key.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox, parseEncryptionKeys, SecretError } from '../../src/store/secrets.js';

const key = (id: string) => ({ id, key: randomBytes(32) });
const row = { tenant: 'T111', purpose: 'slack.bot_token' };

describe('secret box', () => {
  it('seals as v1:<keyId>:<iv>:<tag>:<ciphertext>, a fresh IV each time, and opens back', () => {
    const box = createSecretBox([key('k1')]);
    const a = box.seal('xoxb-secret-token', row);
    const b = box.seal('xoxb-secret-token', row);
    expect(a).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('secret');
    expect(box.open(a, row)).toBe('xoxb-secret-token');
    expect(box.keyIdOf(a)).toBe('k1');
  });

  it('a value copied to another tenant or purpose does not open', () => {
    const box = createSecretBox([key('k1')]);
    const sealed = box.seal('xoxb-secret-token', row);
    expect(() => box.open(sealed, { ...row, tenant: 'T222' })).toThrow(SecretError);
    expect(() => box.open(sealed, { ...row, purpose: 'plat.token' })).toThrow(SecretError);
  });

  it('a tampered value does not open, and the error shows no value', () => {
    const box = createSecretBox([key('k1')]);
    const sealed = box.seal('xoxb-secret-token', row);
    const parts = sealed.split(':');
    const body = Buffer.from(parts[4] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    parts[4] = body.toString('base64url');
    let message = '';
    try {
      box.open(parts.join(':'), row);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/does not open/);
    expect(message).not.toContain('xoxb');
  });

  it('opens values of an older key while sealing with the current (first) one; an unknown key id is named', () => {
    const old = key('old');
    const sealedOld = createSecretBox([old]).seal('plat-token', row);
    const box = createSecretBox([key('new'), old]);
    expect(box.open(sealedOld, row)).toBe('plat-token');
    expect(box.keyIdOf(box.seal('x', row))).toBe('new');
    expect(() => createSecretBox([key('new')]).open(sealedOld, row)).toThrow(/key "old"/);
  });
});

describe('PLATDESK_ENCRYPTION_KEY', () => {
  const b64 = randomBytes(32).toString('base64');
  const hex = randomBytes(32).toString('hex');
  it('takes one key (base64 or hex, id k1) or id:key pairs, the first current', () => {
    expect(parseEncryptionKeys(b64)).toMatchObject({ keys: [{ id: 'k1' }], problems: [] });
    expect(parseEncryptionKeys(hex).keys[0]?.key.length).toBe(32);
    const both = parseEncryptionKeys(`2026:${hex}, 2025:${b64}`);
    expect(both.problems).toEqual([]);
    expect(both.keys.map((k) => k.id)).toEqual(['2026', '2025']);
  });
  it('names what is wrong without repeating the key', () => {
    const short = randomBytes(16).toString('base64');
    const { problems } = parseEncryptionKeys(`a:${short},b:${hex},b:${hex}`);
    expect(problems).toEqual([
      'PLATDESK_ENCRYPTION_KEY: key 1 ("a") must be 32 bytes, as base64 (44 characters) or hex (64 digits)',
      'PLATDESK_ENCRYPTION_KEY: key 3 ("b"): the id is given twice',
    ]);
    expect(problems.join(' ')).not.toContain(short);
    expect(parseEncryptionKeys(`${b64},${hex}`).problems[0]).toMatch(/needs an id/);
  });
});
