import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';

/** What a client sends, relative to the host app's origin. */
export interface WireRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
}

/** What must be identical whichever framework answered. */
export interface Snapshot {
  status: number;
  headers: Record<string, string | null>;
  body: string;
}

const HEADERS_THAT_MATTER = [
  'content-type',
  'cache-control',
  'pragma',
  'allow',
  'www-authenticate',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'vary',
] as const;

export async function call(origin: string, request: WireRequest): Promise<Snapshot> {
  const response = await fetch(`${origin}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    // A stream body goes out chunked, without a content-length.
    ...(request.body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const headers = Object.fromEntries(
    HEADERS_THAT_MATTER.map((name) => [name, response.headers.get(name)]),
  );
  return { status: response.status, headers, body: await response.text() };
}

/** A GET through node:http, which (unlike fetch) lets the caller choose the Host header. */
export function getWithHeaders(
  origin: string,
  path: string,
  headers: Record<string, string>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The members of a public JWK that describe it rather than carry key material. */
const KEY_DESCRIPTION = new Set(['kty', 'crv', 'alg', 'use', 'key_ops']);

/**
 * The snapshot with values that differ on every issue (the access token, its jti) or in every
 * process (the signing keys' material and kid) replaced by placeholders, after checking their
 * shape, and a JSON body's members in one order (runtimes export a JWK's members in different
 * orders), so snapshots of different adapters and runtimes compare equal.
 */
export function withoutRandomValues(snapshot: Snapshot): Snapshot {
  const type = snapshot.headers['content-type'];
  if (!/^application\/(jwk-set\+)?json/.test(type ?? '') || snapshot.body === '') return snapshot;
  const body = JSON.parse(snapshot.body) as Record<string, unknown>;
  for (const field of ['access_token', 'jti'] as const) {
    if (field in body) {
      expect(body[field]).toMatch(/^[\w.-]{16,}$/);
      body[field] = `<${field}>`;
    }
  }
  if (Array.isArray(body.keys)) body.keys = body.keys.map(withoutKeyMaterial);
  return { ...snapshot, body: JSON.stringify(sortedMembers(body)) };
}

function withoutKeyMaterial(key: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(key).map(([name, value]) => {
      if (KEY_DESCRIPTION.has(name)) return [name, value];
      expect(value).toMatch(/^[\w-]{2,}$/);
      return [name, `<${name}>`];
    }),
  );
}

function sortedMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedMembers);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, member]) => [name, sortedMembers(member)]),
  );
}

/** `text` as a body stream of 8 KiB chunks. */
export function chunkedBody(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + 8192));
      offset += 8192;
    },
  });
}
