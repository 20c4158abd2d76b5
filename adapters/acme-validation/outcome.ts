/**
 * Outcomes and the words in them. A problem's `detail` is what cert-manager, lego or certbot show the
 * person whose challenge failed (RFC 8555 §8.2: the challenge's `error`), so it says where the
 * validator looked, what it found and, for network failures, what went wrong in plain words.
 */
import type { ValidationOutcome, ValidationProblem } from '../../lib/ports/acme';

export type ValidationFailure = Extract<ValidationOutcome, { valid: false }>;

export const VALID: ValidationOutcome = { valid: true };

export function failure(type: ValidationProblem['type'], detail: string, retryable: boolean): ValidationFailure {
  return { valid: false, problem: { type, detail }, retryable };
}

export function isFailure(value: unknown): value is ValidationFailure {
  return typeof value === 'object' && value !== null && (value as { valid?: unknown }).valid === false;
}

/** `127.0.0.1:80`, `[::1]:80`: where a connection went. */
export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** Socket and TLS errors of Node, in words a user understands. */
export function socketErrorText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      // Node's "socket hang up" is the peer closing before any response.
      return e.message === 'socket hang up' ? 'connection closed before a response' : 'connection reset by peer';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'EADDRNOTAVAIL':
      return 'address not available';
    case 'EPIPE':
      return 'connection closed';
  }
  if (typeof e?.code === 'string' && e.code.startsWith('HPE_')) return `malformed HTTP response (${e.message})`;
  if (typeof e?.code === 'string' && /SSL|TLS|CERT/.test(e.code)) return `TLS error: ${e.message}`;
  return e?.code ?? e?.message ?? String(error);
}

/** Text found on the wire, quoted for a detail: printable ASCII only, at most `max` characters. */
export function quoted(text: string, max = 100): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > max ? `${printable.slice(0, max)}...` : printable);
}
