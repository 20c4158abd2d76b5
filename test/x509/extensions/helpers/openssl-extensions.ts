/**
 * The `openssl` CLI as an independent encoder of X.509 extensions: given v3 config lines
 * (`keyUsage = critical, digitalSignature`), let openssl issue a throw-away self-signed certificate and
 * return each extension's critical flag and extnValue bytes, read with our DER layer only (no codec).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseDer, readBoolean, readOctets, readOid, readSequence, Type, children } from '../../../../lib/x509/asn1';

export interface RawExtension {
  oid: string;
  critical: boolean;
  extnValue: Buffer;
}

/** Extensions of a certificate DER, in certificate order, straight from the ASN.1 structure. */
export function rawExtensions(certDer: Buffer): RawExtension[] {
  const tbs = readSequence(readSequence(parseDer(certDer, 'certificate'), 'certificate')[0], 'tbsCertificate');
  const last = tbs[tbs.length - 1];
  if (last.tagClass !== 0x80 || last.type !== 3) return [];
  return readSequence(children(last, '[3]')[0], 'Extensions').map((ext) => {
    const items = readSequence(ext, 'Extension');
    const critical = items.length === 3 && items[1].type === Type.BOOLEAN ? readBoolean(items[1]) : false;
    return { oid: readOid(items[0]), critical, extnValue: readOctets(items[items.length - 1]) };
  });
}

/** Have openssl write the given extension config lines into a certificate; returns its extensions. */
export function opensslExtensions(lines: string[], sections: string[] = []): RawExtension[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ext-oracle-'));
  try {
    const cfg = path.join(dir, 'ext.cnf');
    fs.writeFileSync(
      cfg,
      [
        '[req]',
        'distinguished_name = dn',
        '[dn]',
        '[ext]',
        // openssl adds key identifiers by default; keep them out unless asked for.
        ...(lines.some((l) => l.startsWith('subjectKeyIdentifier')) ? [] : ['subjectKeyIdentifier = none']),
        'authorityKeyIdentifier = none',
        ...lines,
        ...sections,
      ].join('\n') + '\n',
    );
    const out = path.join(dir, 'cert.der');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ed25519',
        '-nodes',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-subj',
        '/CN=oracle',
        '-days',
        '1',
        '-config',
        cfg,
        '-extensions',
        'ext',
        '-outform',
        'DER',
        '-out',
        out,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return rawExtensions(fs.readFileSync(out));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The one extension with `oid` that openssl wrote for `lines`. */
export function opensslExtension(oid: string, lines: string[], sections: string[] = []): RawExtension {
  const found = opensslExtensions(lines, sections).filter((e) => e.oid === oid);
  if (found.length !== 1) throw new Error(`openssl wrote ${found.length} extensions ${oid}`);
  return found[0];
}
