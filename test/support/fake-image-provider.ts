import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import sharp from 'sharp';
import { closeServer, listenOnLoopback, readBody } from './loopback-http';

/** How the fake answers one images request. Unscripted requests get `ok`. */
export type FakeImageBehaviour =
  /** 200 with the painted image inline, as `b64_json` (what gpt-image-1 answers). */
  | { kind: 'ok' }
  /**
   * 200 with a `url` to the painted image, which the fake serves itself (what dall-e answers).
   * `host` names another address in the URL instead of 127.0.0.1 (the fake does not listen
   * there), to test where the service agrees to download from.
   */
  | { kind: 'url'; host?: string }
  /** 429 with `Retry-After` in whole or fractional seconds. */
  | { kind: 'rate_limited'; retryAfterSeconds: number }
  | { kind: 'server_error' }
  /** Waits `delayMs`, then answers as `ok` (if the client is still there). */
  | { kind: 'slow'; delayMs: number }
  /** 200 with a JSON body cut off halfway. */
  | { kind: 'malformed' }
  /** 200 with well-formed JSON whose `b64_json` is not an image. */
  | { kind: 'not_an_image' };

export interface FakeImageSize {
  width: number;
  height: number;
}

/** What the fake received of one request. */
export interface FakeImageRequest {
  path: string;
  /** Whether the bearer key was the fake's; unauthorised requests are answered 401. */
  authorized: boolean;
  model: string | null;
  prompt: string | null;
  size: string | null;
  n: number | null;
  /** The images sent (edits), by form field (`image`, or `image[]` for several) and pixel size. */
  images: Array<FakeImageSize & { field: string }>;
  mask: FakeImageSize | null;
  /** How it was answered. */
  behaviour: FakeImageBehaviour['kind'] | 'unauthorized';
}

export interface FakeImageProviderOptions {
  apiKey?: string;
  /**
   * Edits repaint the whole image, ignoring the mask (true by default): a provider is not to be
   * trusted to keep what the mask protects, so tests can prove the service keeps it itself.
   * False: pixels under the mask's opaque parts are kept, as the API promises.
   */
  repaintEverything?: boolean;
}

/** The fake's key, unless another is given. */
export const FAKE_IMAGE_PROVIDER_KEY = 'sk-fake-image-provider-key';

const DEFAULT_SIZE: FakeImageSize = { width: 1024, height: 1024 };
/** Side of the squares of the noise pattern: enough texture to tell images apart, cheap to encode. */
const NOISE_CELL = 8;
const NOT_AN_IMAGE = Buffer.from('<html><body>Sorry, this is not an image.</body></html>');

/**
 * The OpenAI images API over real loopback HTTP (127.0.0.1, a free port):
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart, parsed by the
 * platform's own form parser), behind the bearer key. It paints deterministic images that
 * differ from call to call (a colour from a counter and the prompt, with a noise pattern) at
 * the size asked for, and behaves as scripted per request.
 *
 * ```ts
 * const provider = await FakeImageProvider.start();
 * provider.script({ kind: 'rate_limited', retryAfterSeconds: 1 }); // then `ok`
 * // ... point an OpenAI client at provider.url with FAKE_IMAGE_PROVIDER_KEY ...
 * expect(provider.requests).toHaveLength(2);
 * await provider.stop();
 * ```
 */
export class FakeImageProvider {
  readonly requests: FakeImageRequest[] = [];
  repaintEverything: boolean;
  private readonly apiKey: string;
  private readonly queue: FakeImageBehaviour[] = [];
  private readonly files = new Map<string, Buffer>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private painted = 0;
  private port = 0;

  private constructor(
    private readonly server: Server,
    options: FakeImageProviderOptions,
  ) {
    this.apiKey = options.apiKey ?? FAKE_IMAGE_PROVIDER_KEY;
    this.repaintEverything = options.repaintEverything ?? true;
  }

  static async start(options: FakeImageProviderOptions = {}): Promise<FakeImageProvider> {
    const server = createServer((req, res) => fake.handle(req, res));
    const fake = new FakeImageProvider(server, options);
    fake.port = await listenOnLoopback(server);
    return fake;
  }

  /** The API's base URL, ending in /v1, as the client's `baseURL`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Queues how the next requests are answered, one behaviour each, after any already queued. */
  script(...behaviours: FakeImageBehaviour[]): void {
    this.queue.push(...behaviours);
  }

  /** Closes every connection, answered or not, and forgets anything still scripted. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.queue.length = 0;
    await closeServer(this.server);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.answer(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, apiError(`the fake failed: ${String(error)}`, 'server_error'));
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', this.url).pathname;
    const file = req.method === 'GET' ? this.files.get(path) : undefined;
    if (file) return void res.writeHead(200, { 'content-type': 'image/png', 'content-length': file.length }).end(file);
    const operation = req.method === 'POST' ? OPERATIONS[path] : undefined;
    if (!operation) return sendJson(res, 404, apiError(`no route for ${req.method} ${path}`, 'not_found'));

    const body = await readBody(req);
    const authorized = req.headers.authorization === `Bearer ${this.apiKey}`;
    const parsed = operation === 'edit' ? await parseEdit(req, body) : parseGeneration(body);
    if (!authorized) {
      this.requests.push({ path, authorized, ...parsed.recorded, behaviour: 'unauthorized' });
      return sendJson(res, 401, apiError('Incorrect API key provided.', 'invalid_api_key'));
    }
    const behaviour = this.queue.shift() ?? { kind: 'ok' };
    this.requests.push({ path, authorized, ...parsed.recorded, behaviour: behaviour.kind });

    switch (behaviour.kind) {
      case 'rate_limited':
        return sendJson(res, 429, apiError('Rate limit reached.', 'rate_limit_exceeded'), {
          'retry-after': String(behaviour.retryAfterSeconds),
        });
      case 'server_error':
        return sendJson(res, 500, apiError('The server had an error while processing your request.', 'server_error'));
      case 'malformed':
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"created": 1, "data": [{"b64_json": "iVBORw0KGgo');
      case 'not_an_image':
        return sendJson(res, 200, { created: 1, data: [{ b64_json: NOT_AN_IMAGE.toString('base64') }] });
      case 'slow':
        await this.wait(behaviour.delayMs);
        // The client gave up (its deadline, a cancellation): there is no one to answer.
        if (req.socket.destroyed) return;
        break;
      case 'ok':
      case 'url':
        break;
    }
    const png = await this.paint(
      parsed.size,
      parsed.prompt,
      operation === 'edit' && !this.repaintEverything ? parsed.keep : null,
    );
    if (behaviour.kind === 'url') {
      const filePath = `/files/${this.painted}.png`;
      this.files.set(filePath, png);
      return sendJson(res, 200, {
        created: 1,
        data: [{ url: `http://${behaviour.host ?? '127.0.0.1'}:${this.port}${filePath}` }],
      });
    }
    sendJson(res, 200, { created: 1, data: [{ b64_json: png.toString('base64') }] });
  }

  /**
   * A PNG of `size`: a colour from the call counter and the prompt, with a noise pattern seeded
   * the same way. With `keep`, the first image is kept where the mask is opaque. The pattern is
   * painted in cells and scaled up by sharp, because per-pixel loops are slow under jest.
   */
  private async paint(size: FakeImageSize, prompt: string, keep: Keep | null): Promise<Buffer> {
    const seed = createHash('sha256').update(`${++this.painted}:${prompt}`).digest();
    const random = mulberry32(seed.readUInt32LE(3));
    const { width, height } = size;
    const columns = Math.ceil(width / NOISE_CELL);
    const rows = Math.ceil(height / NOISE_CELL);
    const cells = Buffer.alloc(columns * rows * 3);
    for (let i = 0; i < columns * rows; i++) {
      const noise = Math.round((random() - 0.5) * 48);
      for (let c = 0; c < 3; c++) cells[i * 3 + c] = clamp(seed[c] + noise);
    }
    const painted = sharp(cells, { raw: { width: columns, height: rows, channels: 3 } })
      .resize(columns * NOISE_CELL, rows * NOISE_CELL, { kernel: 'nearest' })
      .extract({ left: 0, top: 0, width, height });
    if (!keep) return painted.png({ compressionLevel: 1 }).toBuffer();
    const fitted = (input: Buffer) => sharp(input).resize(width, height, { fit: 'fill' });
    const paintWhere = await fitted(keep.mask).ensureAlpha().extractChannel('alpha').negate().raw().toBuffer();
    const overlay = await painted
      .joinChannel(paintWhere, { raw: { width, height, channels: 1 } })
      .png()
      .toBuffer();
    return fitted(keep.image)
      .removeAlpha()
      .composite([{ input: overlay }])
      .png({ compressionLevel: 1 })
      .toBuffer();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

type Operation = 'generation' | 'edit';

const OPERATIONS: Readonly<Record<string, Operation>> = {
  '/v1/images/generations': 'generation',
  '/v1/images/edits': 'edit',
};

/** What an edit keeps when the fake honours the mask: the first image and the mask. */
interface Keep {
  image: Buffer;
  mask: Buffer;
}

interface Parsed {
  recorded: Pick<FakeImageRequest, 'model' | 'prompt' | 'size' | 'n' | 'images' | 'mask'>;
  size: FakeImageSize;
  prompt: string;
  keep: Keep | null;
}

function parseGeneration(body: Buffer): Parsed {
  const json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  const text = (key: string) => (typeof json[key] === 'string' ? json[key] : null);
  const size = text('size');
  return {
    recorded: {
      model: text('model'),
      prompt: text('prompt'),
      size,
      n: typeof json.n === 'number' ? json.n : null,
      images: [],
      mask: null,
    },
    size: parseSize(size),
    prompt: text('prompt') ?? '',
    keep: null,
  };
}

async function parseEdit(req: IncomingMessage, body: Buffer): Promise<Parsed> {
  const form = await new Request('http://fake.invalid/', {
    method: 'POST',
    headers: { 'content-type': String(req.headers['content-type']) },
    body,
  }).formData();
  const text = (key: string) => {
    const value = form.get(key);
    return typeof value === 'string' ? value : null;
  };
  const images: Array<{ field: string; bytes: Buffer }> = [];
  for (const field of ['image', 'image[]']) {
    for (const value of form.getAll(field))
      if (typeof value !== 'string') images.push({ field, bytes: Buffer.from(await value.arrayBuffer()) });
  }
  const maskFile = form.get('mask');
  const mask = maskFile && typeof maskFile !== 'string' ? Buffer.from(await maskFile.arrayBuffer()) : null;
  const size = text('size');
  const n = text('n');
  return {
    recorded: {
      model: text('model'),
      prompt: text('prompt'),
      size,
      n: n === null ? null : Number(n),
      images: await Promise.all(images.map(async ({ field, bytes }) => ({ field, ...(await pixelSize(bytes)) }))),
      mask: mask ? await pixelSize(mask) : null,
    },
    size: parseSize(size),
    prompt: text('prompt') ?? '',
    keep: images.length > 0 && mask ? { image: images[0].bytes, mask } : null,
  };
}

async function pixelSize(bytes: Buffer): Promise<FakeImageSize> {
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  return { width, height };
}

function parseSize(size: string | null): FakeImageSize {
  const match = /^(\d+)x(\d+)$/.exec(size ?? '');
  return match ? { width: Number(match[1]), height: Number(match[2]) } : DEFAULT_SIZE;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** An error body as the OpenAI API shapes it. */
function apiError(message: string, code: string) {
  return { error: { message, type: 'invalid_request_error', param: null, code } };
}

function clamp(value: number): number {
  return Math.max(0, Math.min(255, value));
}

/** A small seeded PRNG, so the same call paints the same pixels on every run. */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
