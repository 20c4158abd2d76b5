/**
 * A ceiling for issuance on one event loop, measured with the same load client: a bare Express app whose sign route parses the JSON body, verifies the CSR's self-signature, builds and
 * signs the certificate in memory and answers; its order route answers `issued` from a Map. No
 * authentication, no validation, no database, no order runner — so everything between this figure
 * and the end-to-end one is what authentication, validation and durable orders cost.
 */
import { randomBytes } from 'crypto';
import express from 'express';
import { prepareSignRequestJson } from '../lib/api/sign-request-json';
import { policyContextOf } from '../lib/ca/policy/context';
import { signCertificate, type IntentLedger } from '../lib/ca/issuance/sign';
import type { KeyBackends } from '../lib/ca/key-backends';
import { resolveProfiles } from '../lib/ca/profiles';
import type { CaRecord } from '../lib/ports';
import { parseCsr } from '../lib/x509/csr';
import { serve } from './serve';

/** No database: intents are numbered and forgotten (the floor leaves out what durability costs). */
let intents = 0;
const NO_LEDGER: IntentLedger = {
  recordIntent: (intent) =>
    Promise.resolve({ ...intent, id: ++intents, created: new Date(), certificateId: null, failed: null, failure: null }),
  failIntent: () => Promise.resolve(),
};

export interface FloorServer {
  /** Stands in for `{api_root}`: the load client's `issue` job runs against it unchanged. */
  apiRoot: string;
  close(): Promise<void>;
}

export async function startFloorServer(ca: CaRecord, keyBackends: KeyBackends): Promise<FloorServer> {
  const profiles = resolveProfiles({});
  const issued = new Map<string, string>();
  const app = express();
  app.use(express.json());
  app.post('/ca/:serial/sign/', async (req, res) => {
    const body = req.body as { csr: string; subject: unknown };
    const parsedCsr = parseCsr(body.csr, { verify: true });
    const request = prepareSignRequestJson({ csr: parsedCsr, subject: body.subject }, { ca, policy: policyContextOf(ca, []), profiles });
    const certificate = await signCertificate({ keyBackends, profiles, intents: NO_LEDGER }, ca, request, {
      requester: null,
      door: 'rest',
    });
    const slug = randomBytes(6).toString('hex');
    issued.set(slug, certificate.serial);
    const now = new Date().toISOString();
    res.json({ serial: null, created: now, updated: now, slug, status: 'pending' });
  });
  app.get('/ca/:serial/orders/:slug/', (req, res) => {
    const now = new Date().toISOString();
    res.json({ serial: issued.get(req.params.slug) ?? null, created: now, updated: now, slug: req.params.slug, status: 'issued' });
  });
  const { url, close } = await serve(app);
  return { apiRoot: url, close };
}
