/**
 * A raw ACME client for the protocol tests: JWS requests made by hand (RFC 8555 §6.2), so that a
 * test can send what a client library would not — a reused nonce, a wrong URL, `jwk` where `kid`
 * belongs — and read the answer as it came (status, headers, problem document).
 */
import crypto from 'crypto';

export interface WireAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export interface WireKey {
  privateKey: crypto.KeyObject;
  jwk: Record<string, string>;
  alg: string;
}

export function newKey(kind: 'ec' | 'ed25519' | 'ed448' | 'rsa' = 'ec'): WireKey {
  const pair =
    kind === 'ec'
      ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : kind === 'rsa'
        ? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 })
        : kind === 'ed448'
          ? crypto.generateKeyPairSync('ed448')
          : crypto.generateKeyPairSync('ed25519');
  const full = pair.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const jwk: Record<string, string> =
    kind === 'ec'
      ? { kty: 'EC', crv: full.crv, x: full.x, y: full.y }
      : kind === 'rsa'
        ? { kty: 'RSA', n: full.n, e: full.e }
        : { kty: 'OKP', crv: full.crv, x: full.x };
  return { privateKey: pair.privateKey, jwk, alg: kind === 'ec' ? 'ES256' : kind === 'rsa' ? 'RS256' : 'EdDSA' };
}

const b64 = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** A flattened JWS over `payload` (undefined: POST-as-GET) with the given protected header. */
export function signJws(key: WireKey, header: Record<string, unknown>, payload: unknown): Record<string, string> {
  const protectedB64 = b64(JSON.stringify({ alg: key.alg, ...header }));
  const payloadB64 = payload === undefined ? '' : b64(JSON.stringify(payload));
  const input = Buffer.from(`${protectedB64}.${payloadB64}`);
  const signature =
    key.alg === 'ES256'
      ? crypto.sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : crypto.sign(key.alg === 'EdDSA' ? null : 'sha256', input, key.privateKey);
  return { protected: protectedB64, payload: payloadB64, signature: b64(signature) };
}

export async function send(url: string, init: { method?: string; body?: unknown; contentType?: string } = {}): Promise<WireAnswer> {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: init.body === undefined ? {} : { 'Content-Type': init.contentType ?? 'application/jose+json' },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (a certificate chain, an empty body)
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** One account's view of a directory: fetches nonces and signs each request with its key and (once registered) kid. */
export class WireClient {
  kid: string | null = null;
  private nonce: string | null = null;
  directory: Record<string, string> = {};

  constructor(
    readonly directoryUrl: string,
    readonly key: WireKey = newKey(),
  ) {}

  async init(): Promise<this> {
    this.directory = (await send(this.directoryUrl)).body as Record<string, string>;
    return this;
  }

  async freshNonce(): Promise<string> {
    const res = await fetch(this.directory.newNonce, { method: 'HEAD' });
    return res.headers.get('replay-nonce') as string;
  }

  /** POST `payload` (undefined: POST-as-GET) to `url`, signed with `kid` once there is one (or `jwk` when asked). */
  async post(
    url: string,
    payload: unknown,
    options: { useJwk?: boolean; nonce?: string; headerUrl?: string; key?: WireKey } = {},
  ): Promise<WireAnswer> {
    const nonce = options.nonce ?? this.nonce ?? (await this.freshNonce());
    this.nonce = null;
    const key = options.key ?? this.key;
    const header: Record<string, unknown> = { nonce, url: options.headerUrl ?? url };
    if (options.useJwk || !this.kid) header.jwk = key.jwk;
    else header.kid = this.kid;
    const answer = await send(url, { body: signJws(key, header, payload) });
    this.nonce = answer.headers.get('replay-nonce');
    return answer;
  }

  async register(payload: Record<string, unknown> = { termsOfServiceAgreed: true }): Promise<WireAnswer> {
    const answer = await this.post(this.directory.newAccount, payload, { useJwk: true });
    if (answer.status === 201 || answer.status === 200) this.kid = answer.headers.get('location');
    return answer;
  }
}

export function problemType(answer: WireAnswer): string {
  return (answer.body as { type?: string }).type ?? '';
}
