/**
 * Issuance intents (docs/DESIGN.md "Issuing authority"): what the CA is about to sign, written and
 * committed before the signature — the TBSCertificate with its reserved serial, the way in, the
 * requester, what the certificate answers. No signature without a row; a serial names one
 * to-be-signed certificate; two requests for the same order race here, before either signs.
 */
import type { Actor } from './events';

/** Which way in asked, or which of the CA's own delegates is being certified. */
export type IssuanceDoor = 'rest' | 'acme' | 'est' | 'scep' | 'admin' | 'cli' | 'library' | 'ocsp' | 'scep-ra' | (string & {});

/** The doors the library itself records (a filter offers them; a host may record others). */
export const KNOWN_ISSUANCE_DOORS: readonly IssuanceDoor[] = ['rest', 'acme', 'est', 'scep', 'admin', 'cli', 'library', 'ocsp', 'scep-ra'];

export interface NewIssuanceIntent {
  caId: number;
  /** The serial reserved for it (hex, as stored with certificates). */
  serial: string;
  door: IssuanceDoor;
  requester: Actor | null;
  /**
   * What the certificate answers, where a second request could ask for the same one (`order:12`,
   * `acme-order:5`, `enrolment:…`): unique among the intents that have not failed.
   */
  answers: string | null;
  /** The TBSCertificate DER to be signed. */
  tbs: Buffer;
}

export interface IssuanceIntentRecord extends Omit<NewIssuanceIntent, 'tbs'> {
  /**
   * The TBSCertificate DER to be signed; null once issued (the certificate holds it: the store lets
   * the copy go when it stores the certificate, docs/DESIGN.md "Issuing authority").
   */
  tbs: Buffer | null;
  id: number;
  created: Date;
  /** The stored certificate (set in the statement that stores it); null while pending or failed. */
  certificateId: number | null;
  /** When it was given up, and why; null unless it failed. */
  failed: Date | null;
  failure: string | null;
}

/** Where an intent stands: `pending` (being signed, or left by a process that died), `issued` (its certificate stored), `failed` (given up). */
export type IntentState = 'pending' | 'issued' | 'failed';

export const INTENT_STATES: readonly IntentState[] = ['pending', 'issued', 'failed'];

/** Which intents `listIntents` returns; every field narrows, none given is every intent. */
export interface IntentFilter {
  caId?: number;
  state?: IntentState;
  /** The same as `state: 'pending'` (kept for callers written before `state`). */
  pendingOnly?: boolean;
  door?: IssuanceDoor;
  /** Recorded from then on (`created` at or after it). */
  since?: Date;
  /** A page of a listing, newest first: the intents with a smaller id than this (the oldest one shown). */
  beforeId?: number;
  limit?: number;
}

/** The state of a stored intent. */
export function intentState(intent: Pick<IssuanceIntentRecord, 'certificateId' | 'failed'>): IntentState {
  if (intent.certificateId !== null) return 'issued';
  return intent.failed !== null ? 'failed' : 'pending';
}

/** `recordIntent`'s answer when another intent, not failed, answers the same thing already. */
export interface IntentTaken {
  taken: IssuanceIntentRecord;
}

export interface IssuanceIntentStore {
  /**
   * Write and commit `intent` (outside any transaction of the caller's: the row must exist before
   * the signature). When an intent that has not failed answers the same thing, nothing is written
   * and that intent is returned as `{ taken }`.
   */
  recordIntent(intent: NewIssuanceIntent): Promise<IssuanceIntentRecord | IntentTaken>;
  /** Give up a pending intent (a refusal after it was recorded). Does nothing to an intent that has its certificate. */
  failIntent(id: number, failure: string): Promise<void>;
  /**
   * Mark failed every intent still pending that was recorded before `before`: its process died or
   * stalled between intent and store. How many.
   */
  settleInterruptedIntents(before: Date, failure: string): Promise<number>;
  /** Intents, newest first (by id), as `filter` narrows them (the admin interface's Signatures page, `ca-admin list_intents`). */
  listIntents(filter?: IntentFilter): Promise<IssuanceIntentRecord[]>;
}

export function isIntentTaken(result: IssuanceIntentRecord | IntentTaken): result is IntentTaken {
  return 'taken' in result;
}
