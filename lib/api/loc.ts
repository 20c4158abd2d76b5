/**
 * Where a problem sits in a request, as django-ninja's `loc` (docs/COMPATIBILITY.md §1.4): from an
 * ajv JSON pointer or a path of keys and indexes, with the union tag pydantic inserts for the
 * discriminated `extensions` list.
 */
import type { Loc } from '../http/http-errors';
import { badText } from './bad-text';

/**
 * ajv's JSON pointer → a ninja `loc` path. Array indexes become numbers; inside an `extensions` list
 * the extension's `type` is inserted after the index, as pydantic does for discriminated unions
 * (`['extensions', 0, 'key_usage', 'value', 0]`).
 */
export function pointerToLoc(pointer: string, data: unknown): Loc {
  return pathToLoc(
    pointer
      .split('/')
      .slice(1)
      .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~')),
    data,
  );
}

export const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Path segments (keys, indexes as text or numbers) into `data` → a ninja `loc` (see `pointerToLoc`). */
export function pathToLoc(segments: (string | number)[], data: unknown): Loc {
  const loc: Loc = [];
  let node: unknown = data;
  let parentKey: string | number | null = null;
  segments.forEach((segment, position) => {
    const key = String(segment);
    if (Array.isArray(node)) {
      const index = Number(key);
      loc.push(index);
      node = node[index];
      // Only for problems *inside* the extension: a bad tag itself is reported at the index.
      const inside = position < segments.length - 1;
      if (inside && parentKey === 'extensions' && isObject(node) && typeof node.type === 'string' && !badText(node.type))
        loc.push(node.type);
      parentKey = index;
    } else {
      loc.push(key);
      node = isObject(node) ? node[key] : undefined;
      parentKey = key;
    }
  });
  return loc;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
