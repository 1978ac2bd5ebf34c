import { ResultErrorCode, ResultFailure, TransientResultFailure } from '../../tools/result-failure';
import { codedFailure, failureOfEntry } from './result-work.service';

describe(failureOfEntry.name, () => {
  const blocked = { code: ResultErrorCode.SourceBlocked, message: 'The source resolves to a private address.' };

  it('gives back the recorded code and message of the failure BullMQ kept', () => {
    const failure = failureOfEntry({ data: { resultId: 'r', failure: blocked }, failedReason: blocked.message });
    expect(failure).toBeInstanceOf(ResultFailure);
    expect(failure).toMatchObject(blocked);
  });

  it('ignores a recorded failure that is not the one BullMQ kept (the entry stalled afterwards)', () => {
    const reason = 'job stalled more than allowable limit';
    const failure = failureOfEntry({ data: { resultId: 'r', failure: blocked }, failedReason: reason });
    expect(failure).not.toBeInstanceOf(ResultFailure);
    expect(failure.message).toBe(reason);
  });

  it('falls back to the message alone when no code was recorded', () => {
    const failure = failureOfEntry({ data: { resultId: 'r' }, failedReason: 'boom' });
    expect(failure).not.toBeInstanceOf(ResultFailure);
    expect(failure.message).toBe('boom');
  });
});

describe(codedFailure.name, () => {
  it('keeps the code of permanent and transient failures, and nothing for other errors', () => {
    expect(codedFailure(new ResultFailure(ResultErrorCode.SourceNotImage, 'not an image'))).toEqual({
      code: ResultErrorCode.SourceNotImage,
      message: 'not an image',
    });
    expect(codedFailure(new TransientResultFailure(ResultErrorCode.SourceFetchFailed, '503'))).toEqual({
      code: ResultErrorCode.SourceFetchFailed,
      message: '503',
    });
    expect(codedFailure(new Error('boom'))).toBeUndefined();
  });
});
