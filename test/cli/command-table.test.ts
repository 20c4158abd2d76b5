/**
 * One table row per `ca-admin` command, the commands enumerated from the commander program itself
 * (a new command without a row fails here). docs/reference/cli.md:
 * - a command that changes something says so in exactly one line on stdout — or, where stdout is what
 *   it made (a certificate, a serial, a secret), prints that and nothing else;
 * - a command that only reads leaves the events (the audit log) as they were;
 * - every argument or option that names a stored thing (CA, certificate, user, webhook endpoint),
 *   given an unknown one, fails with exit 1 and one line in one shape: `Error: <value>: <Thing> not found.`
 *   — nothing written.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Readable } from 'stream';
import type { Command } from 'commander';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { CommandContext } from '../../lib/cli/context';
import { caAdminProgram } from '../../lib/cli/run';
import type { Action } from '../../lib/cli/commands/shared';
import { hasEventLog, hasJobStore, type Store } from '../../lib/ports';
import { parseCsr } from '../../lib/x509/csr';
import { testDatabaseTargets } from '../helpers/database';
import { migratedPgliteSnapshot } from '../helpers/pglite-snapshot';
import { cliFixture, TEST_KEK, type CliResult } from './helpers';
import { openssl, opensslCsr } from './openssl';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as { pg_trgm: Extension };

/** Names of arguments and options that look up a stored thing (others name a new thing, a file, a filter). */
const LOOKUP_ARGUMENTS = new Set(['ca', 'serial', 'serials', 'cert', 'username', 'id']);
const LOOKUP_OPTIONS = new Set(['--ca', '--parent', '--exclude']);

/** Unknown values, one per kind of thing, and the one error shape they must produce. */
const NO_CA = 'NoSuchCA';
const NO_CERT = 'no-such.example.com';
const NO_USER = 'nobody';
const NO_WEBHOOK = '999';
const THINGS = '(Certificate authority|Certificate|User|Webhook endpoint|Enrolment request|Job)';

/** What the fixture made, for the rows' argument lists. */
interface State {
  dir: string;
  csr: string;
  leaf: string;
  webhook: string;
  /** A failed background job, for retry_job. */
  failedJob: string;
  extKey: string;
  extCert: string;
  extLeaf: string;
  /** Two enrolment requests waiting for approval: one to approve, one to refuse. */
  waiting: [string, string];
  /** An embedded database directory, for backup (the fixture's own database may be in memory). */
  embedded: string;
}

type Use =
  /** Changes something: exactly one line on stdout, matching. */
  | {
      kind: 'confirms';
      argv: (s: State) => string[];
      line: RegExp;
      stdin?: string;
      env?: Record<string, string> | ((s: State) => Record<string, string>);
      /** Up to date already: nothing to record (migrate). */
      noEvent?: true;
    }
  /** Changes something, and stdout is what it made (nothing else). */
  | { kind: 'data'; argv: (s: State) => string[]; output: RegExp }
  /** Changes nothing: the events stay as they were. */
  | { kind: 'reads'; argv: (s: State) => string[] };

interface Row {
  command: string;
  use: Use;
  /** Each lookup argument (`<ca>`) or option (`--ca`) of the command: an invocation naming an unknown one. */
  unknown?: Record<string, (s: State) => string[]>;
  /** Lookup-named arguments that name a new thing instead (create_api_user's `<username>`). */
  newNames?: string[];
}

const SERIAL = '[0-9A-F]{2}(?::[0-9A-F]{2})*';

/** In the order the changing commands run (the last one, rotate_kek, moves every key). */
const TABLE: Row[] = [
  // Reads.
  { command: 'list_api_users', use: { kind: 'reads', argv: () => ['list_api_users'] } },
  {
    command: 'view_api_user',
    use: { kind: 'reads', argv: () => ['view_api_user', 'alice'] },
    unknown: { '<username>': () => ['view_api_user', NO_USER] },
  },
  { command: 'list_cas', use: { kind: 'reads', argv: () => ['list_cas', '--tree'] } },
  {
    command: 'view_ca',
    use: { kind: 'reads', argv: () => ['view_ca', 'Root'] },
    unknown: { '<serial>': () => ['view_ca', NO_CA] },
  },
  {
    command: 'list_certs',
    use: { kind: 'reads', argv: () => ['list_certs', '--ca', 'Root'] },
    unknown: { '--ca': () => ['list_certs', '--ca', NO_CA] },
  },
  {
    command: 'view_cert',
    use: { kind: 'reads', argv: (s) => ['view_cert', s.leaf] },
    unknown: { '<cert>': () => ['view_cert', NO_CERT] },
  },
  {
    command: 'list_orders',
    use: { kind: 'reads', argv: () => ['list_orders', 'Root'] },
    unknown: { '<ca>': () => ['list_orders', NO_CA] },
  },
  {
    command: 'retry_orders',
    use: { kind: 'confirms', argv: () => ['retry_orders', 'Root'], line: /^Retried 0 failed orders of Root: none\.$/, noEvent: true },
    unknown: { '<ca>': () => ['retry_orders', NO_CA] },
  },
  {
    command: 'list_acme_accounts',
    use: { kind: 'reads', argv: () => ['list_acme_accounts', 'Root'] },
    unknown: { '<ca>': () => ['list_acme_accounts', NO_CA] },
  },
  { command: 'list_webhooks', use: { kind: 'reads', argv: () => ['list_webhooks'] } },
  { command: 'list_enrolment_endpoints', use: { kind: 'reads', argv: () => ['list_enrolment_endpoints'] } },
  {
    command: 'list_webhook_dead_letters',
    use: { kind: 'reads', argv: (s) => ['list_webhook_dead_letters', s.webhook] },
    unknown: { '<id>': () => ['list_webhook_dead_letters', NO_WEBHOOK] },
  },
  { command: 'verify_audit_log', use: { kind: 'reads', argv: () => ['verify_audit_log'] } },
  { command: 'verify_restore', use: { kind: 'reads', argv: () => ['verify_restore'] } },
  {
    command: 'audit_log',
    use: { kind: 'reads', argv: () => ['audit_log', '--ca', 'Root'] },
    unknown: { '--ca': () => ['audit_log', '--ca', NO_CA] },
  },
  { command: 'list_jobs', use: { kind: 'reads', argv: () => ['list_jobs'] } },
  {
    command: 'retry_job',
    use: {
      kind: 'confirms',
      argv: (s) => ['retry_job', s.failedJob],
      line: /^Retried job \d+ \(webhook_delivery command-table\): pending\.$/,
      noEvent: true,
    },
    unknown: { '<id>': () => ['retry_job', NO_WEBHOOK] },
  },
  {
    command: 'list_intents',
    use: { kind: 'reads', argv: () => ['list_intents', '--ca', 'Root', '--state', 'issued'] },
    unknown: { '--ca': () => ['list_intents', '--ca', NO_CA] },
  },

  // Changes.
  { command: 'migrate', use: { kind: 'confirms', argv: () => ['migrate'], line: /^Migrations applied( \(\d+ new\))?\.$/, noEvent: true } },
  {
    command: 'create_api_user',
    use: {
      kind: 'confirms',
      argv: () => ['create_api_user', 'bob', '--password', 'pw-of-bob', '--use-admin'],
      line: /^Created API user bob\.$/,
    },
    unknown: { '--ca': () => ['create_api_user', 'carol', '--password', 'pw-of-carol', '--ca', NO_CA] },
    newNames: ['<username>'],
  },
  {
    command: 'set_api_user_permissions',
    use: {
      kind: 'confirms',
      argv: () => ['set_api_user_permissions', 'bob', '--all-permissions', '--no-sign-certificate', '--ca', 'Root'],
      line: /^Changed the permissions of API user bob\.$/,
    },
    unknown: {
      '<username>': () => ['set_api_user_permissions', NO_USER],
      '--ca': () => ['set_api_user_permissions', 'alice', '--ca', NO_CA],
    },
  },
  {
    command: 'set_api_user_password',
    use: {
      kind: 'confirms',
      argv: () => ['set_api_user_password', 'bob'],
      stdin: 'a-new-password\n',
      line: /^Changed the password of API user bob\.$/,
    },
    unknown: { '<username>': () => ['set_api_user_password', NO_USER] },
  },
  {
    command: 'delete_api_user',
    use: { kind: 'confirms', argv: () => ['delete_api_user', 'bob'], line: /^Deleted API user bob\.$/ },
    unknown: { '<username>': () => ['delete_api_user', NO_USER] },
  },
  {
    command: 'init_ca',
    // stdout is the new CA in --output-format (its serial by default).
    use: { kind: 'data', argv: () => ['init_ca', '--key-type', 'EC', 'Made', 'CN=made.example.com'], output: new RegExp(`^${SERIAL}\n$`) },
    unknown: { '--parent': () => ['init_ca', '--key-type', 'EC', '--parent', NO_CA, 'Orphan', 'CN=orphan.example.com'] },
  },
  {
    command: 'revoke_ca',
    use: {
      kind: 'confirms',
      argv: () => ['revoke_ca', 'Made', '--reason', 'cessation_of_operation'],
      line: new RegExp(`^Revoked CA Made \\(${SERIAL}\\) \\(reason: cessation_of_operation\\)\\.$`),
    },
    unknown: { '<serial>': () => ['revoke_ca', NO_CA] },
  },
  {
    command: 'import_ca',
    use: {
      kind: 'confirms',
      argv: (s) => ['import_ca', 'Ext', s.extKey, s.extCert],
      line: new RegExp(`^Imported CA Ext \\(${SERIAL}\\)\\.$`),
    },
    unknown: { '--parent': (s) => ['import_ca', '--parent', NO_CA, 'Ext2', s.extKey, s.extCert] },
  },
  {
    command: 'edit_ca',
    use: {
      kind: 'confirms',
      argv: () => ['edit_ca', 'Ext', '--website', 'https://ext.example.com/'],
      line: new RegExp(`^Changed CA Ext \\(${SERIAL}\\)\\.$`),
    },
    unknown: { '<serial>': () => ['edit_ca', NO_CA, '--website', 'https://x.example.com/'] },
  },
  {
    command: 'import_cert',
    use: {
      kind: 'confirms',
      argv: (s) => ['import_cert', '--ca', 'Ext', s.extLeaf],
      line: new RegExp(`^Imported certificate ${SERIAL} \\(Ext\\)\\.$`),
    },
    unknown: { '--ca': (s) => ['import_cert', '--ca', NO_CA, s.extLeaf] },
  },
  {
    command: 'sign_cert',
    // Without --out, stdout is the certificate (test/cli/certs.test.ts).
    use: {
      kind: 'confirms',
      argv: (s) => [
        'sign_cert',
        '--ca',
        'Root',
        '--csr',
        s.csr,
        '--subject',
        'CN=table.example.com',
        '--out',
        path.join(s.dir, 'signed.pem'),
      ],
      line: new RegExp(`^Wrote certificate ${SERIAL} to .*signed\\.pem\\.$`),
    },
    unknown: { '--ca': (s) => ['sign_cert', '--ca', NO_CA, '--csr', s.csr, '--subject', 'CN=x.example.com'] },
  },
  {
    command: 'resign_cert',
    use: {
      kind: 'confirms',
      argv: (s) => ['resign_cert', s.leaf, '--out', path.join(s.dir, 'resigned.pem')],
      line: new RegExp(`^Wrote certificate ${SERIAL} to .*resigned\\.pem\\.$`),
    },
    unknown: { '<cert>': () => ['resign_cert', NO_CERT] },
  },
  {
    command: 'revoke_cert',
    use: { kind: 'confirms', argv: (s) => ['revoke_cert', s.leaf], line: new RegExp(`^Revoked ${SERIAL} \\(reason: unspecified\\)\\.$`) },
    unknown: { '<cert>': () => ['revoke_cert', NO_CERT] },
  },
  {
    command: 'dump_crl',
    // With `-`, stdout is the CRL.
    use: {
      kind: 'confirms',
      argv: (s) => ['dump_crl', '--ca', 'Root', path.join(s.dir, 'root.crl')],
      line: new RegExp(`^Wrote CRL #\\d+ of Root \\(${SERIAL}\\) to .*root\\.crl\\.$`),
    },
    unknown: { '--ca': () => ['dump_crl', '--ca', NO_CA, '-'] },
  },
  {
    command: 'generate_crls',
    // One line per CA: one CA here.
    use: { kind: 'confirms', argv: () => ['generate_crls', 'Root'], line: new RegExp(`^${SERIAL} - Root: CRL #\\d+, CA CRL #\\d+$`) },
    unknown: { '[serials...]': () => ['generate_crls', NO_CA], '--exclude': () => ['generate_crls', '--exclude', NO_CA] },
  },
  {
    command: 'generate_ocsp_keys',
    use: {
      kind: 'confirms',
      argv: () => ['generate_ocsp_keys', '--force', 'Root'],
      line: new RegExp(`^${SERIAL} - Root: OCSP responder valid until \\S+$`),
    },
    unknown: { '[serials...]': () => ['generate_ocsp_keys', NO_CA], '--exclude': () => ['generate_ocsp_keys', '--exclude', NO_CA] },
  },
  {
    command: 'create_acme_eab_key',
    // stdout is the binding key, shown this once.
    use: { kind: 'data', argv: () => ['create_acme_eab_key', 'Root'], output: /^kid: \S+\nhmac: \S+\n$/ },
    unknown: { '<ca>': () => ['create_acme_eab_key', NO_CA] },
  },
  {
    command: 'create_enrolment_challenge',
    // stdout is the challenge's id, its secret (shown this once) and when it expires.
    use: {
      kind: 'data',
      argv: () => ['create_enrolment_challenge', 'scep/phones', '--subject', 'CN=dev1.example.org', '--san', 'DNS:dev1.example.org'],
      output: /^id: \d+\nchallenge: [0-9a-f]{40}\nexpires: \d{4}-\d\d-\d\dT[\d:.]+Z\n$/,
    },
  },
  {
    command: 'create_enrolment_endpoint',
    use: {
      kind: 'confirms',
      argv: () => ['create_enrolment_endpoint', 'scep', 'table', '--ca', 'Root', '--validity', '7'],
      line: /^Created enrolment endpoint scep\/table\.$/,
    },
    unknown: { '--ca': () => ['create_enrolment_endpoint', 'scep', 'other', '--ca', NO_CA] },
  },
  {
    command: 'edit_enrolment_endpoint',
    use: {
      kind: 'confirms',
      argv: () => ['edit_enrolment_endpoint', 'scep', 'table', '--disable'],
      line: /^Edited enrolment endpoint scep\/table\.$/,
    },
    unknown: { '--ca': () => ['edit_enrolment_endpoint', 'scep', 'table', '--ca', NO_CA] },
  },
  {
    command: 'delete_enrolment_endpoint',
    use: {
      kind: 'confirms',
      argv: () => ['delete_enrolment_endpoint', 'scep', 'table'],
      line: /^Deleted enrolment endpoint scep\/table\.$/,
    },
  },
  {
    command: 'list_enrolment_requests',
    use: { kind: 'reads', argv: () => ['list_enrolment_requests', '--status', 'all', '--ca', 'Root'] },
    unknown: { '--ca': () => ['list_enrolment_requests', '--ca', NO_CA] },
  },
  {
    command: 'approve_enrolment_request',
    use: {
      kind: 'confirms',
      argv: (s) => ['approve_enrolment_request', s.waiting[0]],
      line: new RegExp(`^Approved enrolment request \\d+: issued ${SERIAL}\\.$`),
    },
    unknown: { '<id>': () => ['approve_enrolment_request', NO_WEBHOOK] },
  },
  {
    command: 'refuse_enrolment_request',
    use: {
      kind: 'confirms',
      argv: (s) => ['refuse_enrolment_request', s.waiting[1], '--reason', 'unknown device'],
      line: /^Refused enrolment request \d+\.$/,
    },
    unknown: { '<id>': () => ['refuse_enrolment_request', NO_WEBHOOK] },
  },
  {
    command: 'add_webhook',
    // stdout is the endpoint's id and its secret, shown this once.
    use: { kind: 'data', argv: () => ['add_webhook', 'https://hooks.example.com/other'], output: /^id: \d+\nsecret: whsec_\S+\n$/ },
  },
  {
    command: 'rotate_webhook_secret',
    use: { kind: 'data', argv: (s) => ['rotate_webhook_secret', s.webhook], output: /^secret: whsec_\S+\n$/ },
    unknown: { '<id>': () => ['rotate_webhook_secret', NO_WEBHOOK] },
  },
  {
    command: 'replay_webhook',
    use: {
      kind: 'confirms',
      argv: (s) => ['replay_webhook', s.webhook, '--from', '1'],
      line: /^Webhook endpoint \d+ delivers again from event 1 on\.$/,
    },
    unknown: { '<id>': () => ['replay_webhook', NO_WEBHOOK, '--from', '20'] },
  },
  {
    command: 'remove_webhook',
    use: { kind: 'confirms', argv: (s) => ['remove_webhook', s.webhook], line: /^Removed webhook endpoint \d+\.$/ },
    unknown: { '<id>': () => ['remove_webhook', NO_WEBHOOK] },
  },
  {
    command: 'backup',
    use: {
      kind: 'confirms',
      argv: (s) => ['backup', path.join(s.dir, 'table-backup.tar.gz')],
      env: (s) => ({ DATABASE_URL: s.embedded }),
      line: /^Wrote a backup of the embedded database to .*table-backup\.tar\.gz \(\d+ bytes\)\.$/,
      noEvent: true,
    },
  },
  {
    command: 'restore',
    use: {
      kind: 'confirms',
      argv: (s) => ['restore', path.join(s.dir, 'table-backup.tar.gz'), path.join(s.dir, 'table-restored')],
      line: /^Restored .*table-backup\.tar\.gz into .*table-restored: audit log intact .*\.$/,
      noEvent: true,
    },
  },
  {
    command: 'rotate_kek',
    use: {
      kind: 'confirms',
      argv: () => ['rotate_kek', '--new-key-env', 'NEW_KEK'],
      env: { NEW_KEK: Buffer.alloc(32, 9).toString('base64') },
      line: /^Re-encrypted \d+ key\(s\) \(\d+ CA, \d+ OCSP responder\) from key-encryption key \S+ to \S+(; .*)?\.$/,
    },
  },
];

/** The registered commands, and for each its lookup arguments and options, from the commander program. */
function registeredCommands(): Map<string, string[]> {
  const sink = { write: () => true };
  const noAction: Action = () => async () => undefined;
  const program: Command = caAdminProgram(new CommandContext({ stdout: sink, stderr: sink, env: {} }), noAction);
  return new Map(
    program.commands.map((cmd) => {
      const args = cmd.registeredArguments
        .filter((a) => LOOKUP_ARGUMENTS.has(a.name()))
        .map((a) => (a.required ? `<${a.name()}${a.variadic ? '...' : ''}>` : `[${a.name()}${a.variadic ? '...' : ''}]`));
      const options = cmd.options.map((o) => o.long ?? '').filter((long) => LOOKUP_OPTIONS.has(long));
      return [cmd.name(), [...args, ...options]];
    }),
  );
}

async function eventList(store: Store): Promise<string[]> {
  if (!hasEventLog(store)) throw new Error('the knex store keeps events');
  return (await store.eventsSince(0, 100_000)).map((e) => `${e.id} ${e.type}`);
}

const lines = (r: CliResult) => r.stdout.split('\n').slice(0, -1);

describe('the ca-admin command table', () => {
  it('has exactly one row per registered command, and a case for every lookup argument', () => {
    const registered = registeredCommands();
    expect(TABLE.map((r) => r.command).sort()).toEqual([...registered.keys()].sort());
    for (const row of TABLE) {
      const covered = [...Object.keys(row.unknown ?? {}), ...(row.newNames ?? [])].sort();
      expect([row.command, covered]).toEqual([row.command, [...registered.get(row.command)!].sort()]);
    }
  });
});

describe.each(testDatabaseTargets())('ca-admin commands on $name', (target) => {
  const f = cliFixture(target, 'ca-admin-table-');
  const s = {} as State;

  beforeAll(async () => {
    s.dir = f.dir;
    const ok = async (argv: string[]) => {
      const r = await f.cli(argv);
      expect([r.code, r.stderr]).toEqual([0, '']);
      return r.stdout;
    };
    await ok(['init_ca', '--key-type', 'EC', '--no-default-hostname', '--expires', '365', 'Root', 'CN=root.example.com']);
    s.csr = opensslCsr(f.dir, 'leaf', '/CN=leaf.example.com');
    s.leaf = openssl(
      ['x509', '-noout', '-serial'],
      await ok(['sign_cert', '--ca', 'Root', '--csr', s.csr, '--subject', 'CN=leaf.example.com']),
    )
      .trim()
      .split('=')[1];
    await ok(['create_api_user', 'alice', '--all-permissions', '--password', 'pw-of-alice']);
    s.webhook = /^id: (\d+)/.exec(await ok(['add_webhook', 'https://hooks.example.com/ca']))![1];
    if (!hasJobStore(f.db.store)) throw new Error('the knex store keeps jobs');
    const job = await f.db.store.jobs.enqueue('webhook_delivery', 'command-table');
    await f.db.store.jobs.claim(['webhook_delivery'], 'command-table', 10, 60_000);
    await f.db.store.jobs.fail({ id: job.id, owner: 'command-table' }, 'gave up', 1);
    s.failedJob = String(job.id);
    // A CA made elsewhere, and a certificate it issued, for import_ca and import_cert.
    s.extKey = path.join(f.dir, 'ext.key');
    s.extCert = path.join(f.dir, 'ext.pem');
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl([
      'req',
      '-x509',
      ...ec,
      '-subj',
      '/CN=Ext',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-keyout',
      s.extKey,
      '-out',
      s.extCert,
    ]);
    const extCsr = opensslCsr(f.dir, 'ext-leaf', '/CN=ext-leaf.example.com');
    s.extLeaf = path.join(f.dir, 'ext-leaf.pem');
    openssl(['x509', '-req', '-in', extCsr, '-CA', s.extCert, '-CAkey', s.extKey, '-set_serial', '4660', '-days', '10', '-out', s.extLeaf]);
    expect(fs.existsSync(s.extLeaf)).toBe(true);
    // Two requests of an EST endpoint with approval, as lib/enrolment/approval.ts keeps them.
    const store = f.db.store;
    const root = (await store.findCaByName('Root'))!;
    const keep = async (requestKey: string) =>
      String(
        (await store.enrolmentRequests.createEnrolmentRequest({
          protocol: 'est',
          label: '',
          caId: root.id,
          validityDays: null,
          profile: 'webserver',
          csrDer: parseCsr(fs.readFileSync(s.csr)).der,
          requester: { type: 'api_user', id: 1, name: 'alice', protocol: 'est' },
          requestKey,
        }))!.id,
      );
    s.waiting = [await keep('a'.repeat(64)), await keep('b'.repeat(64))];
    // An embedded database for backup, from the suite's migrated snapshot (no initdb).
    s.embedded = path.join(f.dir, 'embedded');
    fs.mkdirSync(s.embedded, { mode: 0o700 });
    const pglite = new PGlite({
      dataDir: s.embedded,
      extensions: { pg_trgm },
      loadDataDir: new Blob([fs.readFileSync(await migratedPgliteSnapshot())]),
    });
    await pglite.waitReady;
    await pglite.close();
  });

  const reads = TABLE.filter((r) => r.use.kind === 'reads');
  it.each(reads.map((r) => [r.command, r] as const))('%s reads without changing anything', async (_command, row) => {
    const before = await eventList(f.db.store);
    const r = await f.cli(row.use.argv(s));
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(await eventList(f.db.store)).toEqual(before);
  });

  const unknowns = TABLE.flatMap((row) =>
    Object.entries(row.unknown ?? {}).map(([param, argv]) => [`${row.command} ${param}`, argv] as const),
  );
  it.each(unknowns)('%s: an unknown one is `Error: <value>: <Thing> not found.`, exit 1, nothing written', async (_case, argv) => {
    const args = argv(s);
    const value = [NO_CA, NO_CERT, NO_USER, NO_WEBHOOK].find((v) => args.includes(v))!;
    const before = await eventList(f.db.store);
    const r = await f.cli(args);
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(new RegExp(`^Error: ${value.replace(/\./g, '\\.')}: ${THINGS} not found\\.\n$`));
    expect(await eventList(f.db.store)).toEqual(before);
  });

  const changes = TABLE.filter((r) => r.use.kind !== 'reads');
  it.each(changes.map((r) => [r.command, r] as const))(
    '%s says what it changed in one line (or prints what it made)',
    async (_command, row) => {
      const use = row.use;
      if (use.kind === 'reads') throw new Error('filtered out');
      const extra =
        use.kind === 'confirms'
          ? {
              ...(use.stdin === undefined ? {} : { stdin: Readable.from([Buffer.from(use.stdin)]) }),
              ...(use.env === undefined
                ? {}
                : { env: { CA_KEY_ENCRYPTION_KEY: TEST_KEK, ...(typeof use.env === 'function' ? use.env(s) : use.env) } }),
            }
          : {};
      const r = await f.cli(use.argv(s), extra);
      expect(r.code).toBe(0);
      if (use.kind === 'data') expect(r.stdout).toMatch(use.output);
      else {
        expect(lines(r)).toHaveLength(1);
        expect(lines(r)[0]).toMatch(use.line);
      }
    },
    180_000, // backup and restore open an embedded database of their own
  );
});
