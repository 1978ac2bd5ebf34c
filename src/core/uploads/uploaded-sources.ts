/**
 * Reads uploaded source images for the worker (the port; the uploads module holds the
 * implementation, since the rows are its own). Declared in core so the tools' source loading,
 * which may import no module, can depend on it.
 */
export abstract class UploadedSources {
  /**
   * The bytes of upload `uploadId` when it belongs to `accountId` and has not expired; null
   * otherwise (unknown, another account's, expired, or its file gone), so a caller cannot tell
   * which of those it was.
   */
  abstract read(uploadId: string, accountId: string): Promise<Buffer | null>;
}
