/**
 * CPU time of the processes a benchmark run involves, read from /proc (Linux), so a result can
 * say where each request's CPU went: the API, PostgreSQL, Redis, or the load generator itself.
 * On a 2-core machine they all share the same cores, so this split, not the rate alone, shows
 * what a change saved.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** User and system time, in clock ticks. */
  ticks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const close = text.lastIndexOf(')');
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    // After the name: state(0) ppid(1) ... utime(11) stime(12).
    return { pid, comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

function allStats(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== null);
}

export type CpuGroup = 'api' | 'postgres' | 'redis' | 'load';

/** CPU ticks per group at one moment; `api` is the given process and its children (cluster). */
function snapshot(apiPid: number): Map<number, { group: CpuGroup; ticks: number }> {
  const stats = allStats();
  const apiPids = new Set([apiPid]);
  for (const stat of stats) if (apiPids.has(stat.ppid)) apiPids.add(stat.pid);
  const out = new Map<number, { group: CpuGroup; ticks: number }>();
  for (const stat of stats) {
    const group: CpuGroup | null = apiPids.has(stat.pid)
      ? 'api'
      : stat.comm === 'postgres'
        ? 'postgres'
        : stat.comm.startsWith('redis-server')
          ? 'redis'
          : stat.pid === process.pid
            ? 'load'
            : null;
    if (group) out.set(stat.pid, { group, ticks: stat.ticks });
  }
  return out;
}

/** Starts counting; the returned function gives the CPU seconds each group used since. */
export function startCpuCount(apiPid: number): () => Record<CpuGroup, number> {
  const before = snapshot(apiPid);
  return () => {
    const totals: Record<CpuGroup, number> = { api: 0, postgres: 0, redis: 0, load: 0 };
    for (const [pid, now] of snapshot(apiPid)) {
      // A process born during the run (a new database backend) counts from zero.
      totals[now.group] += (now.ticks - (before.get(pid)?.ticks ?? 0)) / TICKS_PER_SECOND;
    }
    return totals;
  };
}
