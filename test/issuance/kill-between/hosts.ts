/**
 * Instances of the router as child processes (test/examples/fixtures/work-host.ts: REST, ACME, EST,
 * SCEP, on one PostgreSQL schema), for kill-between.test.ts. An instance may carry one gate, a file
 * the test owns: at `signing` its next signature waits before it is made (the intent is recorded,
 * nothing signed yet); at `storing` it waits once made, before it is handed back to be stored. Either
 * way `<gate>.held` appears, and the test kills the instance there — or lets it go on much later.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { startWorkHost, type Host } from '../../examples/fixtures/work-host-process';

/** Where an instance is held, and killed: before its signature, or between its signature and the store. */
export type Point = 'signing' | 'storing';
const GATE_VARIABLE: Record<Point, string> = { signing: 'WORK_HOST_SIGNING_GATE', storing: 'WORK_HOST_STORING_GATE' };

export type { Host };

export interface Gate {
  point: Point;
  path: string;
  /** Close the gate: from now on the instance's signatures wait at it. */
  close(): void;
  /** An instance waits at the gate. */
  held(): boolean;
  /** Open the gate again; resolves once the instance held there has gone on. */
  open(): Promise<void>;
}

import { sleep, until } from '../../helpers/until';

export { sleep, until };

export class Hosts {
  private readonly started: Host[] = [];

  /** `env`: DATABASE_URL (the schema), CA_KEY_ENCRYPTION_KEY, what ACME's validator needs. */
  constructor(
    private readonly env: Record<string, string>,
    private readonly dir: string,
  ) {}

  gate(point: Point): Gate {
    const file = path.join(this.dir, `${point}-${randomBytes(4).toString('hex')}.gate`);
    const passed = point === 'signing' ? `${file}.signed` : `${file}.let-go`;
    return {
      point,
      path: file,
      close: () => fs.writeFileSync(file, ''),
      held: () => fs.existsSync(`${file}.held`),
      open: async () => {
        fs.unlinkSync(file);
        await until('the instance past its gate', async () => fs.existsSync(passed));
      },
    };
  }

  /** A work-host with `options` (WORK_HOST_OPTIONS) and `gate`; resolves once it serves. */
  start(options: Record<string, unknown>, gate?: Gate): Promise<Host> {
    const env = { ...this.env, WORK_HOST_OPTIONS: JSON.stringify(options), ...(gate ? { [GATE_VARIABLE[gate.point]]: gate.path } : {}) };
    return startWorkHost(env, (host) => this.started.push(host));
  }

  kill(host: Host): Promise<void> {
    const { child } = host;
    return new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** Kill every instance started, but `keep`. */
  async killAll(keep?: Host): Promise<void> {
    const gone = this.started.filter((h) => h !== keep);
    this.started.splice(0, this.started.length, ...(keep ? [keep] : []));
    await Promise.all(gone.map((h) => this.kill(h)));
  }
}
