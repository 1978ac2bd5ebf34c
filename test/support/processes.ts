import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { resolve } from 'node:path';
import { readUntil } from './waiting';

export const REPO_ROOT = resolve(__dirname, '..', '..');

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  /** Sends a signal to the whole process group, as a terminal or an orchestrator does. */
  signal(signal: NodeJS.Signals): void;
  /** Kills the whole process group, for clean-up after a failed test. */
  kill(): void;
  /** SIGTERM to the group, SIGKILL after `graceMs` without an exit (at once for 0); resolves once it has gone. */
  stop(graceMs: number): Promise<void>;
}

/** How Node prints a runtime warning (a deprecation, an experimental feature, a dependency's notice). */
const RUNTIME_WARNING = /^\(node:\d+\) (\[[A-Z0-9]+\] )?[A-Za-z]*Warning/;

/**
 * Runs a command from the repository root in its own process group, collecting its output. A
 * runtime warning it prints is also written to this process's stderr, where the CI's check for
 * warnings in the tests' output (.ci/run) sees it, as it sees the tests' own.
 */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv): ServiceProcess {
  const child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let checkedUpTo = 0;
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    const complete = output.lastIndexOf('\n') + 1;
    for (const line of output.slice(checkedUpTo, complete).split('\n')) {
      if (RUNTIME_WARNING.test(line)) process.stderr.write(`${line}\n`);
    }
    checkedUpTo = Math.max(checkedUpTo, complete);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string>((done) =>
    child.once('exit', (code, signal) => done(code ?? signal ?? 'unknown')),
  );
  const running = () => child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is already gone.
    }
  };
  return {
    child,
    output: () => output,
    exited,
    signal: (signal) => {
      if (running()) process.kill(-(child.pid as number), signal);
    },
    kill,
    stop: async (graceMs) => {
      if (!running()) return;
      if (graceMs === 0) kill();
      else process.kill(-(child.pid as number), 'SIGTERM');
      const timer = setTimeout(kill, graceMs);
      await exited;
      clearTimeout(timer);
    },
    waitForOutput: (pattern, timeoutMs = 60_000) =>
      new Promise((done, fail) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            done(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          fail(new Error(`timed out waiting for ${pattern} in output:\n${output.slice(-4000)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

/** Runs the built service (`node dist/main.js <role>`) as it runs in production. */
export const startService = (role: 'api' | 'worker', env: NodeJS.ProcessEnv): ServiceProcess =>
  startProcess('node', ['dist/main.js', role], env);

/** Polls the readiness endpoint of a service on a loopback port until it answers 200. */
export async function waitForReady(port: number, timeoutMs = 60_000): Promise<void> {
  const url = `http://127.0.0.1:${port}/health/ready`;
  const answer = async () => {
    try {
      return `status ${(await fetch(url)).status}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  await readUntil(
    answer,
    (last) => last === 'status 200',
    (last) => `${url} to answer 200 (last: ${last})`,
    {
      timeoutMs,
      intervalMs: 250,
    },
  );
}

/** Whether anything accepts a TCP connection on a loopback port. */
export function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The parent's environment without the settings a test wants to control. */
export function cleanEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_TOKEN', 'PORT', 'ROLE', 'DATA_DIR', 'NODE_OPTIONS'])
    delete env[name];
  // No segmentation model unless a test asks for one: loading it costs seconds and a gigabyte.
  return { ...env, LOG_LEVEL: 'warn', SEGMENTER: 'none', ...overrides };
}
