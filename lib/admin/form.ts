/**
 * The body of an admin form: `application/x-www-form-urlencoded`, at most 64 KiB (a pasted CSR fits),
 * UTF-8 without NUL characters (the API's hostile-input rule, docs/reference/differences.md D16); else 400 or 413.
 */
import { isUtf8 } from 'buffer';
import type { Request } from 'express';
import { readRawBody } from '../http/body';
import { HttpError } from '../http/http-errors';

export const FORM_LIMIT = 64 * 1024;

export async function readForm(req: Request): Promise<URLSearchParams> {
  const raw = await readRawBody(req, FORM_LIMIT);
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (raw.length > 0 && type !== 'application/x-www-form-urlencoded') {
    throw new HttpError(415, 'Forms are sent as application/x-www-form-urlencoded.');
  }
  if (!isUtf8(raw)) throw new HttpError(400, 'The form is not UTF-8 text.');
  const form = new URLSearchParams(raw.toString('utf8'));
  for (const value of form.values()) {
    if (value.includes('\u0000')) throw new HttpError(400, 'The form contains a NUL character.');
  }
  return form;
}
