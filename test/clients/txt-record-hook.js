/**
 * The DNS hook of the client tests, for certbot's manual auth/cleanup hooks and lego's `exec` DNS
 * provider: adds or removes one TXT value in the records file that the test DNS server
 * (test/helpers/dns-server.ts) reads on every query. It writes another file and renames it over the
 * records file, so that the server never reads half of it.
 *
 *   node txt-record-hook.js <records.json> add|present <name> <value>
 *   node txt-record-hook.js <records.json> remove|cleanup <name> <value>
 *
 * `name` with or without its trailing dot (lego gives `_acme-challenge.example.test.`). Each call is
 * appended to `<records.json>.log` as `<action> <name> <value>`, for the test to read.
 */
const fs = require('fs');

const [file, action, fqdn, value] = process.argv.slice(2);
if (!file || !['add', 'present', 'remove', 'cleanup'].includes(action) || !fqdn || !value) {
  console.error('usage: txt-record-hook.js <records.json> add|present|remove|cleanup <name> <value>');
  process.exit(2);
}
const name = fqdn.toLowerCase().replace(/\.$/, '');
let records = {};
try {
  records = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  // No file yet: no records.
}
const values = (records[name]?.TXT ?? []).filter((v) => v !== value);
if (action === 'add' || action === 'present') values.push(value);
const { TXT: _old, ...others } = records[name] ?? {};
if (values.length > 0) records[name] = { ...others, TXT: values };
else if (Object.keys(others).length > 0) records[name] = others;
else delete records[name];
fs.writeFileSync(`${file}.tmp`, JSON.stringify(records, null, 2));
fs.renameSync(`${file}.tmp`, file);
fs.appendFileSync(`${file}.log`, `${action} ${name} ${value}\n`);
