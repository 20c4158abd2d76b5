/**
 * A body over its limit is refused, and the client reads the refusal (lib/http/lingering-close.ts,
 * RFC 9112 §9.6): the connection closes gracefully after the answer — on every way in that reads a
 * body (the REST API's 413, the OCSP responder, ACME) — while a client that keeps sending is still
 * cut off. Real servers and Node's own HTTP client, which (unlike curl) keeps writing its body while
 * the answer arrives: before the fix, the server's reset destroyed the answer (`write EPIPE`).
 */
import * as http from 'http';
import * as net from 'net';
import { ALL_PERMISSIONS } from '../../lib/ports';
import { LINGER_MAX_MS } from '../../lib/http/lingering-close';
import { startAcmeServer, type AcmeFixture } from '../acme/fixture';
import { authHeader, buildApp, hashPassword, memoryUserStore, type TestApp } from '../helpers/http';
import { closeServer, listen } from '../helpers/sockets';

const MiB = 1024 * 1024;

interface Answer {
  status: number;
  connection: string | undefined;
  body: Buffer;
}

/** POST `size` bytes in one write (with Content-Length) and wait for the whole answer; an error rejects. */
function postLarge(url: string, size: number, headers: http.OutgoingHttpHeaders, agent: http.Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'Content-Length': size } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(Buffer.alloc(size, 0x20));
  });
}

/**
 * POST `body` over a raw socket, as a client that reads its answer only once it has sent its whole
 * body (RFC 9112 §9.6 is about this one): a server that closes with the body still arriving resets
 * the connection, and the answer waiting in the client's receive buffer is lost with it. The status,
 * the head and the body of the answer, read to the server's close.
 */
function sendThenRead(url: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; head: string; body: Buffer }> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.pause();
    const head = Object.entries({ Host: `${hostname}:${port}`, ...headers, 'Content-Length': String(body.length) })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST ${pathname} HTTP/1.1\r\n${head}\r\n`);
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.write(body, (error) => {
      if (error) return reject(error);
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => {
        const answer = Buffer.concat(chunks);
        const end = answer.indexOf('\r\n\r\n');
        const text = answer.subarray(0, end).toString('latin1');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0), head: text, body: answer.subarray(end + 4) });
        socket.destroy();
      });
      socket.resume();
    });
  });
}

/**
 * POST a body that never ends, over a raw socket (an HTTP client stops writing once its answer is
 * complete; this one goes on until the server cuts it off): chunked, written as fast as the socket
 * takes it; or, with `pauseMs`, 4 MiB and then 16 bytes per `pauseMs`. The status of the answer (0
 * if none came) and how long the server took to close the connection.
 */
function postEndless(url: string, headers: Record<string, string>, pauseMs = 0): Promise<{ status: number; elapsedMs: number }> {
  const { hostname, port, pathname } = new URL(url);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    let answer = '';
    let closed = false;
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      if (answer.length < 1000) answer += text;
    });
    socket.on('error', () => undefined); // EPIPE/ECONNRESET once cut off: 'close' follows
    socket.on('close', () => {
      closed = true;
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? 0), elapsedMs: Date.now() - started });
    });
    const head = Object.entries({ Host: `${hostname}:${port}`, ...headers, 'Transfer-Encoding': 'chunked' })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`POST ${pathname} HTTP/1.1\r\n${head}\r\n`);
    const chunk = (size: number): Buffer =>
      Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), Buffer.alloc(size, 0x20), Buffer.from('\r\n')]);
    const big = chunk(64 * 1024);
    const small = chunk(16);
    const flood = (): void => {
      while (!closed && !socket.destroyed) if (!socket.write(big)) return void socket.once('drain', flood);
    };
    const trickle = (): void => {
      if (closed || socket.destroyed) return;
      socket.write(small);
      setTimeout(trickle, pauseMs);
    };
    if (!pauseMs) flood();
    else socket.write(Buffer.concat(Array(64).fill(big)), trickle);
  });
}

describe('the REST API: a body over bodyLimit', () => {
  let t: TestApp;
  let server: http.Server;
  let url: string;
  const auth = authHeader('admin', 'secret');

  beforeAll(async () => {
    const store = memoryUserStore();
    await store.createUser('admin', hashPassword('secret'), [...ALL_PERMISSIONS]);
    t = buildApp({ enableRestApi: true, store });
    server = http.createServer(t.app);
    url = `http://127.0.0.1:${await listen(server)}/django_ca/api/ca/AB/sign/`;
  });

  afterAll(async () => {
    await closeServer(server);
    await t.close();
  });

  test("a 16 MiB body from Node's HTTP client gets the 413 JSON, 20 times of 20", async () => {
    const keepAlive = new http.Agent({ keepAlive: true });
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      // Half without keep-alive (`Connection: close` from the client), half on a keep-alive agent.
      const agent = i % 2 ? keepAlive : false;
      const answer = await postLarge(url, 16 * MiB, { ...auth, 'Content-Type': 'application/json' }, agent).then(
        ({ status, connection, body }) => `${status} ${connection} ${body.toString('utf8')}`,
        (error: Error) => error.message,
      );
      outcomes.push(answer);
    }
    keepAlive.destroy();
    expect(outcomes).toEqual(Array(20).fill('413 close {"detail":"Request body is larger than 2621440 bytes"}'));
  });

  test('a client that reads only after sending its 16 MiB gets the 413 JSON, then the close', async () => {
    const answer = await sendThenRead(
      url,
      { ...auth, 'Content-Type': 'application/json', Connection: 'close' },
      Buffer.alloc(16 * MiB, 0x20),
    );
    expect(answer.status).toBe(413);
    expect(answer.head).toMatch(/\r\nConnection: close(\r\n|$)/i);
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ detail: 'Request body is larger than 2621440 bytes' });
  });

  test('a body that never ends gets the 413, then is cut off after LINGER_MAX_BYTES more', async () => {
    const { status, elapsedMs } = await postEndless(url, { ...auth, 'Content-Type': 'application/json' });
    expect(status).toBe(413);
    // Cut off by the byte bound, long before the time limit (64 MiB on loopback take well under a second).
    expect(elapsedMs).toBeLessThan(LINGER_MAX_MS);
  });

  test('a body that trickles on forever gets the 413, then is cut off after LINGER_MAX_MS', async () => {
    const { status, elapsedMs } = await postEndless(url, { ...auth, 'Content-Type': 'application/json' }, 50);
    expect(status).toBe(413);
    expect(elapsedMs).toBeGreaterThanOrEqual(LINGER_MAX_MS - 100);
    expect(elapsedMs).toBeLessThan(LINGER_MAX_MS + 5000);
  }, 30_000);
});

describe('OCSP and ACME: a body over their limits', () => {
  let acme: AcmeFixture;

  beforeAll(async () => {
    acme = await startAcmeServer({ name: 'pglite', url: 'memory://' });
  });

  afterAll(async () => {
    await acme.close();
  });

  test('a 20 MiB OCSP POST with Connection: close gets its malformedRequest answer', async () => {
    const url = `${acme.base}/django_ca/ocsp/${acme.ca.serial}/cert/`;
    const headers = { 'Content-Type': 'application/ocsp-request', Connection: 'close' };
    // OCSPResponse ::= SEQUENCE { responseStatus malformedRequest (1) }
    const malformedRequest = '30030a0101';
    const answer = await sendThenRead(url, headers, Buffer.alloc(20 * MiB, 0x20));
    expect([answer.status, answer.body.toString('hex')]).toEqual([200, malformedRequest]);
    for (let i = 0; i < 20; i++) {
      const { status, body } = await postLarge(url, 20 * MiB, headers, false);
      expect([status, body.toString('hex')]).toEqual([200, malformedRequest]);
    }
  });

  test('a 16 MiB ACME POST gets its problem document', async () => {
    const url = `${acme.base}/django_ca/acme/${acme.ca.serial}/new-order/`;
    const headers = { 'Content-Type': 'application/jose+json', Connection: 'close' };
    const answer = await sendThenRead(url, headers, Buffer.alloc(16 * MiB, 0x20));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed' });
    for (let i = 0; i < 20; i++) {
      const { status, body } = await postLarge(url, 16 * MiB, headers, false);
      expect(status).toBe(400);
      expect(JSON.parse(body.toString('utf8'))).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed' });
    }
  });

  test('an endless ACME POST is cut off', async () => {
    const { status, elapsedMs } = await postEndless(`${acme.base}/django_ca/acme/${acme.ca.serial}/new-order/`, {
      'Content-Type': 'application/jose+json',
    });
    expect(status).toBe(400);
    expect(elapsedMs).toBeLessThan(LINGER_MAX_MS);
  });
});
