/**
 * ca-admin's enrolment endpoint commands (docs/guides/est.md, docs/guides/scep.md): create (a generated static challenge
 * printed once and kept as its SHA-256), list, edit and delete, each change an event naming the
 * operator; bad input is one clear line and nothing written.
 */
import * as crypto from 'crypto';
import { Readable } from 'stream';
import { TABLES } from '../../adapters/store/knex/tables';
import { hasEventLog } from '../../lib/ports';
import { testDatabaseTargets } from '../helpers/database';
import { cliFixture } from './helpers';

describe.each(testDatabaseTargets())('ca-admin enrolment endpoints on $name', (target) => {
  const f = cliFixture(target);
  let caSerial: string;
  const rows = async () => (await f.db.knex(TABLES.enrolmentEndpoints).orderBy('label')) as Record<string, unknown>[];

  beforeAll(async () => {
    expect((await f.cli(['init_ca', '--key-type', 'EC', 'Device CA', 'CN=Device CA'])).code).toBe(0);
    expect((await f.cli(['init_ca', '--key-type', 'EC', 'Other CA', 'CN=Other CA'])).code).toBe(0);
    caSerial = (await f.db.store.findCaByName('Device CA'))!.serial;
  });
  beforeEach(async () => {
    await f.db.knex(TABLES.enrolmentEndpoints).delete();
  });

  it('create, list, edit and delete; a generated challenge is printed once and stored as its SHA-256; events name the operator', async () => {
    if (!hasEventLog(f.db.store)) throw new Error('the knex store keeps events');
    const before = await f.db.store.latestEventId();
    const est = await f.cli([
      'create_enrolment_endpoint',
      'est',
      'laptops',
      '--ca',
      'Device CA',
      '--profile',
      'client',
      '--allow',
      'Example.ORG',
      '--allow',
      '10.0.0.0/8',
      '--deny',
      'bad.example.org',
      '--subject-attributes',
      'CN,O',
      '--validity',
      '7',
      '--approval',
    ]);
    expect([est.code, est.stderr, est.stdout]).toEqual([0, '', 'Created enrolment endpoint est/laptops.\n']);
    const scep = await f.cli(['create_enrolment_endpoint', 'SCEP', 'phones', '--ca', caSerial, '--challenge', 'generate']);
    expect(scep.stderr).toBe('');
    const [, secret] = /^challenge: ([0-9a-f]{40})\n$/.exec(scep.stdout) ?? [];
    expect(secret).toBeDefined();
    const stored = await rows();
    expect(stored[1]).toMatchObject({
      protocol: 'SCEP',
      label: 'phones',
      challenge_sha256: crypto.createHash('sha256').update(secret).digest('hex'),
    });
    expect(JSON.stringify(stored)).not.toContain(secret);

    const listed = await f.cli(['list_enrolment_endpoints']);
    expect(listed.stdout).toBe(
      `est/laptops - CA Device CA (${caSerial}) - profile client - challenge none - approval yes - ` +
        'names allow example.org, 10.0.0.0/8; deny bad.example.org; subject CN, O - validity 7 days - requests/min any - enabled\n' +
        `scep/phones - CA Device CA (${caSerial}) - profile default - challenge static - approval no - names any - validity default - requests/min any - enabled\n`,
    );
    expect(listed.stdout).not.toContain(secret);

    const prompted = await f.cli(['edit_enrolment_endpoint', 'scep', 'phones', '--challenge', 'prompt', '--ca', 'Other CA', '--disable'], {
      stdin: Readable.from(['typed-secret\n']),
    });
    expect([prompted.code, prompted.stdout]).toEqual([0, 'Edited enrolment endpoint scep/phones.\n']);
    expect((await rows())[1]).toMatchObject({
      challenge_sha256: crypto.createHash('sha256').update('typed-secret').digest('hex'),
      enabled: false,
    });
    const edited = await f.cli([
      'edit_enrolment_endpoint',
      'est',
      'laptops',
      '--deny',
      'worse.example.org',
      '--default-validity',
      '--no-approval',
    ]);
    expect(edited.stdout).toBe('Edited enrolment endpoint est/laptops.\n');
    expect((await f.cli(['edit_enrolment_endpoint', 'scep', 'phones', '--no-challenge', '--enable', '--any-name'])).code).toBe(0);
    expect((await f.cli(['list_enrolment_endpoints'])).stdout).toBe(
      `est/laptops - CA Device CA (${caSerial}) - profile client - challenge none - approval no - ` +
        'names allow example.org, 10.0.0.0/8; deny worse.example.org; subject CN, O - validity default - requests/min any - enabled\n' +
        `scep/phones - CA Other CA (${(await f.db.store.findCaByName('Other CA'))!.serial}) - profile default - challenge none - ` +
        'approval no - names any - validity default - requests/min any - enabled\n',
    );

    expect((await f.cli(['delete_enrolment_endpoint', 'est', 'laptops'])).stdout).toBe('Deleted enrolment endpoint est/laptops.\n');
    expect((await rows()).map((r) => r.label)).toEqual(['phones']);
    const events = (await f.db.store.eventsSince(before)).filter((e) => e.type.startsWith('enrolment.endpoint.'));
    expect(events.map((e) => [e.type, e.actor.type, e.actor.protocol, e.data.label])).toEqual([
      ['enrolment.endpoint.created', 'operator', 'cli', 'laptops'],
      ['enrolment.endpoint.created', 'operator', 'cli', 'phones'],
      ['enrolment.endpoint.updated', 'operator', 'cli', 'phones'],
      ['enrolment.endpoint.updated', 'operator', 'cli', 'laptops'],
      ['enrolment.endpoint.updated', 'operator', 'cli', 'phones'],
      ['enrolment.endpoint.deleted', 'operator', 'cli', 'laptops'],
    ]);
    expect(events[2].data.changed).toEqual(['ca', 'challenge', 'enabled']);
    expect(JSON.stringify(events)).not.toContain(stored[1].challenge_sha256 as string);
  });

  it('--requests-per-minute sets and --no-requests-per-minute clears the budget; --challenge webhook stores no URL or secret', async () => {
    const made = await f.cli(['create_enrolment_endpoint', 'est', 'budget', '--ca', 'Device CA', '--requests-per-minute', '30']);
    expect([made.code, made.stderr]).toEqual([0, '']);
    const hooked = await f.cli(['create_enrolment_endpoint', 'scep', 'hooked', '--ca', 'Device CA', '--challenge', 'webhook']);
    expect([hooked.code, hooked.stderr, hooked.stdout]).toEqual([0, '', 'Created enrolment endpoint scep/hooked.\n']);
    expect((await rows()).map((r) => [r.label, r.requests_per_minute, r.challenge_webhook, r.challenge_sha256])).toEqual([
      ['budget', 30, false, null],
      ['hooked', null, true, null],
    ]);
    expect((await f.cli(['list_enrolment_endpoints'])).stdout).toBe(
      `est/budget - CA Device CA (${caSerial}) - profile default - challenge none - approval no - names any - validity default - requests/min 30 - enabled\n` +
        `scep/hooked - CA Device CA (${caSerial}) - profile default - challenge webhook - approval no - names any - validity default - requests/min any - enabled\n`,
    );
    // EST takes the webhook too (never a static challenge); a static challenge replaces the webhook and back.
    expect((await f.cli(['edit_enrolment_endpoint', 'est', 'budget', '--challenge', 'webhook', '--no-requests-per-minute'])).code).toBe(0);
    const generated = await f.cli([
      'edit_enrolment_endpoint',
      'scep',
      'hooked',
      '--challenge',
      'generate',
      '--requests-per-minute',
      '1000000',
    ]);
    expect(generated.stdout).toMatch(/^challenge: [0-9a-f]{40}\n$/);
    expect((await rows()).map((r) => [r.label, r.requests_per_minute, r.challenge_webhook, r.challenge_sha256 !== null])).toEqual([
      ['budget', null, true, false],
      ['hooked', 1000000, false, true],
    ]);
    expect((await f.cli(['edit_enrolment_endpoint', 'scep', 'hooked', '--challenge', 'webhook'])).code).toBe(0);
    expect((await rows())[1]).toMatchObject({ challenge_webhook: true, challenge_sha256: null });
    expect((await f.cli(['edit_enrolment_endpoint', 'scep', 'hooked', '--no-challenge'])).code).toBe(0);
    expect((await rows())[1]).toMatchObject({ challenge_webhook: false, challenge_sha256: null });
  });

  it('refuses bad input with one line, writing nothing', async () => {
    await f.cli(['create_enrolment_endpoint', 'est', 'taken', '--ca', 'Device CA']);
    const cases: [string[], RegExp][] = [
      [['create_enrolment_endpoint', 'est', 'bad/label', '--ca', 'Device CA'], /"bad\/label" cannot be a label/],
      [['create_enrolment_endpoint', 'est', 'simpleenroll', '--ca', 'Device CA'], /"simpleenroll" cannot be a label/],
      [['create_enrolment_endpoint', 'scep', 'pkiclient.exe', '--ca', 'Device CA'], /"pkiclient.exe" cannot be a label/],
      [['create_enrolment_endpoint', 'est', 'x'.repeat(65), '--ca', 'Device CA'], /cannot be a label: use up to 64/],
      [['create_enrolment_endpoint', 'cmp', 'devices', '--ca', 'Device CA'], /^Error: cmp: the protocol is est or scep\.\n$/],
      [['create_enrolment_endpoint', 'est', 'devices', '--ca', 'NoSuchCA'], /^Error: NoSuchCA: Certificate authority not found\.\n$/],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--allow', '*.example.org'],
        /--allow "\*\.example\.org": not a DNS suffix/,
      ],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--deny', '10.0.0.1/8'],
        /--deny "10\.0\.0\.1\/8": not an IP address or network/,
      ],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--subject-attributes', 'CN,nope'],
        /nope is not a name attribute/,
      ],
      [['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--profile', 'nope'], /nope: Profile is not defined\./],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--validity', '0'],
        /0: the validity is a whole number of days, at least 1\./,
      ],
      [['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--validity', 'week'], /--validity: week is not an integer\./],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--challenge', 'generate'],
        /EST endpoints take no static challenge password/,
      ],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--requests-per-minute', '0'],
        /0: the budget is a whole number of requests a minute, from 1 to 1000000\./,
      ],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--requests-per-minute', '1000001'],
        /1000001: the budget is a whole number of requests a minute, from 1 to 1000000\./,
      ],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--requests-per-minute', 'lots'],
        /--requests-per-minute: lots is not an integer\./,
      ],
      [['edit_enrolment_endpoint', 'est', 'taken', '--requests-per-minute', '-5'], /-5: the budget is a whole number/],
      [
        ['create_enrolment_endpoint', 'est', 'devices', '--ca', 'Device CA', '--challenge', 'hook'],
        /Allowed choices are generate, prompt, webhook/,
      ],
      [
        ['create_enrolment_endpoint', 'est', 'taken', '--ca', 'Device CA'],
        /^Error: est\/taken: the enrolment endpoint exists already\.\n$/,
      ],
      [['edit_enrolment_endpoint', 'est', 'nothing', '--disable'], /^Error: est\/nothing: Enrolment endpoint not found\.\n$/],
      [['edit_enrolment_endpoint', 'est', 'taken', '--enable', '--disable'], /--enable and --disable are mutually exclusive/],
      [['edit_enrolment_endpoint', 'est', 'taken', '--ca', 'NoSuchCA'], /^Error: NoSuchCA: Certificate authority not found\.\n$/],
      [['edit_enrolment_endpoint', 'est', 'taken', '--allow', 'exa mple.org'], /--allow "exa mple.org": not a DNS suffix/],
      [
        ['edit_enrolment_endpoint', 'est', 'taken', '--any-name', '--allow', 'example.org'],
        /--any-name and --allow, --deny or --subject-attributes are mutually exclusive/,
      ],
      [['delete_enrolment_endpoint', 'scep', 'taken'], /^Error: scep\/taken: Enrolment endpoint not found\.\n$/],
    ];
    const before = JSON.stringify(await rows());
    for (const [argv, message] of cases) {
      const result = await f.cli(argv);
      expect([argv, result.code, result.stdout]).toEqual([argv, 1, '']);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.split('\n')).toHaveLength(2);
    }
    expect(JSON.stringify(await rows())).toBe(before);
  });
});
