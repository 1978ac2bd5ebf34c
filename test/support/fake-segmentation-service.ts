import type { IncomingMessage, ServerResponse } from 'node:http';
import sharp from 'sharp';
import { readBody } from './loopback-http';

/**
 * The second Segmenter: a segmentation service over real loopback HTTP. It keys out the colour
 * of the image's corner and answers the mask as a one-channel PNG, so what comes back through
 * the API proves the service's mask, not a model's, was used.
 */
export class FakeSegmentationService {
  readonly received: Array<{ contentType: string | undefined; width: number; height: number }> = [];
  failWith: number | null = null;
  /** Answered with status 200 instead of a mask when set: a service that has gone wrong. */
  answerWith: Buffer | null = null;
  /**
   * The mask is answered at this share of the image's size, as services that segment smaller do;
   * the client resamples it, so its edges come back soft (a cut-out that is not quite sure).
   */
  answerScale = 1;

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      const body = await readBody(req);
      const { data, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      this.received.push({ contentType: req.headers['content-type'], width: info.width, height: info.height });
      if (this.failWith) return res.writeHead(this.failWith, { 'content-type': 'text/plain' }).end('unavailable');
      if (this.answerWith) return res.writeHead(200, { 'content-type': 'image/png' }).end(this.answerWith);
      const corner = [data[0], data[1], data[2]];
      const mask = Buffer.alloc(info.width * info.height);
      for (let i = 0; i < mask.length; i++) {
        const distance =
          Math.abs(data[i * 3] - corner[0]) +
          Math.abs(data[i * 3 + 1] - corner[1]) +
          Math.abs(data[i * 3 + 2] - corner[2]);
        mask[i] = distance > 60 ? 255 : 0;
      }
      const answer = sharp(mask, { raw: { width: info.width, height: info.height, channels: 1 } });
      const scaled =
        this.answerScale === 1
          ? answer
          : answer.resize(Math.round(info.width * this.answerScale), Math.round(info.height * this.answerScale));
      const png = await scaled.png().toBuffer();
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    })();
  };
}
