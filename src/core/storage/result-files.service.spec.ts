import type { ServiceSecretsRepository } from './service-secrets.repository';
import { Readable } from 'node:stream';
import { DomainError } from '../errors/domain-error';
import { ErrorCode } from '../errors/error-code';
import { ResultFilesService } from './result-files.service';
import { ResultStorage, type StoredFile } from './result-storage';
import { ResultUrlSigner } from './result-url.signer';

const KEY = 'results/job-1/result-1.png';
const NOW = new Date('2026-01-01T00:00:00Z');

/** Storage holding at most one file, in memory. */
class OneFileStorage extends ResultStorage {
  constructor(private readonly file: { key: string; bytes: Buffer } | null) {
    super();
  }
  async put(): Promise<void> {}
  async delete(): Promise<void> {}
  async open(key: string): Promise<StoredFile | null> {
    if (this.file?.key !== key) return null;
    return { stream: Readable.from([this.file.bytes]), contentType: 'image/png', size: this.file.bytes.length };
  }
}

describe(ResultFilesService.name, () => {
  const signer = new ResultUrlSigner(
    {
      PUBLIC_BASE_URL: 'https://x.test',
      RESULT_URL_TTL_SECONDS: 600,
      RESULT_URL_SECRET: 'a-test-secret-of-at-least-32-chars!',
    },
    // The secret is configured, so the database is never asked.
    {} as ServiceSecretsRepository,
  );
  const files = new ResultFilesService(signer, new OneFileStorage({ key: KEY, bytes: Buffer.from('png') }));
  const signed = (key: string, at = NOW) => {
    const url = new URL(signer.sign(key, at));
    return { expires: url.searchParams.get('expires') ?? '', signature: url.searchParams.get('signature') ?? '' };
  };
  const expectNotFound = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (rejection: unknown) => rejection,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: ErrorCode.NotFound, message: 'No such file.' });
  };

  it('opens the file of a valid URL, cacheable until the URL expires', async () => {
    const { expires, signature } = signed(KEY);
    const file = await files.openSigned(KEY, expires, signature, new Date(NOW.getTime() + 100_000));
    expect(file).toMatchObject({ contentType: 'image/png', size: 3, maxAgeSeconds: 500 });
  });

  it('answers not_found for an invalid signature, without opening the file', async () => {
    const { expires } = signed(KEY);
    const open = jest.spyOn(OneFileStorage.prototype, 'open');
    await expectNotFound(files.openSigned(KEY, expires, 'A'.repeat(43), NOW));
    expect(open).not.toHaveBeenCalled();
    open.mockRestore();
  });

  it('answers not_found for an expired URL', async () => {
    const { expires, signature } = signed(KEY);
    await expectNotFound(files.openSigned(KEY, expires, signature, new Date(NOW.getTime() + 600_000)));
  });

  it('answers not_found, the same way, when a validly signed file is gone', async () => {
    const other = 'results/job-1/result-2.png';
    const { expires, signature } = signed(other);
    await expectNotFound(files.openSigned(other, expires, signature, NOW));
  });
});
