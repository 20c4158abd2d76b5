/**
 * list_jobs and retry_job (docs/reference/cli.md; docs/DESIGN.md "Background jobs"): the background
 * jobs — webhook deliveries, the expiry scan, ACME validations, issuances and expiry — newest first, one line each; and a failed job made
 * pending again, for a running server's job runner to take at once.
 */
import { Option, type Command } from 'commander';
import { CaError } from '../../ca/errors';
import { hasJobStore, JOB_KINDS, JOB_STATES, type JobRecord, type JobState, type JobStore } from '../../ports';
import { formatUtc } from '../../x509/datetime';
import type { CommandContext } from '../context';
import type { Action } from './shared';

/** `<id> - <kind> <reference> - <state> - run at <UTC> - <n> attempts`, then ` - last error: <why>` when there is one. */
export function jobLine(job: JobRecord): string {
  const attempts = `${job.attempts} attempt${job.attempts === 1 ? '' : 's'}`;
  const head = [job.id, `${job.kind} ${job.reference}`, job.state, `run at ${formatUtc(job.runAt)}`, attempts].join(' - ');
  return job.lastError ? `${head} - last error: ${job.lastError.replace(/\s*\n\s*/g, ' ')}` : head;
}

/** A whole number from 1 (digits only), for `what`. */
function wholeNumber(text: string, what: string): number {
  const n = Number(text.trim());
  if (!/^\d{1,15}$/.test(text.trim()) || n < 1) throw new CaError('invalid', `${what} ${text}: not a whole number from 1.`);
  return n;
}

/** The kinds there are, for help and refusals (lib/ports/jobs.ts `JOB_KINDS`). */
const KINDS = Object.values(JOB_KINDS).join(', ');

/** `--kind`: letters, digits, `_`, `.` and `-`, at most 40 (one of `KINDS`). */
function kindOption(text: string): string {
  if (!/^[A-Za-z0-9_.-]{1,40}$/.test(text)) throw new CaError('invalid', `--kind ${text}: not a job kind (${KINDS}).`);
  return text;
}

async function jobsOf(ctx: CommandContext): Promise<JobStore> {
  const store = await ctx.store();
  if (!hasJobStore(store)) throw new CaError('invalid', 'This store keeps no background jobs (the knex store does).');
  return store.jobs;
}

export function registerJobCommands(program: Command, run: Action): void {
  program
    .command('list_jobs')
    .description(
      'List the background jobs (webhook deliveries, the expiry scan, ACME validations, issuances and expiry), newest first: id, kind and reference, state, when it runs next, failed attempts and the last error.',
    )
    .option('--kind <kind>', `only jobs of this kind (${KINDS})`)
    .addOption(new Option('--state <state>', 'only jobs in this state').choices(JOB_STATES))
    .option('--limit <n>', 'at most this many (the newest)')
    .action(
      run(async (ctx: CommandContext, o: { kind?: string; state?: JobState; limit?: string }) => {
        const limit = o.limit === undefined ? undefined : wholeNumber(o.limit, '--limit');
        const kind = o.kind === undefined ? undefined : kindOption(o.kind);
        const jobs = await (await jobsOf(ctx)).listJobs({ kind, state: o.state, limit });
        ctx.write(jobs.length ? jobs.map((job) => jobLine(job) + '\n').join('') : 'No jobs.\n');
      }),
    );

  program
    .command('retry_job')
    .description('Make a failed background job pending again, its attempts cleared: a running server takes it at once.')
    .argument('<id>', 'the id list_jobs shows')
    .action(
      run(async (ctx: CommandContext, id: string) => {
        const store = await jobsOf(ctx);
        const n = wholeNumber(id, 'job');
        const retried = await store.retryJob(n);
        if (!retried) {
          const job = await store.getJob(n);
          throw new CaError(
            job ? 'conflict' : 'not-found',
            job ? `Job ${n} is ${job.state}, not failed: left as it is.` : `${n}: Job not found.`,
          );
        }
        ctx.write(`Retried job ${retried.id} (${retried.kind} ${retried.reference}): pending.\n`);
      }),
    );
}
