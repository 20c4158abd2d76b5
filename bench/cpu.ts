/** CPU time spent by this process and by the load client's process while some work runs (Linux). */
import * as fs from 'fs';
import { performance } from 'perf_hooks';

export interface CpuSpent {
  /** ms of user + system time of this process (every thread). */
  server: number;
  /** ms of user + system time of the process `pid`; NaN where /proc is missing. */
  client: number;
  /** ms of user + system time of this process's main thread (the event loop's); NaN where /proc is missing. */
  serverMain: number;
  /** The event loop's utilization over the work (0–1: the share of time it was not waiting for I/O). */
  eventLoop: number;
}

/** ms of user + system time the process `pid` has spent so far (every thread); NaN where /proc is missing. */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** ms of user + system time in a `/proc/…/stat` file (a process's, or one thread's); NaN where it is missing. */
function statCpuMs(statFile: string): number {
  try {
    const stat = fs.readFileSync(statFile, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return Number.NaN;
  }
}

/**
 * ms of user + system time of the process `pid` and its descendants alive now (a cluster's primary
 * and its workers); NaN where /proc is missing.
 */
export function processTreeCpuMs(pid: number): number {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // ended meanwhile
    }
  }
  let sum = 0;
  const pending = [pid];
  while (pending.length) {
    const next = pending.pop() as number;
    sum += processCpuMs(next);
    pending.push(...(parents.get(next) ?? []));
  }
  return sum;
}

/**
 * ms of CPU spent so far by every process named `name` (`postgres`: the server and all its backends,
 * which come and go with connections, so a difference of two readings is a lower bound).
 */
export function processesCpuMs(name: string): number {
  let sum = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
    } catch {
      continue; // ended meanwhile
    }
    const ms = processCpuMs(Number(entry));
    if (!Number.isNaN(ms)) sum += ms;
  }
  return sum;
}

/** ms of CPU spent so far by each process named `name`, by process id. */
export function processesCpuSnapshot(name: string): Map<number, number> {
  const snapshot = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
    } catch {
      continue; // ended meanwhile
    }
    const ms = processCpuMs(Number(entry));
    if (!Number.isNaN(ms)) snapshot.set(Number(entry), ms);
  }
  return snapshot;
}

/**
 * ms of CPU the processes named `name` spent since `before` (a snapshot): a process started since
 * counts whole, one that ended since is missed (a lower bound, never below 0, where a difference of
 * two `processesCpuMs` sums goes negative when a busy backend ends in between).
 */
export function processesCpuSince(before: Map<number, number>, name: string): number {
  let sum = 0;
  for (const [pid, ms] of processesCpuSnapshot(name)) sum += Math.max(0, ms - (before.get(pid) ?? 0));
  return sum;
}

/** ms of CPU of this process's main thread: its task has the process id (Linux). */
function mainThreadCpuMs(): number {
  return statCpuMs(`/proc/self/task/${process.pid}/stat`);
}

function cpuNow(pid: number | undefined): Omit<CpuSpent, 'eventLoop'> {
  const usage = process.cpuUsage();
  return {
    server: (usage.user + usage.system) / 1000,
    client: pid === undefined ? 0 : processCpuMs(pid),
    serverMain: mainThreadCpuMs(),
  };
}

/** Run `work` and report what it cost both processes. */
export async function withCpu<T>(pid: number | undefined, work: () => Promise<T>): Promise<{ value: T; cpu: CpuSpent }> {
  const before = cpuNow(pid);
  const loopBefore = performance.eventLoopUtilization();
  const value = await work();
  const eventLoop = performance.eventLoopUtilization(loopBefore).utilization;
  const after = cpuNow(pid);
  return {
    value,
    cpu: {
      server: after.server - before.server,
      client: after.client - before.client,
      serverMain: after.serverMain - before.serverMain,
      eventLoop,
    },
  };
}
