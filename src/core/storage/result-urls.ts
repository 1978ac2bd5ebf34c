import { Injectable } from '@nestjs/common';
import { ResultUrlSigner } from './result-url.signer';

/**
 * The URLs handed out for stored results and thumbnails (`result_url`, `thumbnail_url`),
 * made at read time so each is valid for RESULT_URL_TTL_SECONDS from then. RESULT_URLS picks
 * the implementation; the URL is the only thing that differs.
 */
export abstract class ResultUrls {
  abstract urlOf(key: string, now?: Date): Promise<string>;
}

/** `RESULT_URLS=api`: the API's own signed URLs; the API streams the file from whichever driver holds it. */
@Injectable()
export class ApiResultUrls extends ResultUrls {
  constructor(private readonly signer: ResultUrlSigner) {
    super();
  }

  // Async although nothing is awaited, so a refused key rejects as every other driver's URL does, never throws.
  // eslint-disable-next-line @typescript-eslint/require-await
  async urlOf(key: string, now: Date = new Date()): Promise<string> {
    return this.signer.sign(key, now);
  }
}
