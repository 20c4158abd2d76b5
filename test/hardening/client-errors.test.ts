/**
 * Errors Node's HTTP server answers before any middleware runs — headers too large (an oversized
 * `Authorization` header), a request it cannot parse — get a JSON body from the example host server
 * (`answerClientErrorsAsJson`, docs/operations/hostile-clients-and-outages.md "Errors the HTTP server answers"), not Node's empty one.
 */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { startChildServer, stopChild, type ChildServer } from '../examples/child-server';

let dir: string;
let server: ChildServer;
let port: number;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-errors-'));
  server = await startChildServer({ CA_DATA_DIR: dir });
  port = Number(new URL(server.apiRoot).port);
}, 90_000);
afterAll(async () => {
  await stopChild(server.child);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Send raw bytes; resolve with everything the server sent before it closed the connection. */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => reject(new Error(`no answer; so far: ${answer}`)));
    socket.write(request);
  });
}

function parse(answer: string): { status: number; headers: string; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head, body: JSON.parse(body) };
}

test('an oversized Authorization header: 431 with a JSON body', async () => {
  const huge = `Basic ${'A'.repeat(64 * 1024)}`;
  const res = parse(await raw(`GET /django_ca/api/ca/ HTTP/1.1\r\nHost: x\r\nAuthorization: ${huge}\r\n\r\n`));
  expect(res.status).toBe(431);
  expect(res.headers).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
  expect(res.body).toEqual({ detail: 'Request header fields too large.' });
});

test('a request Node cannot parse: 400 with a JSON body', async () => {
  const res = parse(await raw('GET /django_ca/api/ca/ HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n'));
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ detail: 'Bad request: the HTTP request could not be parsed.' });
});

test('the server goes on serving afterwards', async () => {
  const res = await fetch(`${server.apiRoot}/ca/`);
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ detail: 'Unauthorized' });
});
