import { apiErrorFromResponse, ImageJobsApiError } from './errors';

describe(apiErrorFromResponse.name, () => {
  it("parses the contract's envelope: code, message, details and the body's request id", () => {
    const error = apiErrorFromResponse({
      status: 402,
      bodyText: JSON.stringify({
        error: { code: 'insufficient_credits', message: 'Not enough credits.', details: { required: 4, available: 1 } },
        request_id: 'req-1',
      }),
      headerRequestId: 'req-header',
      idempotencyKey: 'key-12345',
    });
    expect(error).toBeInstanceOf(ImageJobsApiError);
    expect({ ...error, message: error.message }).toEqual({
      name: 'ImageJobsApiError',
      status: 402,
      code: 'insufficient_credits',
      message: 'Not enough credits.',
      details: { required: 4, available: 1 },
      requestId: 'req-1',
      retryAfterSeconds: undefined,
      idempotencyKey: 'key-12345',
    });
  });

  it("keeps Retry-After, and takes the header's request id when the body has none", () => {
    const error = apiErrorFromResponse({
      status: 429,
      bodyText: JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Slow down.' } }),
      headerRequestId: 'req-header',
      retryAfterSeconds: 12,
    });
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', requestId: 'req-header', retryAfterSeconds: 12 });
    expect(error.details).toEqual({});
  });

  it('calls an answer that is not the envelope unexpected_response, keeping the start of its body', () => {
    const error = apiErrorFromResponse({ status: 502, bodyText: '<html>Bad gateway</html>' });
    expect(error).toMatchObject({
      status: 502,
      code: 'unexpected_response',
      details: { body: '<html>Bad gateway</html>' },
    });
  });
});
