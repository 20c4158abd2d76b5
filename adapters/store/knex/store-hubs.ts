/**
 * What a root KnexStore (store.ts) shares with the stores bound to its transactions: the change
 * announcements of the caches, and the group commits of the statements concurrent requests make
 * (group-commit.ts), which only the root store uses; and what the stores bound to one transaction
 * share (`PendingChanges`).
 */
import type { Knex } from 'knex';
import type {
  CertificateRecord,
  IntentTaken,
  IssuanceIntentRecord,
  NewCertificate,
  NewIssuanceIntent,
  NewIssuedOrder,
  NewOrder,
  OrderRecord,
} from '../../../lib/ports';
import * as acmeNonces from './acme-nonces';
import { groupedStatements } from './acme/grouped';
import type { AcmeHubs } from './acme/store';
import { ChangeHub } from './change-hub';
import * as certificates from './certificates';
import { insertAnsweringCertificates, type AnsweringCertificate } from './enrolment-answers';
import { GroupCommit } from './group-commit';
import { issuingWrites, type GroupedWrite } from './issuing-writes';
import * as orders from './orders';
import { writeWithEvents, type EventBatch } from './transaction-events';

/** What a root store shares with the stores bound to its transactions. */
export interface ChangeHubs {
  users: ChangeHub;
  cas: ChangeHub;
  certificates: ChangeHub;
  newOrders: GroupCommit<NewOrder, OrderRecord>; // group commit of `createOrder` (root store only)
  issuedOrders: GroupedWrite<NewIssuedOrder, OrderRecord | null>; // and of `createIssuedOrder`, with `recordIntent` (issuing-writes.ts)
  newCertificates: GroupCommit<NewCertificate, CertificateRecord>; // and of `insertCertificate`
  answeringCertificates: GroupCommit<AnsweringCertificate, CertificateRecord | null>; // and of SCEP answers
  newIntents: GroupedWrite<NewIssuanceIntent, IssuanceIntentRecord | IntentTaken>; // and of `recordIntent`, with `createIssuedOrder`
  nonces: acmeNonces.StoreNonces; // the nonce key, and group commit of nonce uses (root store only)
  acme: AcmeHubs; // grouped ACME statements (root store only), policy listeners
}

/** What the caches are told changed. */
export type ChangedKind = 'users' | 'cas' | 'certificates';

/** Ids changed inside a transaction, announced once it has committed; the events of its writes, appended last. */
export interface PendingChanges {
  users: number[];
  cas: number[];
  certificates: number[];
  events: EventBatch;
}

/** The hubs of a new root store on `db`. */
export function rootHubs(db: Knex): ChangeHubs {
  const issuing = issuingWrites(db);
  return {
    users: new ChangeHub(),
    cas: new ChangeHub(),
    certificates: new ChangeHub(),
    newOrders: new GroupCommit(
      (many) => orders.createOrders(db, many),
      (one) => orders.createOrder(db, one),
    ),
    issuedOrders: issuing.issuedOrders,
    newCertificates: new GroupCommit(
      (many) => writeWithEvents(db, null, null, (trx, record) => certificates.insertCertificates(trx, many, record)),
      (one) => writeWithEvents(db, null, null, (trx, record) => certificates.insertCertificate(trx, one, record)),
    ),
    answeringCertificates: new GroupCommit(
      (many) => insertAnsweringCertificates(db, many),
      async (one) => (await insertAnsweringCertificates(db, [one]))[0],
    ),
    newIntents: issuing.intents,
    nonces: new acmeNonces.StoreNonces(db),
    acme: { groups: groupedStatements(db), policyListeners: new Set(), accountListeners: new Set() },
  };
}
