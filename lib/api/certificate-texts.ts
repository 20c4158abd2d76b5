/**
 * JSON texts of certificate list rows (docs/DESIGN.md "Inventory").
 *
 * A list reads from the store (`CertificateVersionListing`), every time, which
 * certificates it holds and the version of each row — so which certificates are listed, and whether
 * their text is current, is always the database's answer of the moment, whichever instance changed
 * what. Only the rows whose text is not held at that version are read whole. A row's version changes
 * with any change of its JSON (a revocation), so a held text at the listed version cannot be stale.
 *
 * Texts are held UTF-8 encoded (outside V8's heap; a list copies them to the socket without encoding
 * them again) up to `maxBytes`, the least recently used dropped first. A list keeps the texts of
 * its first `fillRows` rows only: an export of a large CA streams through without pushing out what
 * the often-read small lists use, and without growing the process by what it passes on.
 */
import type { CertificateFilter, CertificateVersion, CertificateVersionListing } from '../ports';
import { certificateRecordText } from './serialize';

export interface CertificateTextsOptions {
  /** Bytes of texts held at most (default 16 MiB, about 4,500 certificates). 0 holds none. */
  maxBytes?: number;
  /** Rows of a list whose texts are kept (default 2,000). */
  fillRows?: number;
}

/** One row of a list: its id (for paging) and its JSON text, UTF-8 (encoded once, when it was read). */
export interface ListedText {
  id: number;
  json: Buffer;
}

/** Versions read per query of a streamed list: small rows, so few round trips. */
export const VERSION_BATCH_SIZE = 1000;
/** Rows read whole per query: few enough to stay young garbage while a slow client reads them. */
export const ROW_BATCH_SIZE = 100;

interface Held {
  version: string;
  json: Buffer;
}

export class CertificateTexts {
  private readonly held = new Map<number, Held>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly fillRows: number;
  constructor(
    private readonly store: CertificateVersionListing,
    options: CertificateTextsOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.fillRows = options.fillRows ?? 2000;
  }

  /** The rows of `store.listCertificates(filter)` (its `limit` included), in order. */
  async rows(filter: CertificateFilter): Promise<ListedText[]> {
    const versions = await this.store.listCertificateVersions(filter);
    return this.textsOf(versions, versions.length <= this.fillRows ? versions.length : 0);
  }

  /**
   * The whole list from `filter.afterId` (its `limit` ignored), in ascending id, as batches of texts,
   * read lazily: a consumer that stops early stops the reading.
   */
  async *batches(filter: CertificateFilter): AsyncGenerator<Buffer[]> {
    let afterId = filter.afterId;
    let listed = 0;
    for (;;) {
      const page = { ...filter, ...(afterId !== undefined ? { afterId } : {}), limit: VERSION_BATCH_SIZE };
      const versions = await this.store.listCertificateVersions(page);
      const ids = versions.map((v) => v.id);
      // A row batch at a time: what is alive while the client reads stays small.
      for (let i = 0; i < versions.length; i += ROW_BATCH_SIZE) {
        const rows = await this.textsOf(versions.slice(i, i + ROW_BATCH_SIZE), this.fillRows - (listed + i));
        if (rows.length > 0) yield rows.map((r) => r.json);
      }
      listed += ids.length;
      if (ids.length < VERSION_BATCH_SIZE) return;
      afterId = ids[ids.length - 1];
    }
  }

  /** Texts of these rows: held ones at their version as they are, the others read whole (the first `keepFirst` kept). */
  private async textsOf(versions: CertificateVersion[], keepFirst: number): Promise<ListedText[]> {
    const texts = new Map<number, Buffer>();
    const missing: number[] = [];
    for (const { id, version } of versions) {
      const held = this.take(id);
      if (held !== undefined && held.version === version) texts.set(id, held.json);
      else missing.push(id);
    }
    const keep = new Set(versions.slice(0, Math.max(0, keepFirst)).map((v) => v.id));
    for (let i = 0; i < missing.length; i += ROW_BATCH_SIZE) {
      for (const row of await this.store.getCertificateListRows(missing.slice(i, i + ROW_BATCH_SIZE))) {
        const json = Buffer.from(certificateRecordText(row));
        texts.set(row.id, json);
        // Kept at the version read with the row: if it changed since the list, the next list reads it again.
        if (keep.has(row.id)) this.keep(row.id, { version: row.version, json });
      }
    }
    const out: ListedText[] = [];
    for (const { id } of versions) {
      const json = texts.get(id);
      // Gone between the two reads (a store that deletes rows): not listed, as a moment later.
      if (json !== undefined) out.push({ id, json });
    }
    return out;
  }

  /** A held text, now the most recently used. */
  private take(id: number): Held | undefined {
    const held = this.held.get(id);
    if (held !== undefined) {
      this.held.delete(id);
      this.held.set(id, held);
    }
    return held;
  }

  private keep(id: number, entry: Held): void {
    if (entry.json.length > this.maxBytes) return;
    const before = this.held.get(id);
    if (before) {
      this.held.delete(id);
      this.bytes -= before.json.length;
    }
    this.held.set(id, entry);
    this.bytes += entry.json.length;
    for (const [oldest, { json }] of this.held) {
      if (this.bytes <= this.maxBytes) break;
      this.held.delete(oldest);
      this.bytes -= json.length;
    }
  }

  /** Records held and their bytes (for tests and metrics). */
  get holding(): { records: number; bytes: number } {
    return { records: this.held.size, bytes: this.bytes };
  }
}
