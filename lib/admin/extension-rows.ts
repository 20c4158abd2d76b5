/** A certificate's extensions as a table, in words (lib/x509/readable-extensions.ts), each with its criticality. */
import type { Extension } from '../x509/types';
import { readableExtensions } from '../x509/readable-extensions';
import { html, type Html } from './html';
import { dataTable } from './table';

export function extensionRows(extensions: readonly Extension[]): Html {
  if (extensions.length === 0) return html`<p>(none)</p>`;
  return dataTable(
    'Extensions',
    ['Extension', 'Critical', 'Value'],
    readableExtensions(extensions).map(
      (e) =>
        html`<td>${e.label}</td>
          <td>${e.critical ? 'yes' : 'no'}</td>
          <td>${e.lines.map((line, i) => html`${i ? html`<br />` : null}${line}`)}</td>`,
    ),
  );
}
