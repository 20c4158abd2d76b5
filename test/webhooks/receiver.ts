/**
 * A real webhook receiver for tests: an HTTP server that verifies every request with the Standard
 * Webhooks reference library (npm `standardwebhooks`), as a host's receiver would, and records what
 * it accepted. It can be taken down and brought back on the same port, or made to refuse.
 */
import * as http from 'http';
import * as net from 'net';
import type { AddressInfo } from 'net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  /** `webhook-id` */
  id: string;
  type: string;
  data: Record<string, unknown> & { event_id: number; serial: string | null };
}

export class Receiver {
  readonly received: Received[] = [];
  /** Every request that reached the receiver. */
  requests = 0;
  /** Requests whose signature did not verify (answered 401). */
  rejected = 0;
  /** Answer this status instead of 204 (a receiver that is up but failing). */
  failWith: number | null = null;
  private server: http.Server | null = null;
  private port = 0;
  secret: string;

  constructor(secret = '') {
    this.secret = secret;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests++;
        if (this.failWith !== null) {
          res.writeHead(this.failWith).end();
          return;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        try {
          const payload = new Webhook(this.secret).verify(body, req.headers as Record<string, string>) as Omit<Received, 'id'>;
          this.received.push({ id: String(req.headers['webhook-id']), type: payload.type, data: payload.data });
          res.writeHead(204).end();
        } catch {
          this.rejected++;
          res.writeHead(401).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Down: the port refuses connections until `start()` again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async waitFor(count: number, timeoutMs = 10_000): Promise<Received[]> {
    const until = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > until) throw new Error(`received ${this.received.length} of ${count} webhooks`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.received;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver that never answers: it accepts connections and stays silent. */
export async function silentServer(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/never`,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
