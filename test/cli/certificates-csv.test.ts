/**
 * The certificates' CSV that `ca-admin list_certs --format csv` and the admin interface's export
 * share (lib/cli/certificates-csv.ts): RFC 4180 quoting, and a leading `'` before a field that a
 * spreadsheet would take for a formula (docs/guides/admin-interface.md).
 */
import { certificatesCsv, csvField } from '../../lib/cli/certificates-csv';
import type { CertificateRecord } from '../../lib/ports';

/** The fields the CSV reads, and nothing else. */
function record(o: { id: number; caId: number; serial: string; cn: string; sans: { type: string; value: unknown }[] }): CertificateRecord {
  return {
    id: o.id,
    caId: o.caId,
    serial: o.serial,
    cn: o.cn,
    profile: 'webserver',
    notBefore: new Date('2026-01-02T03:04:05.000Z'),
    notAfter: new Date('2027-01-02T03:04:05.000Z'),
    revoked: false,
    revokedReason: '',
    certificate: { extensions: [{ type: 'subject_alternative_name', critical: false, value: o.sans }] },
  } as unknown as CertificateRecord;
}

describe('certificates CSV', () => {
  test('fields starting with =, +, -, @, a tab or a carriage return get a leading quote mark; others are as they were', () => {
    expect(csvField('=1+2')).toBe("'=1+2");
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-1')).toBe("'-1");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\t=1')).toBe("'\t=1");
    expect(csvField('\r=1')).toBe('"\'\r=1"'); // then quoted, as a field with a line break is
    expect(csvField('=HYPERLINK("http://evil.example/","x")')).toBe('"\'=HYPERLINK(""http://evil.example/"",""x"")"');
    for (const plain of ['', 'www.example.com', 'a=b', 'x-1', '2026-01-02T03:04:05.000Z', 'DNS:-.example']) {
      expect(csvField(plain)).toBe(plain);
    }
    expect(csvField('Quote, "Comma" Inc')).toBe('"Quote, ""Comma"" Inc"');
  });

  test('a header and a CRLF-ended line per certificate, the SANs as TYPE:value, the CA by name or else by id', () => {
    const text = certificatesCsv(
      [
        record({
          id: 1,
          caId: 7,
          serial: 'A1B2',
          cn: 'www.example.com',
          sans: [
            { type: 'DNS', value: 'www.example.com' },
            { type: 'IP', value: '192.0.2.1' },
          ],
        }),
        record({ id: 2, caId: 8, serial: '3C', cn: '-cmd|calc', sans: [] }),
      ],
      new Map([[7, 'Root']]),
    );
    expect(text).toBe(
      'serial,common_name,ca,profile,not_before,not_after,revoked,revoked_reason,subject_alternative_names\r\n' +
        'A1:B2,www.example.com,Root,webserver,2026-01-02T03:04:05.000Z,2027-01-02T03:04:05.000Z,false,,DNS:www.example.com IP:192.0.2.1\r\n' +
        "3C,'-cmd|calc,8,webserver,2026-01-02T03:04:05.000Z,2027-01-02T03:04:05.000Z,false,,\r\n",
    );
    expect(certificatesCsv([], new Map())).toBe(
      'serial,common_name,ca,profile,not_before,not_after,revoked,revoked_reason,subject_alternative_names\r\n',
    );
  });
});
