/**
 * `ca-admin sign_cert` and `resign_cert` (docs/reference/cli.md), run in-process on the
 * world's store. A refusal is a non-zero exit with one line on stderr.
 */
import { csrOf } from '../requests';
import type { CliResult } from '../../cli/helpers';
import { prePolicyCertificate } from './pre-policy';
import type { Door, Outcome } from './outcome';

function outcomeOf(r: CliResult): Outcome {
  if (r.code === 0) {
    const leaf = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n/.exec(r.stdout);
    return leaf
      ? { result: 'issued', pem: leaf[0], how: 'exit 0' }
      : { result: 'unexpected', how: `exit 0 without a certificate: ${r.stderr}` };
  }
  if (!/^[^\n]+\n$/.test(r.stderr))
    return { result: 'unexpected', how: `exit ${r.code}, stderr not one line: ${JSON.stringify(r.stderr)}` };
  return { result: 'refused', how: `exit ${r.code}`, text: r.stderr.replace(/^Error: /, '').trim() };
}

export const cliSign: Door = async (world, req) => {
  const csr = csrOf(world, req);
  const argv = ['sign_cert', '--ca', world.cas[req.ca].record.name, '--csr', csr.file];
  if (req.cn !== undefined) argv.push('--subject', `CN=${req.cn}`);
  if (req.days !== undefined) argv.push('--expires', String(req.days));
  if (req.sans?.length) argv.push('--subject-alternative-name', ...req.sans);
  return outcomeOf(await world.cli(argv));
};

export const cliResign: Door = async (world, req) => {
  const old = await prePolicyCertificate(world, req);
  const argv = ['resign_cert', old.serial];
  if (req.days !== undefined) argv.push('--expires', String(req.days));
  return { ...outcomeOf(await world.cli(argv)), prepared: 1 };
};
