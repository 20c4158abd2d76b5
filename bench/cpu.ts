/** CPU time spent by this process and by the load client's process while some work runs (Linux). */
import * as fs from 'fs';

export interface CpuSpent {
  /** ms of user + system time of this process (every thread). */
  server: number;
  /** ms of user + system time of the process `pid`; NaN where /proc is missing. */
  client: number;
}

function cpuNow(pid: number | undefined): CpuSpent {
  const usage = process.cpuUsage();
  let client = 0;
  if (pid !== undefined) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      client = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
    } catch {
      client = Number.NaN;
    }
  }
  return { server: (usage.user + usage.system) / 1000, client };
}

/** Run `work` and report what it cost both processes. */
export async function withCpu<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ value: T; cpu: CpuSpent }> {
  const before = cpuNow(pid);
  const value = await work();
  const after = cpuNow(pid);
  return { value, cpu: { server: after.server - before.server, client: after.client - before.client } };
}
