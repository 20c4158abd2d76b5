/** The path parameter of the EST endpoints (RFC 7030 §3.2.2): the label, one path segment. */
import type { ParamKinds } from '../http/path-matcher';

export const EST_PATH_PARAMS: ParamKinds = {
  label: { pattern: '[A-Za-z0-9_.-]+' },
};
