/**
 * The certificate list as CSV (docs/guides/admin-interface.md): `certs/export.csv` with the list's filters
 * (`readListQuery`) gives every row of that list — all its pages, not only the one on screen — of the
 * CAs where the user holds `view_certificate`. It is read as the list is (`listPage`, keyset by id),
 * a thousand rows at a time, and each page is written before the next is asked for, with the
 * socket's back-pressure (lib/http/streamed-body.ts): the list is never held whole in memory. The
 * columns, and the `'` before a field a spreadsheet would take for a formula, are those of
 * `ca-admin list_certs --format csv` (lib/cli/certificates-csv.ts).
 */
import { CERTIFICATES_CSV_HEADER, certificateCsvLine } from '../../cli/certificates-csv';
import { sendStreamedBody } from '../../http/streamed-body';
import type { CaRecord } from '../../ports';
import { casWith } from '../access';
import type { SignedInContext } from '../context';
import { listedCas, listPage, readListQuery, type ListQuery } from './certificates';

/** Rows per page read (per CA and search: `listPage` asks each for one page after the cursor). */
export const EXPORT_PAGE_SIZE = 1_000;

/**
 * The header and the rows, a page per chunk. The first page is read before anything is written, so
 * that a failure of its query is still an error page; a later one can only cut the connection.
 */
async function* csvChunks(ctx: SignedInContext, cas: CaRecord[], query: ListQuery, now: Date): AsyncGenerator<string> {
  const caNames = new Map(cas.map((ca) => [ca.id, ca.name]));
  let head = CERTIFICATES_CSV_HEADER;
  let after = 0;
  for (;;) {
    const { rows, more } = await listPage(ctx, cas, { ...query, after }, now, EXPORT_PAGE_SIZE);
    yield head + rows.map((cert) => certificateCsvLine(cert, caNames.get(cert.caId) ?? String(cert.caId))).join('');
    if (!more || rows.length === 0) return;
    head = '';
    after = rows[rows.length - 1].id;
  }
}

export async function exportCertificates(ctx: SignedInContext): Promise<void> {
  const now = new Date();
  const query = readListQuery(ctx.req.query as Record<string, unknown>);
  const cas = listedCas(await casWith(ctx, 'view_certificate'), query);
  const { res } = ctx;
  const writeHead = (): void => {
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="certificates-${now.toISOString().slice(0, 10)}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
  };
  // HEAD: the headers only, without reading the list.
  const chunks = ctx.req.method === 'HEAD' ? (async function* () {})() : csvChunks(ctx, cas, query, now);
  await sendStreamedBody(res, writeHead, chunks);
}
