/**
 * What the example server prints for people to paste: the REST API flow with curl and openssl, and,
 * with ACME on, certbot and lego against the intermediate's ACME directory.
 */
import type { DemoCredentials } from './demo-data';

const JSON_FIELD = (expr: string) => `node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8"))${expr}'`;

/** Copy-paste shell commands (bash) for the whole flow, with this server's values filled in. */
export function walkThrough(apiRoot: string, c: DemoCredentials, caSerial: string, rootPem: string, rootSerial: string): string {
  const auth = `-u '${c.username}:${c.password}'`;
  return [
    '',
    'Try it (bash; needs curl, openssl, node):',
    '--- walk-through ---',
    `API='${apiRoot}'`,
    '# 1. a key and a CSR',
    "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout demo.key -out demo.csr -subj '/CN=demo.example.com'",
    '# 2. find the CA (the API-enabled intermediate)',
    `curl -s ${auth} "$API/ca/" | ${JSON_FIELD('.map(ca => ca.name + " " + ca.certificate.serial).join("\\n")')}`,
    `CA='${caSerial}'`,
    `curl -s ${auth} "$API/ca/$CA/" | ${JSON_FIELD('.certificate.pem')} > intermediate.pem`,
    '# 3. ask for a certificate: the answer is an order',
    `BODY=$(node -e 'console.log(JSON.stringify({csr: require("fs").readFileSync("demo.csr", "utf8"), subject: [{oid: "CN", value: "demo.example.com"}], extensions: [{type: "subject_alternative_name", value: [{type: "DNS", value: "demo.example.com"}]}]}))')`,
    `SLUG=$(curl -s ${auth} -H 'Content-Type: application/json' -d "$BODY" "$API/ca/$CA/sign/" | ${JSON_FIELD('.slug')})`,
    '# 4. poll the order until it is issued',
    `for i in $(seq 1 20); do STATUS=$(curl -s ${auth} "$API/ca/$CA/orders/$SLUG/" | ${JSON_FIELD('.status')}); [ "$STATUS" != pending ] && break; sleep 0.5; done; echo "order $SLUG: $STATUS"`,
    `SERIAL=$(curl -s ${auth} "$API/ca/$CA/orders/$SLUG/" | ${JSON_FIELD('.serial')})`,
    '# 5. fetch the certificate and check it with openssl',
    `curl -s ${auth} "$API/ca/$CA/certs/$SERIAL/" | ${JSON_FIELD('.certificate.pem')} > demo.pem`,
    `openssl verify -CAfile '${rootPem}' -untrusted intermediate.pem demo.pem`,
    '# 6. as a relying party: the intermediate from the CA-Issuers URL in the certificate, OCSP, CRL',
    `curl -s "$(openssl x509 -in demo.pem -noout -ext authorityInfoAccess | sed -n 's/.*CA Issuers - URI://p')" | openssl x509 -inform DER -out issuer.pem`,
    `openssl verify -CAfile '${rootPem}' -untrusted issuer.pem demo.pem`,
    `cat '${rootPem}' issuer.pem > chain.pem`,
    'openssl ocsp -issuer issuer.pem -cert demo.pem -url "$(openssl x509 -in demo.pem -noout -ocsp_uri)" -CAfile chain.pem',
    '# 7. revoke it: OCSP and the CRL say so at once',
    `curl -s ${auth} -H 'Content-Type: application/json' -d '{"reason": "key_compromise"}' "$API/ca/$CA/certs/$SERIAL/revoke/" > /dev/null`,
    'openssl ocsp -issuer issuer.pem -cert demo.pem -url "$(openssl x509 -in demo.pem -noout -ocsp_uri)" -CAfile chain.pem',
    `curl -s "$(openssl x509 -in demo.pem -noout -ext crlDistributionPoints | sed -n 's/.*URI://p')" | openssl crl -inform DER -out demo-crl.pem`,
    `curl -s "\${API%/api}/crl/ca/${rootSerial}/?encoding=PEM" > root-crl.pem`,
    'openssl crl -in demo-crl.pem -noout -text | grep -A4 -E "Serial Number: 0?$SERIAL"',
    `cat demo-crl.pem root-crl.pem > crls.pem`,
    `openssl verify -crl_check_all -CAfile '${rootPem}' -untrusted issuer.pem -CRLfile crls.pem demo.pem 2>&1 || true`,
    '--- end ---',
  ].join('\n');
}

export interface AcmeWalkThroughOptions {
  /** The ACME directory of the demo intermediate. */
  directory: string;
  /** The server speaks HTTPS (TLS_CERT_FILE): the clients must trust its certificate's issuer. */
  https: boolean;
  /** Where the validator fetches http-01 answers (CA_ACME_HTTP01_PORT, default 80): where the clients must listen. */
  http01Port: number;
}

/**
 * certbot and lego against the demo intermediate, for the http-01 challenge (RFC 8555 §8.3): the
 * server fetches the token from CA_ACME_HTTP01_PORT of the name asked for, where the client itself
 * answers. Without CA_ACME_DNS_SERVERS the validator resolves names as this machine does, so a line
 * in /etc/hosts is all a demo name needs (docs/guides/acme.md, the one-machine recipe).
 */
export function acmeWalkThrough(o: AcmeWalkThroughOptions): string {
  const port = o.http01Port;
  return [
    '',
    'ACME is on (CA_ENABLE_ACME): the intermediate CA takes RFC 8555 clients.',
    `ACME directory: ${o.directory}`,
    '--- acme walk-through ---',
    `# certbot and lego answer the http-01 challenge on port ${port} of this machine (CA_ACME_HTTP01_PORT)${port < 1024 ? ': run them as root' : ''},`,
    '# with demo.internal resolving to it: the validator resolves names as this machine does, so a line',
    "# '127.0.0.1 demo.internal' in /etc/hosts is enough (or set CA_ACME_DNS_SERVERS to a DNS server of yours).",
    ...(o.https
      ? [
          "# The server's TLS certificate must be trusted: REQUESTS_CA_BUNDLE=its-ca.pem for certbot, LEGO_CA_CERTIFICATES=its-ca.pem for lego.",
        ]
      : []),
    `certbot certonly --server '${o.directory}' --standalone --http-01-port ${port} -d demo.internal --register-unsafely-without-email --agree-tos`,
    `lego --server '${o.directory}' --email you@example.com --accept-tos --domains demo.internal --http --http.port :${port} run`,
    '--- end acme ---',
  ].join('\n');
}
