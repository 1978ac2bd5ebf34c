import { ConsoleLogger, Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import sharp from 'sharp';
import { ConfigModule } from '../../src/core/config/config.module';
import { loadConfig } from '../../src/core/config/load-config';
import {
  IMAGE_PROVIDER,
  ImageProviderError,
  type ImageProvider,
  type ProviderGeneration,
} from '../../src/core/image-provider/image-provider';
import { ImageProviderModule } from '../../src/core/image-provider/image-provider.module';
import {
  OpenAiImageProvider,
  type OpenAiImageProviderSettings,
} from '../../src/core/image-provider/openai-image-provider';
import { OutboundHttps } from '../../src/core/outbound/outbound-https';
import { OutboundModule } from '../../src/core/outbound/outbound.module';
import { FAKE_IMAGE_PROVIDER_KEY, FakeImageProvider } from '../support/fake-image-provider';
import { closedPort } from '../support/loopback-http';
import { OutboundWithResolver, resolveToLoopback } from '../support/outbound-with-resolver';
import { watchTimers, type TimerWatch, type WatchedTimer } from '../support/watched-timers';

/** Said in the prompt so a test can look for it in messages that must not carry it. */
const PROMPT = 'Replace the background with a "sunlit" café terrace;\nkeep the shoe exactly as it is — Ω 🥿';
/**
 * The prompt as an edit's multipart body carries it: form encoding (the HTML standard's, which
 * fetch's FormData follows, whatever fetch the client uses) writes every line break as CRLF.
 */
const PROMPT_IN_FORM = PROMPT.replace(/\n/g, '\r\n');
const NEVER = new AbortController().signal;

/** Rejects unless `promise` rejects with an ImageProviderError, and returns that error. */
async function failureOf(promise: Promise<unknown>): Promise<ImageProviderError> {
  const error: unknown = await promise.then(
    () => new Error('the call succeeded'),
    (reason: unknown) => reason,
  );
  if (error instanceof ImageProviderError) return error;
  throw error;
}

async function solidPng(width: number, height: number, rgba: [number, number, number, number]): Promise<Buffer> {
  const [r, g, b, alpha] = rgba;
  return sharp({ create: { width, height, channels: 4, background: { r, g, b, alpha: alpha / 255 } } })
    .png()
    .toBuffer();
}

/** A mask of `width` x `height`, opaque (keep) on the left half, transparent (paint) on the right. */
async function leftHalfKeptMask(width: number, height: number): Promise<Buffer> {
  const rgba = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width / 2; x++) rgba[(y * width + x) * 4 + 3] = 255;
  return sharp(rgba, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

async function pixelAt(image: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const offset = (y * info.width + x) * info.channels;
  return [data[offset], data[offset + 1], data[offset + 2]];
}

describe(OpenAiImageProvider.name, () => {
  let fake: FakeImageProvider;
  const outbounds: OutboundHttps[] = [];

  function providerWith(
    settings: Partial<OpenAiImageProviderSettings> = {},
    outbound: OutboundHttps = new OutboundHttps(loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.1' }), {}),
  ): OpenAiImageProvider {
    outbounds.push(outbound);
    return new OpenAiImageProvider(
      {
        apiKey: FAKE_IMAGE_PROVIDER_KEY,
        baseUrl: fake.url,
        model: 'gpt-image-1',
        timeoutSeconds: 10,
        maxRetries: 2,
        ...settings,
      },
      outbound,
    );
  }

  const generation: ProviderGeneration = { prompt: PROMPT, references: [], shape: 'landscape' };

  beforeEach(async () => {
    fake = await FakeImageProvider.start();
  });
  afterEach(() => fake.stop());
  afterAll(() => {
    for (const outbound of outbounds) outbound.onModuleDestroy();
  });

  describe('answers', () => {
    it('generates one image of the shape asked for, sending the model and the prompt unchanged', async () => {
      const image = await providerWith().generate(generation, NEVER);
      await expect(sharp(image).metadata()).resolves.toMatchObject({ format: 'png', width: 1536, height: 1024 });
      expect(fake.requests).toEqual([
        {
          path: '/v1/images/generations',
          authorized: true,
          model: 'gpt-image-1',
          prompt: PROMPT,
          size: '1536x1024',
          n: 1,
          images: [],
          mask: null,
          behaviour: 'ok',
        },
      ]);
    });

    it.each([
      ['square', 1024, 1024],
      ['portrait', 1024, 1536],
    ] as const)('asks for %s as %ix%i', async (shape, width, height) => {
      const image = await providerWith().generate({ ...generation, shape }, NEVER);
      expect(fake.requests[0].size).toBe(`${width}x${height}`);
      await expect(sharp(image).metadata()).resolves.toMatchObject({ width, height });
    });

    it('downloads the image when the provider answers with a URL', async () => {
      fake.script({ kind: 'url' });
      const image = await providerWith().generate(generation, NEVER);
      await expect(sharp(image).metadata()).resolves.toMatchObject({ format: 'png', width: 1536, height: 1024 });
      expect(fake.requests.map((request) => request.behaviour)).toEqual(['url']);
    });

    it('paints a different image on every call, even for the same prompt', async () => {
      const provider = providerWith();
      const first = await provider.generate(generation, NEVER);
      const second = await provider.generate(generation, NEVER);
      expect(first.equals(second)).toBe(false);
    });

    it('sends an edit with its image and mask parts and the prompt unchanged', async () => {
      const image = await solidPng(96, 144, [200, 30, 30, 255]);
      const mask = await leftHalfKeptMask(96, 144);
      const edited = await providerWith().edit({ image, mask, prompt: PROMPT, shape: 'portrait' }, NEVER);
      await expect(sharp(edited).metadata()).resolves.toMatchObject({ width: 1024, height: 1536 });
      expect(fake.requests).toEqual([
        expect.objectContaining({
          path: '/v1/images/edits',
          model: 'gpt-image-1',
          prompt: PROMPT_IN_FORM,
          size: '1024x1536',
          n: 1,
          images: [{ field: 'image', width: 96, height: 144 }],
          mask: { width: 96, height: 144 },
        }),
      ]);
    });

    it('sends an edit without a mask when none is given', async () => {
      await providerWith().edit(
        { image: await solidPng(32, 32, [0, 0, 0, 255]), prompt: PROMPT, shape: 'square' },
        NEVER,
      );
      expect(fake.requests[0]).toMatchObject({ images: [{ field: 'image', width: 32, height: 32 }], mask: null });
    });

    it('generates from reference images on the edit endpoint, the references as its images', async () => {
      const references = [await solidPng(40, 30, [0, 0, 255, 255]), await solidPng(50, 60, [0, 255, 0, 255])];
      await providerWith().generate({ prompt: PROMPT, references, shape: 'square' }, NEVER);
      expect(fake.requests[0]).toMatchObject({
        path: '/v1/images/edits',
        prompt: PROMPT_IN_FORM,
        size: '1024x1024',
        images: [
          { field: 'image[]', width: 40, height: 30 },
          { field: 'image[]', width: 50, height: 60 },
        ],
        mask: null,
      });
    });
  });

  describe('the fake provider', () => {
    it(
      'repaints the whole image by default, ignoring the ' + 'mask, and keeps the masked part only when told to',
      async () => {
        const image = await solidPng(64, 64, [250, 0, 250, 255]);
        const mask = await leftHalfKeptMask(64, 64);
        const edit = { image, mask, prompt: PROMPT, shape: 'square' } as const;
        const repainted = await providerWith().edit(edit, NEVER);
        expect(await pixelAt(repainted, 100, 512)).not.toEqual([250, 0, 250]);
        fake.repaintEverything = false;
        const kept = await providerWith().edit(edit, NEVER);
        expect(await pixelAt(kept, 100, 512)).toEqual([250, 0, 250]);
        expect(await pixelAt(kept, 900, 512)).not.toEqual([250, 0, 250]);
      },
    );
  });

  describe('logs', () => {
    const entries: Array<{ level: string; text: string }> = [];
    const record =
      (level: string) =>
      (...parts: unknown[]) => {
        entries.push({
          level,
          text: parts
            .map((part) =>
              typeof part === 'string' ? part : JSON.stringify(part, Object.getOwnPropertyNames(part ?? {})),
            )
            .join(' '),
        });
      };

    beforeEach(() => {
      entries.length = 0;
      Logger.overrideLogger({
        log: record('log'),
        error: record('error'),
        warn: record('warn'),
        debug: record('debug'),
        verbose: record('verbose'),
        fatal: record('fatal'),
      });
    });
    afterEach(() => Logger.overrideLogger(new ConsoleLogger()));

    it('never carry the prompt, at any level, on success, on retries or on failure, nor does the failure', async () => {
      fake.script({ kind: 'rate_limited', retryAfterSeconds: 0 }, { kind: 'server_error' });
      await providerWith().generate(generation, NEVER);
      fake.script({ kind: 'server_error' }, { kind: 'server_error' });
      const failure = await failureOf(providerWith({ maxRetries: 1 }).generate(generation, NEVER));
      fake.script({ kind: 'malformed' });
      const malformed = await failureOf(
        providerWith({ maxRetries: 0 }).edit(
          { image: await solidPng(16, 16, [0, 0, 0, 255]), prompt: PROMPT, shape: 'square' },
          NEVER,
        ),
      );
      expect(entries.length).toBeGreaterThan(0);
      for (const text of [...entries.map((entry) => entry.text), failure.message, malformed.message]) {
        expect(text).not.toContain('sunlit');
        expect(text).not.toContain(FAKE_IMAGE_PROVIDER_KEY);
      }
      // Nothing at info: calls are logged at debug, so a deployment at LOG_LEVEL=info logs none of them.
      expect(entries.filter((entry) => entry.level === 'log')).toEqual([]);
    });
  });

  describe('retries and the deadline', () => {
    /**
     * The timers set during a call, each noted with the requests the fake had received when it
     * fired: what the provider and its client waited for, and in what order, whatever the time.
     */
    let watch: TimerWatch;
    let requestsWhenFired: Map<WatchedTimer, number>;
    beforeEach(() => {
      requestsWhenFired = new Map();
      watch = watchTimers((timer) => requestsWhenFired.set(timer, fake.requests.length));
    });
    afterEach(() => watch.restore());
    const firedTimers = () => watch.fired.map((timer) => ({ ms: timer.ms, requests: requestsWhenFired.get(timer) }));

    it("waits out a 429's Retry-After, then succeeds on the second request", async () => {
      fake.script({ kind: 'rate_limited', retryAfterSeconds: 1 });
      await providerWith().generate(generation, NEVER);
      expect(fake.requests.map((request) => request.behaviour)).toEqual(['rate_limited', 'ok']);
      // One wait, of the provider's 1 s (the client's own backoff is jittered, and the deadline
      // 10 s), over between the two requests: the second went out when it ended.
      expect(firedTimers()).toEqual([{ ms: 1000, requests: 1 }]);
    });

    it('fails with provider_error after 1 + IMAGE_PROVIDER_MAX_RETRIES requests answered 500', async () => {
      fake.script(
        { kind: 'server_error' },
        { kind: 'server_error' },
        { kind: 'server_error' },
        { kind: 'server_error' },
      );
      const failure = await failureOf(providerWith({ maxRetries: 2 }).generate(generation, NEVER));
      expect(failure).toMatchObject({
        code: 'provider_error',
        message: 'The image provider failed with HTTP 500, still after 2 retries.',
      });
      expect(fake.requests).toHaveLength(3);
    });

    it('does not retry when Retry-After asks for longer than the whole deadline', async () => {
      fake.script({ kind: 'rate_limited', retryAfterSeconds: 3600 });
      const failure = await failureOf(providerWith({ timeoutSeconds: 5 }).generate(generation, NEVER));
      expect(failure).toMatchObject({
        code: 'provider_error',
        message: expect.stringContaining('asked to wait 3600 s'),
      });
      expect(fake.requests).toHaveLength(1);
      // It failed on the answer itself: no wait ran out, the deadline's included.
      expect(firedTimers()).toEqual([]);
    });

    it('fails with timeout when the provider answers later than IMAGE_PROVIDER_TIMEOUT_SECONDS', async () => {
      fake.script({ kind: 'slow', delayMs: 5000 });
      const failure = await failureOf(providerWith({ timeoutSeconds: 1 }).generate(generation, NEVER));
      expect(failure).toMatchObject({ code: 'timeout', message: 'The image provider did not answer within 1 s.' });
      // The deadline cut the call short: the fake's 5 s answer had not come.
      expect(watch.of(5000)).toEqual([expect.objectContaining({ fired: false })]);
      expect(fake.requests).toHaveLength(1);
    });

    it(
      'counts the waits between retries against the one ' + 'deadline, and ends at it rather than after a wait',
      async () => {
        // The second wait fits the whole deadline (3 s) but not what is left of it after the first.
        fake.script({ kind: 'rate_limited', retryAfterSeconds: 1 }, { kind: 'rate_limited', retryAfterSeconds: 2.9 });
        const failure = await failureOf(providerWith({ timeoutSeconds: 3 }).generate(generation, NEVER));
        expect(failure.code).toBe('timeout');
        expect(fake.requests).toHaveLength(2);
        // The first wait ended before the second request; the deadline, set once for the whole
        // call, ended the call during the second wait, which had not ended then.
        expect(firedTimers()).toEqual([
          { ms: 1000, requests: 1 },
          { ms: 3000, requests: 2 },
        ]);
        expect(watch.of(2900)).toEqual([expect.objectContaining({ fired: false })]);
      },
    );

    it("rejects with the caller's own abort, not an ImageProviderError, while waiting for an answer", async () => {
      fake.script({ kind: 'slow', delayMs: 5000 });
      const controller = new AbortController();
      const reason = new Error('the job was cancelled');
      setTimeout(() => controller.abort(reason), 200);
      await expect(providerWith().generate(generation, controller.signal)).rejects.toBe(reason);
      // Before the fake's 5 s answer, and before the deadline.
      expect(watch.of(5000)).toEqual([expect.objectContaining({ fired: false })]);
      expect(watch.of(10_000).filter((timer) => timer.fired)).toEqual([]);
    });

    it(
      "rejects with the caller's abort at once while " + 'waiting out a Retry-After, and sends no retry after it',
      async () => {
        fake.script({ kind: 'rate_limited', retryAfterSeconds: 1 });
        const controller = new AbortController();
        const reason = new Error('the job was cancelled');
        setTimeout(() => controller.abort(reason), 200);
        await expect(providerWith().generate(generation, controller.signal)).rejects.toBe(reason);
        // Before the 1 s Retry-After ran out: the client's wait ends at the abort, and no retry follows.
        const [retryWait] = watch.of(1000);
        expect(retryWait).toMatchObject({ fired: false, cleared: true });
        expect(fake.requests).toHaveLength(1);
      },
    );
  });

  describe('answers that are not an image', () => {
    it('fails with provider_error on malformed JSON', async () => {
      fake.script({ kind: 'malformed' });
      await expect(failureOf(providerWith().generate(generation, NEVER))).resolves.toMatchObject({
        code: 'provider_error',
        message: 'The image provider answered with malformed JSON.',
      });
      expect(fake.requests).toHaveLength(1);
    });

    it('fails with provider_error when the bytes are not an image', async () => {
      fake.script({ kind: 'not_an_image' });
      await expect(failureOf(providerWith().generate(generation, NEVER))).resolves.toMatchObject({
        code: 'provider_error',
        message: 'The image provider returned something that is not an image.',
      });
    });

    it('fails with provider_error on a 4xx, at once, naming neither the prompt nor the key', async () => {
      const wrongKey = 'sk-wrong-key-that-must-not-leak';
      const failure = await failureOf(providerWith({ apiKey: wrongKey }).generate(generation, NEVER));
      expect(failure).toMatchObject({
        code: 'provider_error',
        message: 'The image provider refused the request (HTTP 401, invalid_api_key).',
      });
      expect(failure.message).not.toContain(wrongKey);
      expect(failure.message).not.toContain('café');
      expect(fake.requests).toEqual([expect.objectContaining({ authorized: false })]);
    });
  });

  describe('the provider as an operator destination, and the image URLs it answers with', () => {
    it('reaches the provider at its configured base URL on loopback without OUTBOUND_ALLOWLIST naming it', async () => {
      const outbound = new OutboundHttps(loadConfig({ OUTBOUND_ALLOWLIST: '' }), {});
      await expect(providerWith({}, outbound).generate(generation, NEVER)).resolves.toBeInstanceOf(Buffer);
      expect(fake.requests).toHaveLength(1);
    });

    it('reaches a provider host name that resolves to a loopback address, at any address it resolves to', async () => {
      const outbound = new OutboundWithResolver(loadConfig({ OUTBOUND_ALLOWLIST: '' }), resolveToLoopback);
      const baseUrl = fake.url.replace('127.0.0.1', 'images.example.test');
      await expect(providerWith({ baseUrl }, outbound).generate(generation, NEVER)).resolves.toBeInstanceOf(Buffer);
      expect(fake.requests).toHaveLength(1);
    });

    it("downloads an image URL on the provider's own origin as the provider", async () => {
      fake.script({ kind: 'url' });
      const outbound = new OutboundHttps(loadConfig({ OUTBOUND_ALLOWLIST: '' }), {});
      const image = await providerWith({}, outbound).generate(generation, NEVER);
      await expect(sharp(image).metadata()).resolves.toMatchObject({ format: 'png' });
    });

    it('takes an image URL on another origin as a customer URL: an address not allowlisted is refused', async () => {
      fake.script({ kind: 'url', host: '127.0.0.2' });
      const failure = await failureOf(providerWith().generate(generation, NEVER));
      expect(failure).toMatchObject({
        code: 'provider_error',
        message: "The host of the image provider's image URL is at an address that is not allowed.",
      });
    });

    it('refuses an image URL whose host name resolves to a private address, naming neither', async () => {
      fake.script({ kind: 'url', host: 'cdn.example.test' });
      const outbound = new OutboundWithResolver(loadConfig({ OUTBOUND_ALLOWLIST: '' }), resolveToLoopback);
      const failure = await failureOf(providerWith({}, outbound).generate(generation, NEVER));
      expect(failure).toMatchObject({
        code: 'provider_error',
        message: "The host of the image provider's image URL is at an address that is not allowed.",
      });
      expect(failure.cause).toMatchObject({ hostname: 'cdn.example.test', address: '127.0.0.1' });
    });

    it('says the provider refused the connection, naming no host, port or error code', async () => {
      const port = await closedPort();
      const failure = await failureOf(
        providerWith({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 0 }).generate(generation, NEVER),
      );
      expect(failure).toMatchObject({
        code: 'provider_error',
        message: 'The image provider refused the connection.',
      });
    });

    it('still reaches the provider when OUTBOUND_ALLOWLIST names its address', async () => {
      const outbound = new OutboundHttps(loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.0/8' }), {});
      await expect(providerWith({}, outbound).generate(generation, NEVER)).resolves.toBeInstanceOf(Buffer);
      expect(fake.requests).toHaveLength(1);
    });
  });

  describe(ImageProviderModule.name, () => {
    async function providerFromModule(env: NodeJS.ProcessEnv): Promise<ImageProvider | null> {
      const config = loadConfig({ OUTBOUND_ALLOWLIST: '127.0.0.1', ...env });
      const moduleRef = await Test.createTestingModule({
        imports: [ConfigModule.forRoot(config, { databaseUrl: '', redisUrl: '' }), OutboundModule, ImageProviderModule],
      }).compile();
      const provider = moduleRef.get<ImageProvider | null>(IMAGE_PROVIDER);
      outbounds.push(moduleRef.get(OutboundHttps));
      return provider;
    }

    it('provides the OpenAI adapter from the IMAGE_PROVIDER_* settings', async () => {
      const provider = await providerFromModule({
        IMAGE_PROVIDER: 'openai',
        IMAGE_PROVIDER_BASE_URL: fake.url,
        IMAGE_PROVIDER_API_KEY: FAKE_IMAGE_PROVIDER_KEY,
        IMAGE_PROVIDER_MODEL: 'gpt-image-1.5',
      });
      expect(provider?.description).toBe('openai (gpt-image-1.5)');
      await (provider as ImageProvider).generate(generation, NEVER);
      expect(fake.requests[0]).toMatchObject({ model: 'gpt-image-1.5', authorized: true });
    });

    it('provides null when IMAGE_PROVIDER is none', async () => {
      await expect(providerFromModule({ IMAGE_PROVIDER: 'none' })).resolves.toBeNull();
    });
  });
});
