/**
 * Reading request bodies. JSON for platdybw and platdzmd (spec §4); paging-orders accepts what its
 * examples send (multipart form) and also urlencoded forms and JSON, since clients differ.
 */
import type { IncomingMessage } from 'node:http';

/** Far above any legal request (20 waybills, a few form fields); guards against a runaway client. */
const MAX_BODY_BYTES = 1_000_000;

/** Resolves to the body, or null when it is larger than MAX_BODY_BYTES. */
export async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

export type JsonParse = { ok: true; value: unknown } | { ok: false };

export function parseJson(body: Buffer): JsonParse {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Form fields as text, whatever the encoding. JSON scalars become text so that `"page": 2` and
 * `page=2` mean the same; null and nested values are dropped. Returns null for an unreadable body.
 */
export async function readFields(
  body: Buffer,
  contentType: string | undefined,
): Promise<Map<string, string> | null> {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'multipart/form-data') {
    try {
      // The Web Request parser handles boundaries and quoting; a Buffer body needs no duplex.
      const form = await new Request('http://sandbox.invalid/', {
        method: 'POST',
        headers: { 'content-type': contentType ?? '' },
        body: body,
      }).formData();
      const fields = new Map<string, string>();
      for (const [key, value] of form) if (typeof value === 'string') fields.set(key, value);
      return fields;
    } catch {
      return null;
    }
  }
  if (type === 'application/json') {
    const parsed = parseJson(body);
    if (!parsed.ok || !isRecord(parsed.value)) return null;
    const fields = new Map<string, string>();
    for (const [key, value] of Object.entries(parsed.value)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
        fields.set(key, String(value));
      }
    }
    return fields;
  }
  // application/x-www-form-urlencoded, or no content type at all.
  return new Map(new URLSearchParams(body.toString('utf8')));
}
