/**
 * One issuance policy for every way in: the same requests through every door of one CA — the REST
 * API's sign, ACME, EST, SCEP, the admin interface's Issue page, `ca-admin sign_cert`, and resign
 * (REST and `ca-admin resign_cert`, of a certificate of the request stored from before the policy) —
 * must end the same way. One table, `ROWS`: each request, the rule that refuses it (or that it is
 * issued), and the doors that cannot express it.
 *
 * "Refused" is the door's own form of a refusal (doors/outcome.ts) carrying a message that names the
 * rule (where the door carries text), and nothing stored: no certificate of the CA, no order issued.
 * "Issued" is a certificate that `openssl verify` accepts up to the root, through the intermediate's
 * nameConstraints; "cut" that its notAfter is the CA's own.
 *
 * The hierarchy (world.ts): a root, `constrained` (nameConstraints: permitted DNS example.com,
 * excluded DNS excluded.example.com; a year), `short` (the same constraints, 20 days left), and a
 * `disabled` and a `revoked` one, and `narrowed` (the constraints of `constrained`, and an issuance
 * policy of its own, world.ts `NARROWED_POLICY`: RSA and P-384 keys, names under corp.example.com but
 * not under blocked.corp.example.com).
 */
import { execFileSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { TABLES } from '../../adapters/store/knex/tables';
import { testDatabaseTargets } from '../helpers/database';
import { acme } from './doors/acme';
import { admin } from './doors/admin';
import { cliResign, cliSign } from './doors/cli';
import { est } from './doors/est';
import type { Answer, Door } from './doors/outcome';
import { restResign, restSign } from './doors/rest';
import { scep } from './doors/scep';
import type { IssuanceRequest } from './requests';
import { startWorld, type World } from './world';

jest.setTimeout(60_000);

const DOORS = {
  REST: restSign,
  ACME: acme,
  EST: est,
  SCEP: scep,
  admin,
  CLI: cliSign,
  'REST resign': restResign,
  'CLI resign': cliResign,
} satisfies Record<string, Door>;
type DoorName = keyof typeof DOORS;

/**
 * The form of a refusal by the policy, per door (`how` of doors/outcome.ts): the REST API's 422
 * JSON, before any order exists (docs/reference/differences.md D3), an ACME problem at new-order or finalize, EST's 400 in
 * plain text, a SCEP FAILURE badRequest with the reason as failInfoText, the admin form again with a
 * 400, ca-admin's non-zero exit. (A disabled or revoked CA is refused earlier, in other forms: a 404,
 * a 403, GetCACert's 404.)
 */
const POLICY_FORM: Record<DoorName, RegExp> = {
  REST: /^422$/,
  ACME: /^\w+ at (new-order|finalize)$|^order invalid after finalize/,
  EST: /^400$/,
  SCEP: /^FAILURE failInfo 2$/,
  admin: /^400$/,
  CLI: /^exit [1-9]/,
  'REST resign': /^422$/,
  'CLI resign': /^exit [1-9]/,
};

/** Each rule of the policy, and what a refusal by it says (in the doors that carry text). */
const RULES = {
  key: { text: /public key/i, acme: ['badPublicKey'] },
  // A key the CA will not certify, as for weak keys (Let's Encrypt answers a blocked key so too).
  caKey: { text: /key of (the )?certificate authority/i, acme: ['badPublicKey'] },
  nameConstraints: { text: /name constraints/i, acme: ['rejectedIdentifier', 'badCSR'] },
  /** The issuing CA's own policy (docs/guides/issuance-policy.md): its keys, its names allowed and denied. */
  caKeys: { text: /public key is not accepted by the issuance policy of certificate authority narrowed/, acme: ['badPublicKey'] },
  caNamesDenied: {
    text: /denied by the issuance policy of certificate authority narrowed \(deny blocked\.corp\.example\.com\)/,
    acme: ['rejectedIdentifier'],
  },
  caNamesNotAllowed: {
    text: /not among the names the issuance policy of certificate authority narrowed allows \(allow corp\.example\.com\)/,
    acme: ['rejectedIdentifier'],
  },
  controlCharacter: { text: /control character/i, acme: ['rejectedIdentifier', 'badCSR'] },
  unusableCn: { text: /cannot be in a certificate/i, acme: ['rejectedIdentifier', 'badCSR'] },
  validity: { text: /expires/i, acme: null },
  /** Refused today already, by rules kept as they are (the issue's "consistent today"): any text. */
  kept: { text: null, acme: null },
} as const;
type Rule = keyof typeof RULES;

type Expected =
  | { outcome: 'refused'; rule: Rule }
  /** `cut`: notAfter is the CA's own; `days`: notAfter is that many days from now. */
  | { outcome: 'issued'; cut?: boolean; days?: number };

interface Row {
  name: string;
  request: IssuanceRequest;
  expected: Expected;
  /** Doors that cannot express the request ("—" in the issue's table), with why. */
  cannot?: Partial<Record<DoorName, string>>;
  /**
   * Doors known to fail this row for a reason outside the policy, with the reason: the cell is
   * asserted to fail (`test.failing`), so that it is flipped when that is fixed.
   */
  knownFailing?: Partial<Record<DoorName, string>>;
}

const NO_VALIDITY = { EST: 'EST cannot ask for a validity', SCEP: 'SCEP cannot ask for a validity' } as const;
const CN_ONLY_NOT_ACME = { ACME: 'an ACME CSR names only identifiers of the order' } as const;
const NO_BROKEN_STORED_CSR = {
  'REST resign': 'no certificate is issued from a CSR whose signature fails (openssl refuses to sign it as well)',
  'CLI resign': 'no certificate is issued from a CSR whose signature fails (openssl refuses to sign it as well)',
} as const;

const good = (name: string, extra: Partial<IssuanceRequest> = {}): IssuanceRequest => ({
  ca: 'constrained',
  key: 'rsa-2048',
  cn: name,
  sans: [`DNS:${name}`],
  ...extra,
});

/** The table: requests × what every door must do with them. */
const ROWS: Row[] = [
  // Controls: issued everywhere, verified by openssl through the name constraints.
  { name: 'a good request (RSA-2048, SAN inside the constraints)', request: good('good-rsa.example.com'), expected: { outcome: 'issued' } },
  {
    name: 'a good request (EC P-256, SAN inside the constraints)',
    request: good('good-ec.example.com', { key: 'ec-p256' }),
    expected: { outcome: 'issued' },
  },
  // Keys
  {
    name: 'a CSR with an RSA-1024 key',
    request: good('rsa1024.example.com', { key: 'rsa-1024' }),
    expected: { outcome: 'refused', rule: 'key' },
  },
  {
    name: 'a CSR with an RSA-512 key',
    request: good('rsa512.example.com', { key: 'rsa-512' }),
    expected: { outcome: 'refused', rule: 'key' },
  },
  {
    name: 'a CSR with an EC P-192 key',
    request: good('p192.example.com', { key: 'ec-p192' }),
    expected: { outcome: 'refused', rule: 'key' },
  },
  // The key of a CA of the store
  {
    name: "a CSR carrying the issuing CA's own key",
    request: good('own-key.example.com', { key: 'issuing-ca-key' }),
    expected: { outcome: 'refused', rule: 'caKey' },
  },
  {
    name: "a CSR carrying the root's key",
    request: good('root-key.example.com', { key: 'root-key' }),
    expected: { outcome: 'refused', rule: 'caKey' },
  },
  // Name constraints of the issuing CA
  {
    name: "a SAN in the CA certificate's excluded subtree",
    request: good('www.excluded.example.com'),
    expected: { outcome: 'refused', rule: 'nameConstraints' },
  },
  {
    name: "a SAN outside the CA certificate's permitted subtree",
    request: good('www.example.org'),
    expected: { outcome: 'refused', rule: 'nameConstraints' },
  },
  {
    name: 'one SAN inside the constraints and one outside',
    request: good('in.example.com', { sans: ['DNS:in.example.com', 'DNS:out.example.net'] }),
    expected: { outcome: 'refused', rule: 'nameConstraints' },
  },
  // The issuing CA's own policy: keys narrowed, names allowed and denied (world.ts, NARROWED_POLICY)
  {
    name: 'narrowed: RSA-2048, a SAN under the allowed suffix',
    request: good('www.corp.example.com', { ca: 'narrowed' }),
    expected: { outcome: 'issued' },
  },
  {
    name: 'narrowed: EC P-384, the curve it accepts',
    request: good('p384.corp.example.com', { ca: 'narrowed', key: 'ec-p384' }),
    expected: { outcome: 'issued' },
  },
  {
    name: 'narrowed: EC P-256, a curve it does not accept',
    request: good('p256.corp.example.com', { ca: 'narrowed', key: 'ec-p256' }),
    expected: { outcome: 'refused', rule: 'caKeys' },
  },
  {
    name: 'narrowed: a SAN under the denied suffix',
    request: good('www.blocked.corp.example.com', { ca: 'narrowed' }),
    expected: { outcome: 'refused', rule: 'caNamesDenied' },
  },
  {
    name: 'narrowed: a SAN inside the name constraints, outside the allowed suffix',
    request: good('www.example.com', { ca: 'narrowed' }),
    expected: { outcome: 'refused', rule: 'caNamesNotAllowed' },
  },
  {
    name: 'narrowed: a CN host name outside the allowed suffix, the SAN inside',
    request: good('cn.corp.example.com', { ca: 'narrowed', cn: 'cn.example.com' }),
    expected: { outcome: 'refused', rule: 'caNamesNotAllowed' },
    cannot: CN_ONLY_NOT_ACME,
  },
  // The subject
  {
    name: 'CN 0.0.0.0 and no SAN',
    request: { ca: 'constrained', key: 'rsa-2048', cn: '0.0.0.0' },
    expected: { outcome: 'refused', rule: 'unusableCn' },
    cannot: CN_ONLY_NOT_ACME,
  },
  {
    name: 'a CN with ESC (a terminal escape sequence)',
    request: good('esc.example.com', { cn: 'Device \u001b[2J one' }),
    expected: { outcome: 'refused', rule: 'controlCharacter' },
    cannot: CN_ONLY_NOT_ACME,
  },
  {
    name: 'a CN with BEL',
    request: good('bel.example.com', { cn: 'Device \u0007 two' }),
    expected: { outcome: 'refused', rule: 'controlCharacter' },
    cannot: CN_ONLY_NOT_ACME,
  },
  {
    name: 'a CN with a C1 control character (CSI)',
    request: good('csi.example.com', { cn: 'Device \u009b2J three' }),
    expected: { outcome: 'refused', rule: 'controlCharacter' },
    cannot: CN_ONLY_NOT_ACME,
  },
  // Validity
  {
    name: '60 days asked, the CA has 20 left',
    request: good('long.example.com', { ca: 'short', days: 60 }),
    expected: { outcome: 'refused', rule: 'validity' },
    cannot: NO_VALIDITY,
  },
  {
    name: 'nothing asked, the CA has 20 left: issued, cut to the CA’s end',
    request: good('cut.example.com', { ca: 'short' }),
    expected: { outcome: 'issued', cut: true },
  },
  {
    name: '10 days asked, the CA has 20 left',
    request: good('ten.example.com', { ca: 'short', days: 10 }),
    expected: { outcome: 'issued', days: 10 },
    cannot: NO_VALIDITY,
  },
  // Kept as they are today (refused everywhere)
  {
    name: 'a CSR whose self-signature does not verify',
    request: good('broken.example.com', { badSignature: true }),
    expected: { outcome: 'refused', rule: 'kept' },
    cannot: NO_BROKEN_STORED_CSR,
  },
  {
    name: 'a SAN IP 0.0.0.0',
    request: good('zero.example.com', { sans: ['DNS:zero.example.com', 'IP:0.0.0.0'] }),
    expected: { outcome: 'refused', rule: 'kept' },
  },
  {
    name: 'a SAN IP 255.255.255.255 (broadcast)',
    request: good('bcast.example.com', { sans: ['DNS:bcast.example.com', 'IP:255.255.255.255'] }),
    expected: { outcome: 'refused', rule: 'kept' },
  },
  {
    name: 'a SAN IPv4-mapped IPv6 address',
    request: good('mapped.example.com', { sans: ['DNS:mapped.example.com', 'IP:::ffff:192.0.2.1'] }),
    expected: { outcome: 'refused', rule: 'kept' },
  },
  {
    name: 'a SAN DNS localhost.',
    request: good('local.example.com', { sans: ['DNS:local.example.com', 'DNS:localhost.'] }),
    expected: { outcome: 'refused', rule: 'kept' },
  },
  {
    name: 'a SAN with bad punycode',
    request: good('puny.example.com', { sans: ['DNS:puny.example.com', 'DNS:xn--a.example.com'] }),
    expected: { outcome: 'refused', rule: 'kept' },
  },
  { name: 'a disabled CA', request: good('disabled.example.com', { ca: 'disabled' }), expected: { outcome: 'refused', rule: 'kept' } },
  { name: 'a revoked CA', request: good('revoked.example.com', { ca: 'revoked' }), expected: { outcome: 'refused', rule: 'kept' } },
  {
    name: 'HTML in a DNS SAN',
    request: good('html.example.com', { sans: ['DNS:html.example.com', 'DNS:<b>x</b>.example.com'] }),
    expected: { outcome: 'refused', rule: 'kept' },
  },
];

interface Cell {
  row: Row;
  door: DoorName;
}

const CELLS: Cell[] = ROWS.flatMap((row) =>
  (Object.keys(DOORS) as DoorName[]).filter((door) => !row.cannot?.[door]).map((door) => ({ row, door })),
);

describe.each(testDatabaseTargets())('one issuance policy for every way in, on $name', (target) => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld(target);
  }, 120_000);
  afterAll(() => world?.close());

  /**
   * What the store holds of a CA: the certificates issued to requesters (not its own delegates': the
   * SCEP RA certificate made at the first GetCACert is autogenerated), REST orders issued, ACME orders valid.
   */
  async function stored(caId: number): Promise<{ certificates: number; ordersIssued: number; acmeValid: number }> {
    const count = async (table: string, where: Record<string, unknown>) =>
      Number((await world.db.knex(table).where(where).count({ n: '*' }))[0].n);
    return {
      certificates: await count(TABLES.certificates, { ca_id: caId, autogenerated: false }),
      ordersIssued: await count(TABLES.orders, { ca_id: caId, status: 'issued' }),
      acmeValid: await count(TABLES.acmeOrders, { ca_id: caId, status: 'valid' }),
    };
  }

  function verify(pem: string, caPem: string): string {
    const n = crypto.randomBytes(4).toString('hex');
    const files = { root: `v-${n}-root.pem`, ca: `v-${n}-ca.pem`, leaf: `v-${n}-leaf.pem` };
    fs.writeFileSync(path.join(world.dir, files.root), world.root.pem);
    fs.writeFileSync(path.join(world.dir, files.ca), caPem);
    fs.writeFileSync(path.join(world.dir, files.leaf), pem);
    try {
      return execFileSync('openssl', ['verify', '-CAfile', files.root, '-untrusted', files.ca, files.leaf], {
        cwd: world.dir,
        stdio: ['pipe', 'pipe', 'pipe'],
      }).toString();
    } catch (e) {
      const err = e as { stdout?: Buffer; stderr?: Buffer };
      return `${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}`;
    }
  }

  /** What a door answered, in one line: `refused (422): <text>`, `issued (303)`, `unexpected (500 ...)`. */
  const said = (answer: Answer): string =>
    `${answer.result} (${answer.how})${answer.result === 'refused' && answer.text !== null ? `: ${answer.text}` : ''}`;

  async function check({ row, door }: Cell): Promise<void> {
    const ca = world.cas[row.request.ca];
    const before = await stored(ca.record.id);
    const started = Date.now();
    const answer: Answer = await DOORS[door](world, row.request);
    const after = await stored(ca.record.id);
    const prepared = answer.prepared ?? 0;
    const { expected } = row;

    if (expected.outcome === 'refused') {
      // The answer first, in words, so that a failure says what the door did.
      expect(said(answer)).toMatch(/^refused /);
      if (answer.result !== 'refused') return;
      const rule = RULES[expected.rule];
      if (expected.rule !== 'kept') expect(answer.how).toMatch(POLICY_FORM[door]);
      // Every door carries text, SCEP too: a FAILURE's failInfoText (RFC 8894 §3.2.1.4.5).
      if (rule.text) expect(answer.text ?? '').toMatch(rule.text);
      if (door === 'ACME' && rule.acme) expect(rule.acme).toContain(answer.acmeType);
      expect(after).toEqual({ ...before, certificates: before.certificates + prepared });
      return;
    }

    expect(said(answer)).toMatch(/^issued /);
    if (answer.result !== 'issued') return;
    expect(verify(answer.pem, ca.pem)).toMatch(/: OK\n$/);
    expect(after.certificates).toBe(before.certificates + prepared + 1);
    const leaf = new crypto.X509Certificate(answer.pem);
    const notAfter = new Date(leaf.validTo).getTime();
    const caEnd = ca.record.notAfter.getTime();
    expect(notAfter).toBeLessThanOrEqual(caEnd);
    if (expected.cut) expect(caEnd - notAfter).toBeLessThan(60_000);
    if (expected.days !== undefined) {
      const asked = started + expected.days * 86_400_000;
      expect(Math.abs(notAfter - asked)).toBeLessThan(2 * 60_000);
    }
  }

  for (const cell of CELLS) {
    const known = cell.row.knownFailing?.[cell.door];
    const title = `${cell.row.name} × ${cell.door}: ${cell.row.expected.outcome}${known ? ` — ${known}` : ''}`;
    (known ? test.failing : test)(title, () => check(cell));
  }
});
