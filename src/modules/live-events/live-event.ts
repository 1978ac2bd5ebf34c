/** What changed status: a job, or one of its results. */
export enum LiveEventType {
  Job = 'job',
  Result = 'result',
}

/**
 * A status change of a job or a result, as it travels from the process that committed it to
 * every API process. Streams show it to the keys of its account and environment, without the
 * account and environment.
 */
export interface LiveEvent {
  type: LiveEventType;
  accountId: string;
  sandbox: boolean;
  jobId: string;
  /** The result that changed; null for a job's own status. */
  resultId: string | null;
  status: string;
}

/** The one Redis pub/sub channel of a deployment's live events (its key prefix keeps deployments apart). */
export const liveEventsChannel = (redisKeyPrefix: string) => `${redisKeyPrefix}:live-events`;

/** Whose change it is: the account and environment whose streams hear it. */
export interface LiveEventOwner {
  accountId: string;
  sandbox: boolean;
}

export const jobChanged = (owner: LiveEventOwner, jobId: string, status: string): LiveEvent => ({
  type: LiveEventType.Job,
  accountId: owner.accountId,
  sandbox: owner.sandbox,
  jobId,
  resultId: null,
  status,
});

export const resultChanged = (owner: LiveEventOwner, jobId: string, resultId: string, status: string): LiveEvent => ({
  type: LiveEventType.Result,
  accountId: owner.accountId,
  sandbox: owner.sandbox,
  jobId,
  resultId,
  status,
});
