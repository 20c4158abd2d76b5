/**
 * The enrolment endpoints kept in the database (`store.enrolmentEndpoints`, migrations 0026 and 0027), on every
 * test database target: round trip, one per protocol and label, the checks of the table, and the
 * events that name the operator.
 */
import {
  actingAs,
  hasEventLog,
  StoreConflictError,
  type EnrolmentEndpointStore,
  type NewStoredEnrolmentEndpoint,
  type Store,
} from '../../lib/ports';
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from '../helpers/database';
import { newCa } from './records';

describe.each(testDatabaseTargets())('enrolment endpoints on $name', (target) => {
  let db: TestDatabase;
  let store: Store;
  const operator = { type: 'operator', name: 'root', protocol: 'cli' };
  const endpoints = (s: Store): EnrolmentEndpointStore => {
    return s.enrolmentEndpoints;
  };

  beforeAll(async () => {
    db = await openTestDatabase(target);
    store = db.store;
  });
  afterAll(async () => {
    await db?.close();
  });
  beforeEach(async () => {
    await db.truncate();
  });

  const endpoint = (caId: number, o: Partial<NewStoredEnrolmentEndpoint> = {}): NewStoredEnrolmentEndpoint => ({
    protocol: 'EST',
    label: 'devices',
    caId,
    profile: null,
    challengeSha256: null,
    approval: false,
    names: null,
    validityDays: null,
    requestsPerMinute: null,
    challengeWebhook: false,
    enabled: true,
    ...o,
  });

  it('round-trips every field, finds by protocol and label, lists, edits and deletes', async () => {
    const ca = await store.insertCa(newCa({ name: 'Device CA' }));
    const other = await store.insertCa(newCa({ name: 'Other CA' }));
    const full = endpoint(ca.id, {
      protocol: 'SCEP',
      label: 'phones',
      profile: 'client',
      challengeSha256: 'ab'.repeat(32),
      approval: true,
      names: { allow: ['example.org'], deny: ['bad.example.org'], subjectAttributes: ['CN', 'O'] },
      validityDays: 7,
      requestsPerMinute: 120,
      challengeWebhook: true,
    });
    const made = await endpoints(store).createEnrolmentEndpoint(full);
    expect(made).toEqual({ ...full, id: expect.any(Number), created: expect.any(Date), updated: expect.any(Date) });
    expect(await endpoints(store).findEnrolmentEndpoint('SCEP', 'phones')).toEqual(made);
    expect(await endpoints(store).findEnrolmentEndpoint('EST', 'phones')).toBeNull();
    await endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { label: 'phones' }));
    expect((await endpoints(store).listEnrolmentEndpoints()).map((e) => `${e.protocol}/${e.label}`)).toEqual(['EST/phones', 'SCEP/phones']);

    const changes = {
      caId: other.id,
      enabled: false,
      names: null,
      challengeSha256: null,
      requestsPerMinute: null,
      challengeWebhook: false,
    };
    const edited = await endpoints(store).updateEnrolmentEndpoint('SCEP', 'phones', changes);
    expect(edited).toEqual({ ...made, ...changes, updated: expect.any(Date) });
    expect(edited!.updated.getTime()).toBeGreaterThanOrEqual(made.updated.getTime());
    expect(await endpoints(store).updateEnrolmentEndpoint('SCEP', 'nothing', { enabled: false })).toBeNull();
    expect(await endpoints(store).deleteEnrolmentEndpoint('SCEP', 'phones')).toBe(true);
    expect(await endpoints(store).deleteEnrolmentEndpoint('SCEP', 'phones')).toBe(false);
    expect(await endpoints(store).findEnrolmentEndpoint('SCEP', 'phones')).toBeNull();
  });

  it('keeps one endpoint per protocol and label, and refuses what the table forbids', async () => {
    const ca = await store.insertCa(newCa({ name: 'Device CA' }));
    await endpoints(store).createEnrolmentEndpoint(endpoint(ca.id));
    const twice = endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { profile: 'client' }));
    await expect(twice).rejects.toBeInstanceOf(StoreConflictError);
    await expect(twice).rejects.toMatchObject({ entity: 'enrolment_endpoint', field: 'protocol,label' });
    await expect(endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { label: '' }))).rejects.toThrow();
    await expect(endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { label: 'x', validityDays: 0 }))).rejects.toThrow();
    await expect(endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { label: 'x', protocol: 'CMP' as 'EST' }))).rejects.toThrow();
    await expect(endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { label: 'x', requestsPerMinute: 0 }))).rejects.toThrow();
    await expect(endpoints(store).createEnrolmentEndpoint(endpoint(ca.id, { label: 'x', requestsPerMinute: 1_000_001 }))).rejects.toThrow();
    await expect(endpoints(store).createEnrolmentEndpoint(endpoint(ca.id + 1000, { label: 'x' }))).rejects.toThrow();
    expect(await endpoints(store).listEnrolmentEndpoints()).toHaveLength(1);
  });

  it('writes created, updated (the changed fields) and deleted events naming the actor, never the challenge hash', async () => {
    const ca = await store.insertCa(newCa({ name: 'Device CA' }));
    if (!hasEventLog(store)) throw new Error('no event log');
    const before = await store.latestEventId();
    const scoped = actingAs(store, operator);
    await endpoints(scoped).createEnrolmentEndpoint(endpoint(ca.id, { challengeSha256: 'cd'.repeat(32), validityDays: 30 }));
    await endpoints(scoped).updateEnrolmentEndpoint('EST', 'devices', { enabled: false, validityDays: 7, approval: false });
    await endpoints(scoped).updateEnrolmentEndpoint('EST', 'devices', { requestsPerMinute: 60, challengeWebhook: true });
    await endpoints(scoped).updateEnrolmentEndpoint('EST', 'devices', { approval: false }); // no change: no event
    await endpoints(scoped).deleteEnrolmentEndpoint('EST', 'devices');
    const events = (await store.eventsSince(before)).filter((e) => e.type.startsWith('enrolment.endpoint.'));
    expect(events.map((e) => [e.type, e.actor.type, e.actor.name, e.caSerial])).toEqual([
      ['enrolment.endpoint.created', 'operator', 'root', ca.serial],
      ['enrolment.endpoint.updated', 'operator', 'root', ca.serial],
      ['enrolment.endpoint.updated', 'operator', 'root', ca.serial],
      ['enrolment.endpoint.deleted', 'operator', 'root', ca.serial],
    ]);
    expect(events[0].data).toEqual({
      protocol: 'EST',
      label: 'devices',
      profile: null,
      challenge: true,
      approval: false,
      names: null,
      validity_days: 30,
      enabled: true,
      requests_per_minute: null,
      challenge_webhook: false,
    });
    expect(events[1].data).toEqual({ protocol: 'EST', label: 'devices', changed: ['validity_days', 'enabled'] });
    expect(events[2].data).toEqual({ protocol: 'EST', label: 'devices', changed: ['requests_per_minute', 'challenge_webhook'] });
    expect(JSON.stringify(events)).not.toContain('cd'.repeat(32));
  });
});
