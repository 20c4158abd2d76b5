/**
 * create_enrolment_challenge (docs/guides/scep.md): a one-time challenge password for one device, printed
 * once and kept only as its SHA-256 (lib/enrolment/challenges.ts).
 */
import type { Command } from 'commander';
import { CaError } from '../../ca/errors';
import { createEnrolmentChallenge } from '../../enrolment/challenges';
import { X509Error } from '../../x509/errors';
import { DAY_MS, formatUtc } from '../../x509/datetime';
import { parseRfc4514 } from '../../x509/rfc4514';
import type { Name } from '../../x509/types';
import type { CommandContext } from '../context';
import { parseGeneralNameArg } from '../extension-options';
import { intOption, type Action } from './shared';

/** `scep` (the URLs without a label) or `scep/LABEL`. */
const ENDPOINT = /^(scep)(?:\/([A-Za-z0-9_.-]+))?$/;

interface Options {
  subject?: string;
  san?: string[];
  expires?: string;
}

export function registerEnrolmentCommands(program: Command, run: Action): void {
  program
    .command('create_enrolment_challenge')
    .description(
      'Make a one-time challenge password for one device enrolling at an endpoint: printed once, kept only as its ' +
        'SHA-256, used by the first certificate issued with it. --subject and --san bind it to the names the CSR must ask for.',
    )
    .argument(
      '<endpoint>',
      'scep for the SCEP URLs without a label, scep/LABEL for a label of the options or of create_enrolment_endpoint (docs/guides/scep.md)',
    )
    .option('--subject <dn>', 'the subject the CSR must ask for, exactly (RFC 4514, e.g. "CN=dev1.example.org")')
    .option('--san <name...>', 'the subjectAltNames the CSR must ask for, all of them and no other (DNS:..., IP:...)')
    .option('--expires <days>', 'days until it expires unused (default 7)')
    .action(
      run(async (ctx: CommandContext, endpoint: string, o: Options) => {
        const m = ENDPOINT.exec(endpoint);
        if (!m) throw new CaError('invalid', `${endpoint}: an endpoint is scep or scep/LABEL.`);
        const days = o.expires === undefined ? 7 : intOption(o.expires, '--expires');
        if (days < 1) throw new CaError('invalid', '--expires: a challenge is valid for at least one day.');
        let subject: Name | null;
        let san: { type: string; value: string }[] | null;
        try {
          subject = o.subject === undefined ? null : parseRfc4514(o.subject);
          san = o.san === undefined ? null : o.san.map(parseGeneralNameArg);
        } catch (e) {
          if (e instanceof X509Error) throw new CaError('invalid', e.message);
          throw e;
        }
        const made = await createEnrolmentChallenge(await ctx.store(), {
          protocol: m[1],
          label: m[2] ?? '',
          subject,
          san,
          validityMs: days * DAY_MS,
        });
        ctx.write(`id: ${made.id}\nchallenge: ${made.secret}\nexpires: ${formatUtc(made.expires)}\n`);
      }),
    );
}
