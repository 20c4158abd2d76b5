/**
 * A client that hangs up in the middle of its upload (lib/http/client-gone.ts): the client's doing,
 * not a failure of the server. Over raw sockets, on the ways in that read a body (EST, SCEP, the REST
 * API, ACME): one warning per abandoned request, with the client's address, method and path and no
 * stack trace; nothing at error level.
 */
import * as http from 'http';
import * as net from 'net';
import type { LogFields, Logger } from '../../lib/ports';
import { API, setupApi, type ApiFixture } from '../api/fixture';
import { closeServer, listen } from '../helpers/sockets';

interface Line {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields: LogFields | undefined;
}

const lines: Line[] = [];
const capture = (level: Line['level']) => (message: string, fields?: LogFields) => void lines.push({ level, message, fields });
const logger: Logger = { info: capture('info'), warn: capture('warn'), error: capture('error'), child: () => logger };

let f: ApiFixture;
let server: http.Server;
let port: number;

beforeAll(async () => {
  f = await setupApi(undefined, {
    logger,
    est: { enabled: true, ca: 'child' },
    scep: { enabled: true, ca: 'child', challenge: 'scep-challenge' },
    acme: { enabled: true },
  });
  await f.store.updateCa(f.ca.id, { acmeEnabled: true });
  server = http.createServer(f.app);
  port = await listen(server);
});
afterAll(async () => {
  await closeServer(server);
  await f?.close();
});

/** Send the head and a part of a body that promises more, wait for the server to be reading it, hang up. */
async function abandonUpload(method: string, path: string, headers: Record<string, string>): Promise<void> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  const head = Object.entries({ Host: `127.0.0.1:${port}`, ...headers, 'Content-Length': '1000' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${'A'.repeat(64)}`);
  await new Promise((r) => setTimeout(r, 800)); // authentication (bcrypt) done, the body being read
  socket.destroy();
}

async function linesAfter(count: number): Promise<Line[]> {
  const end = Date.now() + 5000;
  while (lines.length < count && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200)); // and nothing more comes
  return lines.splice(0);
}

test.each([
  ['EST simpleenroll', 'POST', '/.well-known/est/simpleenroll', () => ({ ...f.auth('alice'), 'Content-Type': 'application/pkcs10' })],
  ['SCEP PKIOperation', 'POST', '/django_ca/scep?operation=PKIOperation', () => ({ 'Content-Type': 'application/x-pki-message' })],
  ['the REST API (sign)', 'POST', '', () => ({ ...f.auth('alice'), 'Content-Type': 'application/json' })],
  ['ACME (new-account)', 'POST', 'acme', () => ({ 'Content-Type': 'application/jose+json' })],
])('%s: one warning with the address, no error, no stack', async (_way, method, path, headers) => {
  lines.splice(0);
  const url = path === 'acme' ? `/django_ca/acme/${f.ca.serial}/new-account/` : path || `${API}/ca/${f.ca.serial}/sign/`;
  await abandonUpload(method, url, headers());
  const logged = await linesAfter(1);
  expect(logged.filter((l) => l.level === 'error')).toEqual([]);
  expect(logged).toEqual([
    {
      level: 'warn',
      message: 'express-ca-api: the client closed the connection before its request was read',
      fields: { method, path: url.split('?')[0], address: '127.0.0.1' },
    },
  ]);
  expect(JSON.stringify(logged)).not.toMatch(/ECONNRESET|stack|\n\s+at /);
});
