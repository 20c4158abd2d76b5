/**
 * The example server's optional modules (docs/guides/getting-started.md): Prometheus metrics with
 * `CA_METRICS=true`, webhook delivery with `CA_WEBHOOKS=true` (both read by lib/settings), and what
 * the server prints about them at start: where the metrics are, how to add a webhook endpoint.
 */
import { parseDatabaseUrl, type CaSettings, type WebhookOptions } from '../../lib';

/**
 * Metrics (CA_METRICS) and webhooks (CA_WEBHOOKS, or `webhooksOption`, the server's option for tests) as router
 * options; webhook secrets are sealed under the key-encryption key the server uses (docs/operations/webhooks.md).
 */
export function optionalModules(webhooksOption: WebhookOptions | undefined, settings: CaSettings, kek: string) {
  const webhooks = webhooksOption ?? (settings.webhooks ? { enabled: true } : undefined);
  return {
    ...(settings.metrics ? { metrics: { enabled: true } } : {}),
    ...(webhooks ? { webhooks, env: { ...process.env, CA_KEY_ENCRYPTION_KEY: kek } } : {}),
  };
}

/** Where the metrics are and how to add a webhook endpoint, when they are on. */
export function operatingLines(o: {
  url: string;
  webhooks: boolean;
  metrics: boolean;
  databaseUrl: string;
  devKekFile: string | null;
}): string[] {
  const lines: string[] = [];
  // The router's default: only scrapes made directly from this machine (docs/operations/metrics.md).
  if (o.metrics) lines.push(`Metrics (Prometheus; scrapes from this machine only): ${o.url}/metrics`);
  if (!o.webhooks) return lines;
  const database = parseDatabaseUrl(o.databaseUrl);
  const shell = (word: string) => (/^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  lines.push('Webhooks: on (docs/operations/webhooks.md). Add an endpoint with ca-admin, on this database and key-encryption key:');
  // The embedded database serves one process at a time (docs/operations/kek-rotation.md).
  if (database.kind === 'pglite-directory') lines.push('  (stop this server first: its embedded database serves one process at a time)');
  if (o.devKekFile) lines.push(`  export CA_KEY_ENCRYPTION_KEY=$(cat ${shell(o.devKekFile)})`);
  // A PostgreSQL URL is not printed: it may hold a password.
  const databaseWord = database.kind === 'pglite-directory' ? `DATABASE_URL=${shell(database.directory)} ` : '';
  lines.push(`  ${databaseWord}npx ca-admin add_webhook https://receiver.example/ca   # prints its id and signing secret`);
  return lines;
}
