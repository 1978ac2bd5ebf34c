import type { AttemptVerdict } from '../webhook-deliveries.repository';
import { DeliveryStatus } from '../webhook.entities';
import type { SendOutcome } from '../webhook-sender';

/** When attempts are made: how many in all, and the wait before each. */
export interface RetrySchedule {
  readonly maxAttempts: number;
  delayBefore(attempt: number): number;
}

/**
 * What attempt number `attempt` of a delivery decided (contract section 11): a 2xx delivers, a
 * 410 means the receiver wants no more (gone), a blocked destination is never tried again, and
 * anything else fails this attempt, with a next one on the schedule until the last.
 */
export function judgeAttempt(
  outcome: SendOutcome,
  attempt: number,
  schedule: RetrySchedule,
  now = Date.now(),
): AttemptVerdict {
  if (outcome.kind === 'blocked') {
    return {
      outcome: DeliveryStatus.Blocked,
      status: DeliveryStatus.Blocked,
      statusCode: null,
      error: outcome.reason,
      nextAttemptAt: null,
    };
  }
  if (outcome.kind === 'response' && outcome.statusCode >= 200 && outcome.statusCode < 300) {
    return {
      outcome: DeliveryStatus.Delivered,
      status: DeliveryStatus.Delivered,
      statusCode: outcome.statusCode,
      error: null,
      nextAttemptAt: null,
    };
  }
  if (outcome.kind === 'response' && outcome.statusCode === 410) {
    return {
      outcome: DeliveryStatus.Gone,
      status: DeliveryStatus.Gone,
      statusCode: 410,
      error: 'the receiver answered 410 Gone',
      nextAttemptAt: null,
    };
  }
  const statusCode = outcome.kind === 'response' ? outcome.statusCode : null;
  const error =
    outcome.kind === 'error'
      ? outcome.reason
      : outcome.statusCode >= 300 && outcome.statusCode < 400
        ? `the receiver answered ${outcome.statusCode}; redirects are not followed`
        : `the receiver answered ${outcome.statusCode}`;
  const retry = attempt < schedule.maxAttempts;
  return {
    outcome: DeliveryStatus.Failed,
    status: retry ? DeliveryStatus.Pending : DeliveryStatus.Failed,
    statusCode,
    error,
    nextAttemptAt: retry ? new Date(now + schedule.delayBefore(attempt + 1)) : null,
  };
}
