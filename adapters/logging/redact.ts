/**
 * What never reaches a log line (docs/operations/logs.md; docs/CONTRIBUTING.md "Never log keys
 * or passwords"): fields named like a credential, key or PIN are replaced whole, whatever they hold,
 * and text that carries a private key (PEM) or an HTTP credential (`Basic …`, `Bearer …`) is cut out
 * of any string. Names decide first because a secret's value has no recognisable shape (a PIN is four
 * digits); the content rules catch what ends up in an error message.
 */

export const REDACTED = '[redacted]';

/** Field names (lower case, without `-` and `_`) that are secret whatever their value. */
const SECRET_NAMES = new Set(['authorization', 'proxyauthorization', 'cookie', 'setcookie', 'key', 'kek', 'pin', 'keybackendoptions']);
/** Parts of field names that make them secret: `password`, `importPassword`, `client_secret`, `privateKey`, `so_pin`… */
const SECRET_PARTS = /password|passwd|passphrase|secret|token|privatekey|keyencryptionkey|apikey|credential|hmac|pin$/;

const PEM_PRIVATE = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(-----END \1PRIVATE KEY-----|$)/g;
const HTTP_CREDENTIAL = /\b(Basic|Bearer|Digest)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

export function isSecretName(name: string): boolean {
  const n = name.toLowerCase().replace(/[-_]/g, '');
  return SECRET_NAMES.has(n) || SECRET_PARTS.test(n);
}

export function redactText(text: string): string {
  return text.replace(PEM_PRIVATE, REDACTED).replace(HTTP_CREDENTIAL, (_, scheme: string) => `${scheme} ${REDACTED}`);
}

const MAX_DEPTH = 8;

/** A copy of `value` fit for a log line: secrets out, errors as plain fields, bytes as their length, no cycles. */
export function redact(value: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  seen.add(value);
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  if (value instanceof Error) {
    out.type = value.name;
    out.message = redactText(value.message);
    if (value.stack) out.stack = redactText(value.stack);
  }
  for (const [name, v] of Object.entries(value)) {
    if (value instanceof Error && (name === 'message' || name === 'stack')) continue;
    out[name] = isSecretName(name) ? REDACTED : redact(v, depth + 1, seen);
  }
  if (value instanceof Error && value.cause !== undefined && !('cause' in out)) out.cause = redact(value.cause, depth + 1, seen);
  return out;
}
