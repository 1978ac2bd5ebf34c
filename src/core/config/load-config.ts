import { configSchema, type AppConfig } from './config.schema';

export class InvalidConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = InvalidConfigError.name;
  }
}

/**
 * Validates the environment into the typed configuration. Empty strings count as unset, so
 * `FOO=` in an env file falls back to the default instead of failing a number parse.
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new InvalidConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  return parsed.data;
}
