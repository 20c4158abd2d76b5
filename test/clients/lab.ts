/**
 * The setting every client test starts from: a temporary folder, the test DNS server (reading its
 * records from a file the clients' DNS hooks write), the ports where the clients answer http-01 (and
 * tls-alpn-01), and the example server with ACME whose validator uses them — optionally over HTTPS
 * with a TLS CA of the test's own (`tls`), which the clients are then told to trust.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server';
import { unusedPort } from '../helpers/sockets';
import { makeTlsServerCertificate, startAcmeExample, type AcmeExample } from './harness';

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

export interface ClientLab {
  dir: string;
  dns: TestDnsServer;
  /** The file the test DNS server reads its records from (the DNS hooks write it). */
  records: string;
  http01Port: number;
  /** Only with `tlsAlpn`. */
  tlsAlpnPort: number;
  /** Only with `tls`: the TLS CA (which the clients trust), server certificate and key. */
  tls: TlsFiles | null;
  example: AcmeExample;
  close(): Promise<void>;
}

export interface ClientLabOptions {
  /** A port for tls-alpn-01 too. */
  tlsAlpn?: boolean;
  /** Make a TLS CA and a certificate for localhost first. */
  tls?: boolean;
  /** More of the example server's environment; gets the TLS files where `tls` made them. */
  env?: (tls: TlsFiles | null) => Record<string, string>;
}

export async function startClientLab(name: string, o: ClientLabOptions = {}): Promise<ClientLab> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `clients-${name}-`));
  const records = path.join(dir, 'dns-records.json');
  const started: { dns?: TestDnsServer; example?: AcmeExample } = {};
  const close = async () => {
    await started.example?.stop();
    await started.dns?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const tls = o.tls ? await makeTlsServerCertificate(dir) : null;
    const dns = (started.dns = await startDnsServer({ recordsFile: records, zones: ['example.test'] }));
    const http01Port = await unusedPort();
    const tlsAlpnPort = o.tlsAlpn ? await unusedPort() : 0;
    const example = (started.example = await startAcmeExample(path.join(dir, 'data'), {
      CA_ACME_DNS_SERVERS: dns.address,
      CA_ACME_HTTP01_PORT: String(http01Port),
      ...(o.tlsAlpn ? { CA_ACME_TLS_ALPN01_PORT: String(tlsAlpnPort) } : {}),
      ...o.env?.(tls),
    }));
    return { dir, dns, records, http01Port, tlsAlpnPort, tls, example, close };
  } catch (error) {
    await close();
    throw error;
  }
}
