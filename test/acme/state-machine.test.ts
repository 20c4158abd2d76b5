/**
 * RFC 8555's state machines (§7.1.6) as lib/acme/state-machine.ts has them: every (object, status,
 * event) → the next status or a refusal, written out here from the RFC's diagrams (not derived from the
 * code), so an illegal move that the table starts allowing fails; and the changes each event makes —
 * every step one of the table's moves, chained as the store applies them.
 */
import {
  canDeactivateAuthorization,
  canFinalize,
  MOVES,
  move,
  next,
  onAccountDeactivated,
  onAuthorizationDeactivated,
  onChallengeStart,
  onExpiry,
  onFinalize,
  onIssuanceFailed,
  onIssued,
  onValidation,
  type AcmeObjectKind,
} from '../../lib/acme/state-machine';
import type { AcmeChallengeRecord, AcmeStateChange, SignRequest } from '../../lib/ports';

const STATUSES = {
  challenge: ['pending', 'processing', 'valid', 'invalid'],
  authorization: ['pending', 'valid', 'invalid', 'deactivated', 'expired', 'revoked'],
  order: ['pending', 'ready', 'processing', 'valid', 'invalid'],
  account: ['valid', 'deactivated', 'revoked'],
} as const;

/** RFC 8555 §7.1.6: what each event does from each status; any status not listed refuses the event. */
const LEGAL: Record<AcmeObjectKind, Record<string, Record<string, string>>> = {
  challenge: {
    start: { pending: 'processing' },
    validated: { processing: 'valid' },
    failed: { processing: 'invalid' },
    retry: { processing: 'processing' },
  },
  authorization: {
    validated: { pending: 'valid' },
    failed: { pending: 'invalid' },
    deactivate: { pending: 'deactivated', valid: 'deactivated' },
    expire: { pending: 'expired' },
    revoke: { pending: 'revoked', valid: 'revoked' },
  },
  order: {
    authorizationValid: { pending: 'ready' },
    finalize: { ready: 'processing' },
    issued: { processing: 'valid' },
    issuanceRetry: { processing: 'processing' },
    issuanceFailed: { processing: 'invalid' },
    authorizationFailed: { pending: 'invalid', ready: 'invalid' },
    expire: { pending: 'invalid', ready: 'invalid' },
  },
  account: {
    deactivate: { valid: 'deactivated' },
    revoke: { valid: 'revoked' },
  },
};

const cases = (Object.keys(LEGAL) as AcmeObjectKind[]).flatMap((kind) =>
  Object.keys(LEGAL[kind]).flatMap((event) =>
    STATUSES[kind].map((status) => ({ kind, event, status, expected: LEGAL[kind][event][status] ?? null })),
  ),
);

describe('RFC 8555 §7.1.6 moves', () => {
  test('the table has exactly the events of the RFC', () => {
    for (const kind of Object.keys(LEGAL) as AcmeObjectKind[])
      expect(Object.keys(MOVES[kind]).sort()).toEqual(Object.keys(LEGAL[kind]).sort());
  });

  test.each(cases)('$kind $status + $event → $expected', ({ kind, event, status, expected }) => {
    expect(next(kind, status as never, event as never)).toBe(expected);
  });

  test('terminal statuses refuse every event', () => {
    const terminal = {
      challenge: ['valid', 'invalid'],
      authorization: ['invalid', 'deactivated', 'expired', 'revoked'],
      order: ['valid', 'invalid'],
      account: ['deactivated', 'revoked'],
    };
    for (const kind of Object.keys(terminal) as AcmeObjectKind[]) {
      for (const status of terminal[kind])
        for (const event of Object.keys(MOVES[kind])) expect(next(kind, status as never, event as never)).toBeNull();
    }
  });

  test('finalize only a ready order; deactivate only a pending or valid authorization', () => {
    expect(STATUSES.order.filter((status) => canFinalize({ status }))).toEqual(['ready']);
    expect(STATUSES.authorization.filter(canDeactivateAuthorization)).toEqual(['pending', 'valid']);
  });

  test('a move narrowed to statuses the event does not leave is refused', () => {
    expect(move('authorization', 'deactivate', ['pending'])).toEqual({ from: ['pending'], to: 'deactivated' });
    expect(() => move('authorization', 'deactivate', ['invalid'])).toThrow(/does not leave/);
  });
});

/** Every step of `change` is a move of the table, from each of its statuses. */
function expectLegal(change: AcmeStateChange, events: { challenge?: string; authorization?: string; order?: string }) {
  for (const kind of ['challenge', 'authorization', 'order'] as const) {
    const step = change[kind];
    expect(Boolean(step)).toBe(Boolean(events[kind]));
    if (!step || !events[kind]) continue;
    for (const from of step.from) expect(next(kind, from as never, events[kind] as never)).toBe(step.to);
    expect([...step.from].sort()).toEqual(Object.keys(LEGAL[kind][events[kind] as string]).sort());
  }
}

describe('the changes of each event', () => {
  const challenge: AcmeChallengeRecord = {
    id: 7,
    slug: 'c',
    authorizationId: 5,
    type: 'http-01',
    token: 't',
    status: 'processing',
    validated: null,
    error: null,
    attempts: 0,
  };
  const claimed = { challenge, orderId: 3 };
  const problem = { type: 'urn:ietf:params:acme:error:connection', detail: 'refused' };

  test('a challenge starts from pending, while its authorization and its order are pending', () => {
    expect(onChallengeStart()).toEqual({ from: ['pending'], to: 'processing', authorizationIn: ['pending'], orderIn: ['pending'] });
  });

  const job = { kind: 'acme_validation', reference: '7', owner: 'runner' };

  test('a valid validation: challenge, authorization valid; the order counts down to ready; the job done', () => {
    const at = new Date();
    const change = onValidation(claimed, { kind: 'valid', at }, job);
    expectLegal(change, { challenge: 'validated', authorization: 'validated', order: 'authorizationValid' });
    expect(change.challenge).toMatchObject({ id: 7, set: { validated: at, error: null, countAttempt: true } });
    expect(change.authorization?.id).toBe(5);
    expect(change.order).toMatchObject({ id: 3, countDown: true });
    expect(change.job).toEqual({ ...job, to: { state: 'done' } });
  });

  test('an invalid validation: challenge, authorization and order invalid, the order with the error; the job done', () => {
    const change = onValidation(claimed, { kind: 'invalid', problem }, job);
    expectLegal(change, { challenge: 'failed', authorization: 'failed', order: 'authorizationFailed' });
    expect(change.challenge?.set).toMatchObject({ error: problem, countAttempt: true });
    expect(change.order).toMatchObject({ id: 3, set: { error: problem } });
    expect(change.order?.countDown).toBeUndefined();
    expect(change.job?.to).toEqual({ state: 'done' });
  });

  test('a retry: the challenge alone, still processing; its job pending again after the delay, with its attempts and the error', () => {
    const change = onValidation(claimed, { kind: 'retry', problem, retry: { delayMs: 1000, attempts: 2 } }, job);
    expectLegal(change, { challenge: 'retry' });
    expect(change.challenge?.set).toMatchObject({ error: problem, countAttempt: true });
    expect(change.job).toEqual({ ...job, to: { state: 'retry', delayMs: 1000, attempts: 2, error: 'refused' } });
  });

  test('finalize (its job leased), issued, issuance failed for good or for a retry', () => {
    const issuance = { kind: 'acme_issuance', reference: '3', owner: 'runner' };
    const finalize = onFinalize(3, { profile: 'p' } as unknown as SignRequest, { ...issuance, leaseMs: 5000 }, '10.0.0.1');
    expectLegal(finalize, { order: 'finalize' });
    expect(finalize.order?.set).toMatchObject({ sourceAddress: '10.0.0.1', request: { profile: 'p' } });
    expect(finalize.job).toEqual({ ...issuance, to: { state: 'lease', leaseMs: 5000 } });
    expectLegal({ order: onIssued(3) }, { order: 'issued' });
    expect(onIssued(3).set).toEqual({ request: null });
    const failed = onIssuanceFailed(3, problem, null, issuance);
    expectLegal(failed, { order: 'issuanceFailed' });
    expect(failed.order?.set).toEqual({ error: problem, request: null });
    expect(failed.job?.to).toEqual({ state: 'done' });
    const retry = onIssuanceFailed(3, problem, { delayMs: 2000, attempts: 1 }, issuance);
    expectLegal(retry, { order: 'issuanceRetry' });
    expect(retry.order?.set).toEqual({ error: problem, countAttempt: true });
    expect(retry.job?.to).toEqual({ state: 'retry', delayMs: 2000, attempts: 1, error: 'refused' });
  });

  test('an authorization deactivated takes its unfinished order with it', () => {
    const change = onAuthorizationDeactivated({ id: 5, orderId: 3 });
    expectLegal(change, { authorization: 'deactivate', order: 'authorizationFailed' });
    expect(change.order?.set?.error?.type).toBe('urn:ietf:params:acme:error:unauthorized');
  });

  test('an account deactivated, and expiry: bulk moves of the table', () => {
    const { account, cascade } = onAccountDeactivated();
    expect(account).toEqual({ from: ['valid'], to: 'deactivated' });
    expect(cascade.orders).toMatchObject({
      from: ['pending', 'ready'],
      to: 'invalid',
      error: { type: 'urn:ietf:params:acme:error:unauthorized' },
    });
    expect(cascade.authorizations).toEqual({ from: ['pending'], to: 'deactivated' });
    const expiry = onExpiry();
    expect(expiry.orders).toMatchObject({
      from: ['pending', 'ready'],
      to: 'invalid',
      error: { type: 'urn:ietf:params:acme:error:malformed' },
    });
    expect(expiry.authorizations).toEqual({ from: ['pending'], to: 'expired' });
  });
});
