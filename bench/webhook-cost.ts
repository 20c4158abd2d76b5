/**
 * bench/api's `webhook` part: issuance with webhooks enabled and no endpoint, next to issuance with
 * an endpoint (every event type) whose receiver accepts connections and never answers, interleaved
 * A B B A … in one run on one server, best of each: delivery runs on its own timers and holds no
 * transaction while a request is out (docs/operations/webhooks.md), so the ratio should be about 1 (target: within 5 %).
 */
import * as net from 'net';
import type { AddressInfo } from 'net';
import { envKekSecretBox } from '../adapters/keys/secret-box';
import { addWebhook, removeWebhook } from '../lib/webhooks/management';
import type { Store } from '../lib/ports';

/** Interleaved rounds (A B, then B A, …). */
const ROUNDS = Number(process.env.WEBHOOK_ROUNDS ?? 6);

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
  const hooks = store.webhooks;
  const box = envKekSecretBox({ CA_KEY_ENCRYPTION_KEY: kek })!;
  try {
    await issue(200); // warm up
    const without: number[] = [];
    const withDead: number[] = [];
    const withEndpoint = async () => {
      const { endpoint } = await addWebhook(hooks, box, { url });
      withDead.push(await issue(total));
      await removeWebhook(hooks, endpoint.id);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // A B, then B A: the store grows with every certificate, so neither side always runs on the bigger one.
      if (round % 2 === 0) {
        without.push(await issue(total));
        await withEndpoint();
      } else {
        await withEndpoint();
        without.push(await issue(total));
      }
    }
    const best = (xs: number[]) => Math.max(...xs);
    const rounds = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    // The ratio of each round's two neighbouring runs, then their median: a neighbour's burst on a
    // shared machine moves one round's ratio, not the median (best-of alone rewards one lucky run).
    const ratios = withDead.map((w, i) => w / without[i]).sort((a, b) => a - b);
    const mid = ratios.length >> 1;
    const median = ratios.length % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
    console.log(
      `issue with webhooks enabled, best of ${ROUNDS} interleaved rounds: no endpoint ${best(without).toFixed(0)} certificates/s (${rounds(without)}); an endpoint that never answers ${best(withDead).toFixed(0)} certificates/s (${rounds(withDead)}); ratio of the bests ${(best(withDead) / best(without)).toFixed(3)}, median of the rounds' ratios ${median.toFixed(3)} (target >= 0.95; ${connections} connection(s) to the silent receiver)`,
    );
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
  }
}
