/** An Express app of a bench, listening on an ephemeral loopback port. */
import type { Express } from 'express';
import type { AddressInfo } from 'net';

export async function serve(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((r) => server.close(() => r())) };
}
