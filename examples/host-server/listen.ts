/**
 * How the example server meets its clients: plain HTTP, or HTTPS with a certificate and key of the
 * host's own (TLS_CERT_FILE, TLS_KEY_FILE); and which proxies it believes about the original scheme
 * and host (TRUST_PROXY, Express's `trust proxy` setting). Behind a TLS-terminating proxy, URLs built
 * from the request (`req.protocol`, `req.host` — the ACME directory's, RFC 8555 §7.1.1) must say
 * `https://` and the public host, which only `X-Forwarded-Proto` and `X-Forwarded-Host` tell.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as tls from 'tls';
import type { AddressInfo } from 'net';
import type { Express } from 'express';
import { answerClientErrorsAsJson } from '../../lib';

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

function readPem(name: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new Error(`${name}: cannot read ${file}: ${errorText(e)}`, { cause: e });
  }
}

/** The server's certificate (chain) and key, PEM. */
export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
}

/**
 * TLS_CERT_FILE and TLS_KEY_FILE, read and checked as a pair now, so that a mistake ends the start
 * before anything is opened. HTTPS needs both files; one without the other is a mistake, not a reason
 * to fall back to HTTP.
 */
export function tlsCredentials(certFile: string | undefined, keyFile: string | undefined): TlsCredentials | null {
  if (!certFile && !keyFile) return null;
  if (!certFile || !keyFile) {
    const [given, missing] = certFile ? ['TLS_CERT_FILE', 'TLS_KEY_FILE'] : ['TLS_KEY_FILE', 'TLS_CERT_FILE'];
    throw new Error(`${given} is set but ${missing} is not: set both (PEM files) to serve HTTPS, or neither to serve HTTP.`);
  }
  const credentials = { cert: readPem('TLS_CERT_FILE', certFile), key: readPem('TLS_KEY_FILE', keyFile) };
  try {
    tls.createSecureContext(credentials);
  } catch (e) {
    throw new Error(`TLS_CERT_FILE and TLS_KEY_FILE: ${errorText(e)} (a PEM certificate and its PEM private key)`, { cause: e });
  }
  return credentials;
}

/**
 * TRUST_PROXY as Express takes `trust proxy`: `true`/`false`, a number of hops, or addresses, subnets
 * and names (`loopback`, `uniquelocal`) separated by commas. Unset or empty: Express's default (trust
 * no proxy).
 */
export function trustProxySetting(raw: string | undefined): boolean | number | string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  if (/^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** Express compiles the setting at once, so a bad address fails the start, not a request. */
export function applyTrustProxy(app: Express, raw: string | undefined): void {
  const setting = trustProxySetting(raw);
  if (setting === undefined) return;
  try {
    app.set('trust proxy', setting);
  } catch (e) {
    throw new Error(
      `TRUST_PROXY=${raw}: ${errorText(e)} (give true, false, a number of hops, or addresses, subnets and loopback/linklocal/uniquelocal separated by commas)`,
      { cause: e },
    );
  }
}

/** Node's `listen EADDRINUSE: address already in use 127.0.0.1:8000`, in words that say what to do. */
function portInUse(port: number, cause: Error): Error {
  return new Error(
    `Port ${port} is busy: another process listens on 127.0.0.1:${port} (perhaps an example server started earlier). ` +
      'Stop it, or set PORT to another port (PORT=0 takes any free one).',
    { cause },
  );
}

/** Listen on 127.0.0.1; resolves with the server and its base URL once it accepts connections. */
export async function listen(app: Express, port: number, tls: TlsCredentials | null): Promise<{ server: http.Server; url: string }> {
  // Over HTTPS a client certificate is asked for, never required: EST's simplereenroll authenticates
  // with the certificate being renewed (RFC 7030 §3.3.2); every other client goes on without one.
  const server: http.Server = tls
    ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: false }, app)
    : http.createServer(app);
  answerClientErrorsAsJson(server); // 431/400/408 from Node itself get a JSON body too (docs/reference/differences.md D11)
  await new Promise<void>((resolve, reject) => {
    const failed = (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? portInUse(port, e) : e);
    server.once('error', failed);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', failed);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  // The address it listens on, not `localhost`, which a client may resolve to ::1 first.
  return { server, url: `${tls ? 'https' : 'http'}://127.0.0.1:${actual}` };
}
