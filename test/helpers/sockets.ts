/** Servers on loopback ports for tests that need real sockets (the ACME challenge validators). */
import * as net from 'net';
import * as os from 'os';

/** Listens on an ephemeral port of `host`; the port. */
export function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

/** Closes the server and the connections it still holds. */
export function closeServer(server: net.Server & { closeAllConnections?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}

/** A port nothing listens on (it was free a moment ago): connections to it are refused. */
export async function unusedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

/** Whether this machine has the IPv6 loopback address (containers often have IPv6 turned off). */
export function hasIpv6Loopback(): boolean {
  return Object.values(os.networkInterfaces()).some((list) => (list ?? []).some((i) => i.family === 'IPv6' && i.address === '::1'));
}
