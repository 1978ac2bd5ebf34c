import { cleanEnv, startProcess, type ServiceProcess } from './processes';

/** The command line from its TypeScript source, so the suite does not depend on a build being current. */
export function startCli(args: string[], env: Record<string, string>): ServiceProcess {
  return startProcess(
    'node',
    ['-r', 'ts-node/register/transpile-only', 'packages/client/src/cli/main.ts', ...args],
    cleanEnv(env),
  );
}

/** Runs the command line to its end: its exit code (or signal) and everything it wrote. */
export async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | string; output: string }> {
  const cli = startCli(args, env);
  try {
    const code = await cli.exited;
    return { code, output: cli.output() };
  } finally {
    cli.kill();
  }
}
