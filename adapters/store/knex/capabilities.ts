/** Everything the knex store implements: the `Store` port and every optional store capability of lib/ports. */
import type {
  AcmeNonceStore,
  AcmeStoreProvider,
  ActorScopedStore,
  BatchOrderStore,
  EventLog,
  IssuedOrderStore,
  MetricsReadingsProvider,
  OrderListing,
  OrderRetry,
  Store,
} from '../../../lib/ports';

export interface KnexStoreCapabilities<Self>
  extends
    Store,
    BatchOrderStore,
    IssuedOrderStore,
    OrderListing,
    OrderRetry,
    EventLog,
    ActorScopedStore<Self>,
    AcmeNonceStore,
    AcmeStoreProvider,
    MetricsReadingsProvider {}
