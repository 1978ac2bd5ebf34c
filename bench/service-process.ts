import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

/** A built service process (`node dist/main.js <role>`), as the benchmarks run it beside themselves. */
export interface ServiceProcess {
  child: ChildProcess;
  /** The last few kilobytes of its output, shown when something fails. */
  tail(): string;
  /** VmRSS (now) or VmHWM (the peak so far) of /proc/<pid>/status in MB; NaN once it has gone. */
  memoryMb(field: 'VmRSS' | 'VmHWM'): number;
  /** SIGTERM, then SIGKILL if it has not exited within 30 s. */
  stop(): Promise<void>;
}

export function startServiceProcess(role: 'api' | 'worker', env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn(process.execPath, ['dist/main.js', role], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    child,
    tail: () => output,
    memoryMb: (field) => {
      try {
        const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return match ? Number(match[1]) / 1024 : NaN;
      } catch {
        return NaN;
      }
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
