/** The one table of the interface: a caption for screen readers, column headers, rows (each an `Html` of `<td>` cells). */
import { html, type Html } from './html';

export function dataTable(caption: string, columns: readonly string[], rows: readonly Html[]): Html {
  return html`<table>
    <caption class="visually-hidden">
      ${caption}
    </caption>
    <thead>
      <tr>
        ${columns.map((c) => html`<th scope="col">${c}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr>
            ${row}
          </tr> `,
      )}
    </tbody>
  </table>`;
}
