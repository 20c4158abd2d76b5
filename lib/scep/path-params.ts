/**
 * The path parameter of the SCEP endpoints: the label, one path segment — never one of the suffixes
 * that clients append to a SCEP URL (`pkiclient.exe`, `cgi-bin`), which the table matches as such.
 */
import type { ParamKinds } from '../http/path-matcher';
import { SCEP_CLIENT_SUFFIXES } from './options';

export const SCEP_PATH_PARAMS: ParamKinds = {
  label: {
    pattern: '[A-Za-z0-9_.-]+',
    convert: (raw) => ((SCEP_CLIENT_SUFFIXES as readonly string[]).includes(raw) ? null : raw),
  },
};
