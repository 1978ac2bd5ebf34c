import { ErrorCode, httpStatusOf } from './error-code';

/** The table of contract section 2, written out independently of the implementation. */
const CONTRACT_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.InvalidRequest]: 400,
  [ErrorCode.Unauthorized]: 401,
  [ErrorCode.InsufficientCredits]: 402,
  [ErrorCode.ApiAccessDisabled]: 403,
  [ErrorCode.AccountRestricted]: 403,
  [ErrorCode.NotFound]: 404,
  [ErrorCode.IdempotencyConflict]: 409,
  [ErrorCode.NotReviewable]: 409,
  [ErrorCode.AlreadyRecut]: 409,
  [ErrorCode.PayloadTooLarge]: 413,
  [ErrorCode.UnsupportedMediaType]: 415,
  [ErrorCode.RateLimitExceeded]: 429,
  [ErrorCode.TooManyActiveJobs]: 429,
  [ErrorCode.TooManyPendingResults]: 429,
  [ErrorCode.CapacityUnavailable]: 503,
  [ErrorCode.ToolUnavailable]: 503,
  [ErrorCode.ServiceUnavailable]: 503,
  [ErrorCode.InternalError]: 500,
};

describe(httpStatusOf.name, () => {
  it('covers exactly the codes of contract section 2', () => {
    expect(Object.values(ErrorCode).sort()).toEqual(Object.keys(CONTRACT_STATUS).sort());
  });

  it.each(Object.values(ErrorCode))('maps %s to its contract status', (code) => {
    expect(httpStatusOf(code)).toBe(CONTRACT_STATUS[code]);
  });
});
