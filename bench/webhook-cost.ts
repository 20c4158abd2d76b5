/**
 * bench/api's `webhook` part: issuance with webhooks enabled and no endpoint, next to issuance with
 * an endpoint (every event type) whose receiver accepts connections and never answers, interleaved
 * A B A B in one run on one server, best of each: delivery runs on its own timers and holds no
 * transaction while a request is out, so the ratio should be about 1 (README "Webhooks": within 5 %).
 */
import * as net from 'net';
import type { AddressInfo } from 'net';
import { envKekSecretBox } from '../adapters/keys/secret-box';
import { addWebhook, removeWebhook, webhookStoreOf } from '../lib/webhooks/management';
import type { Store } from '../lib/ports';

export async function measureWebhookCost(
  store: Store,
  kek: string,
  issue: (total: number) => Promise<number>,
  total: number,
): Promise<void> {
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/never`;
  const hooks = webhookStoreOf(store);
  const box = envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: kek })!;
  try {
    await issue(200); // warm up
    let without = 0;
    let withDead = 0;
    for (let round = 0; round < 2; round++) {
      without = Math.max(without, await issue(total));
      const { endpoint } = await addWebhook(hooks, box, { url });
      withDead = Math.max(withDead, await issue(total));
      await removeWebhook(hooks, endpoint.id);
    }
    console.log(
      `issue with webhooks enabled: no endpoint ${without.toFixed(0)} certificates/s; an endpoint that never answers ${withDead.toFixed(0)} certificates/s; ratio ${(withDead / without).toFixed(3)} (target >= 0.95; ${connections} connection(s) to the silent receiver)`,
    );
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
  }
}
