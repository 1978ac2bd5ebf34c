import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import sharp from 'sharp';
import { asSentence, describeNetworkFailure } from '../outbound/network-failure';
import type { OperatorDestination } from '../outbound/operator-destination';
import type { AlphaMask } from '../../engine/mask/alpha-mask';
import { maskWithHints, softShare } from '../../engine/mask/hinted-mask';
import { NO_HINTS, type Cutout, type SubjectHints } from '../../engine/mask/subject-hints';
import { MASK_POST_PROCESSING_VERSION } from '../../engine/mask/post-processing-version';
import { fromRaw, type RawImage } from '../../engine/raw-image';
import { SegmentationError, type Segmenter, type ServedModel } from './segmenter';

export interface RemoteSegmenterSettings {
  /** SEGMENTER_URL; the destination given beside it is this URL's origin. */
  url: URL;
  timeoutSeconds: number;
  /** The service's model as its cut-outs report it (SEGMENTER_MODEL). */
  model: string;
}

/** A mask larger than this is not a mask of an image we sent (64 MiB). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * A segmentation service over HTTP: `POST` the image as PNG, the answer is an image the size
 * of the one sent (or any size: it is resampled) whose alpha channel, or else its first
 * channel, is the mask; the client's hints are applied to it afterwards. The answer says
 * nothing of the model, so cut-outs report the configured model's name and no version. The service is
 * an operator destination: reached at the configured origin whatever address its host resolves
 * to, without OUTBOUND_ALLOWLIST, and never opened to customer URLs by that. Its failures reach
 * clients as the result's message, so they say what went wrong and never where the service is
 * (no host, port, address or Node's error text); the original error is their `cause`, for the log.
 */
export class RemoteSegmenter implements Segmenter {
  constructor(
    private readonly settings: RemoteSegmenterSettings,
    private readonly destination: OperatorDestination,
  ) {}

  ready(): Promise<void> {
    return Promise.resolve();
  }

  servedModels(): ServedModel[] {
    return [{ model: this.settings.model, provider: 'remote' }];
  }

  async segment(image: RawImage, signal: AbortSignal, hints: SubjectHints = NO_HINTS, model?: string): Promise<Cutout> {
    if (model !== undefined && model !== this.settings.model) {
      throw new SegmentationError(`The model ${model} is not served here.`, false);
    }
    const png = await fromRaw(image).png({ compressionLevel: 1 }).toBuffer();
    const deadline = AbortSignal.timeout(this.settings.timeoutSeconds * 1000);
    const body = await this.post(png, AbortSignal.any([signal, deadline])).catch((error: unknown) => {
      signal.throwIfAborted();
      if (error instanceof SegmentationError) throw error;
      const message = deadline.aborted
        ? `The segmentation service did not answer within ${this.settings.timeoutSeconds} s.`
        : asSentence(describeNetworkFailure(error, 'the segmentation service').reason);
      throw new SegmentationError(message, true, true, { cause: error });
    });
    const answered = await this.maskOf(body, image).catch((error: unknown) => {
      throw new SegmentationError(
        'The segmentation service answered something that is not a mask image.',
        false,
        true,
        {
          cause: error,
        },
      );
    });
    const mask = maskWithHints(answered, hints);
    return {
      mask,
      uncertainty: softShare(mask),
      segmentation: { model: this.settings.model, version: null, postProcessingVersion: MASK_POST_PROCESSING_VERSION },
    };
  }

  private post(png: Buffer, signal: AbortSignal): Promise<Buffer> {
    const url = this.settings.url;
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Buffer>((resolve, reject) => {
      const req = send(url, {
        method: 'POST',
        agent: this.destination.agentFor(url),
        headers: {
          'content-type': 'image/png',
          'content-length': png.length,
          accept: 'image/png, image/webp, image/*',
        },
        signal,
      });
      req.on('error', reject);
      req.on('response', (res) => void readAnswer(res).then(resolve, reject));
      req.end(png);
    });
  }

  /** The answer's alpha (or first) channel at the image's size. */
  private async maskOf(body: Buffer, image: RawImage): Promise<AlphaMask> {
    const answer = sharp(body, { limitInputPixels: image.width * image.height * 4 });
    const { hasAlpha } = await answer.metadata();
    const channel = answer
      .extractChannel(hasAlpha ? 'alpha' : 0)
      .resize(image.width, image.height, { fit: 'fill', kernel: 'cubic' })
      .raw({ depth: 'uchar' });
    const data = await channel.toBuffer();
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.length),
      width: image.width,
      height: image.height,
    };
  }
}

function readAnswer(res: IncomingMessage): Promise<Buffer> {
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    res.destroy();
    const retryable = status >= 500 || status === 429 || status === 408;
    return Promise.reject(new SegmentationError(`The segmentation service answered HTTP ${status}.`, retryable, true));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > MAX_RESPONSE_BYTES)
        res.destroy(new SegmentationError('The segmentation service answered too much.', false, true));
      else chunks.push(chunk);
    });
    res.on('end', () => resolve(Buffer.concat(chunks, received)));
    res.on('error', reject);
  });
}
