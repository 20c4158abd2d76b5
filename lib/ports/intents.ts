/**
 * Issuance intents (docs/DESIGN.md "Issuing authority"): what the CA is about to sign, written and
 * committed before the signature — the TBSCertificate with its reserved serial, the way in, the
 * requester, what the certificate answers. No signature without a row; a serial names one
 * to-be-signed certificate; two requests for the same order race here, before either signs.
 */
import type { Actor } from './events';

/** Which way in asked, or which of the CA's own delegates is being certified. */
export type IssuanceDoor = 'rest' | 'acme' | 'est' | 'scep' | 'admin' | 'cli' | 'library' | 'ocsp' | 'scep-ra' | (string & {});

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

export interface IssuanceIntentRecord extends NewIssuanceIntent {
  id: number;
  created: Date;
  /** The stored certificate (set in the statement that stores it); null while pending or failed. */
  certificateId: number | null;
  /** When it was given up, and why; null unless it failed. */
  failed: Date | null;
  failure: string | null;
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
  /** Intents, newest first (the audit view, tests). */
  listIntents(filter?: { caId?: number; pendingOnly?: boolean; limit?: number }): Promise<IssuanceIntentRecord[]>;
}

export function isIntentTaken(result: IssuanceIntentRecord | IntentTaken): result is IntentTaken {
  return 'taken' in result;
}
