/** An existing Express app that mounts the CA API beside its own routes (README "Mounting the API in your own app"). */
import express from 'express';
import { createCaApiRouter, knexStore, openDatabase } from '../../lib'; // 'express-ca-api' in your app

void (async () => {
  const store = knexStore(await openDatabase(process.env.DATABASE_URL)); // postgres://… or a PGlite directory
  await store.migrate();
  const app = express();
  app.get('/health', (_req, res) => res.json({ ok: true })); // the host's own routes stay its own
  app.use('/pki', createCaApiRouter({ rest: { enabled: true }, store })); // → /pki/django_ca/api/...
  const server = app.listen(Number(process.env.PORT ?? 8000), () => console.log(`listening on ${JSON.stringify(server.address())}`));
})();
