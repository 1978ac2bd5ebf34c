export enum ProcessRole {
  /** HTTP API only: produces queue jobs, never consumes them. */
  Api = 'api',
  /** Queue processors only, with a small health port. */
  Worker = 'worker',
  /** Both in one process: the development default. */
  All = 'all',
}

export function parseRole(value: string | undefined): ProcessRole {
  const role = value ?? ProcessRole.All;
  if (!(Object.values(ProcessRole) as string[]).includes(role)) {
    throw new Error(`Unknown role "${role}": use one of ${Object.values(ProcessRole).join(', ')}`);
  }
  return role as ProcessRole;
}

export const servesHttp = (role: ProcessRole) => role !== ProcessRole.Worker;
export const runsProcessors = (role: ProcessRole) => role !== ProcessRole.Api;
