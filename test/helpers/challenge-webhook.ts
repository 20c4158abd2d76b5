/**
 * A host's enrolment challenge webhook for tests (docs/guides/scep.md): an HTTP server on 127.0.0.1 that
 * verifies every request with the Standard Webhooks reference library (npm `standardwebhooks`) — an
 * independent check of the router's signing — records what it was asked, and answers as `decide`
 * says: a status and a body, or nothing at all (a webhook that hangs).
 */
import * as http from 'http';
import type { AddressInfo } from 'net';
import { Webhook } from 'standardwebhooks';

export interface ChallengeAsked {
  type: string;
  timestamp: string;
  data: {
    protocol: string;
    label: string;
    ca_serial: string;
    challenge: string;
    csr: string;
    subject: { oid: string; value: string }[];
    san: { type: string; value: string }[];
    transaction_id: string | null;
  };
}

export type Decision = { status: number; body: string } | 'hang';

export interface ChallengeWebhookServer {
  url: string;
  /** Requests whose signature verified, in order. */
  asked: ChallengeAsked[];
  /** Requests whose signature did not verify (answered 401). */
  unsigned: number;
  close(): Promise<void>;
}

/** A secret in the form the outgoing webhooks' secrets take (`whsec_` and base64). */
export const CHALLENGE_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 0x5a).toString('base64')}`;

export async function challengeWebhookServer(
  decide: (asked: ChallengeAsked) => Decision,
  secret = CHALLENGE_WEBHOOK_SECRET,
): Promise<ChallengeWebhookServer> {
  const hanging = new Set<http.ServerResponse>();
  const state = { asked: [] as ChallengeAsked[], unsigned: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let asked: ChallengeAsked;
      try {
        asked = new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as ChallengeAsked;
      } catch {
        state.unsigned++;
        res.writeHead(401).end();
        return;
      }
      state.asked.push(asked);
      const decision = decide(asked);
      if (decision === 'hang') hanging.add(res);
      else res.writeHead(decision.status, { 'content-type': 'application/json' }).end(decision.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/challenge`,
    get asked() {
      return state.asked;
    },
    get unsigned() {
      return state.unsigned;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
