/**
 * A compile-time test, checked by `npm run lint:types` (tsc over packages/client/tsconfig.json) and never run: every
 * line under `@ts-expect-error` must fail to type-check (an unused directive is itself an error, so the test bites
 * both ways), and every other line must pass. The types come from the OpenAPI document, so a field renamed or removed
 * in the service breaks this file, or code like it, at compile time.
 */
import {
  ImageJobsApiError,
  ImageJobsClient,
  verifyWebhook,
  type CreateRequest,
  type ErrorCode,
  type JobDetail,
  type Upload,
} from '../../src';

const client = new ImageJobsClient({ apiKey: 'sk_sandbox_example', baseUrl: 'http://localhost:3000' });
const input = [{ image_url: 'https://images.example.com/shoe.jpg', external_id: 'sku-1' }];

export async function correctUsage(): Promise<void> {
  const created = await client.removeBackground(
    { input, background: { type: 'color', color: '#FFFFFF', shadow: 'soft' }, output: { format: 'png' } },
    { idempotencyKey: 'order-42-remove-background' },
  );
  const jobId: string = created.job.id;
  const remaining: number = created.remaining_paid_credits;
  await client.editImage({ input, operations: { resizing: { width: 800, height: 800, fit: 'contain' } } });
  await client.aiEditImage({ input, options: { prompt: 'Put the shoe on a marble table' } });
  await client.createScene({ input, scene: { prompt: 'A sunny beach' } });
  await client.generateImage({ prompt: 'A red running shoe' });
  await client.createAd({ input, creative: { platform: 'instagram_feed', style: 'bold' } });
  const photoJob = await client.createProductPhotoJob({
    images: [{ source_url: 'https://images.example.com/shoe.jpg', external_id: 'sku-1' }],
  });
  const items: number = photoJob.job.total_items;
  await client.createJob('image/edit', { input, output: { format: 'webp', number_of_images: 2 } });

  const finished: JobDetail = await client.waitForJob(jobId, { onUpdate: (job) => job.job.status });
  const resultUrl: string | null = finished.results[0].result_url;
  if (resultUrl) await client.download(resultUrl);
  const page = await client.listJobs({ limit: 10, status: 'completed', api: 'remove_background' });
  const cursor: string | null = page.next_cursor;
  await client.cancelJob(jobId);
  await client.getEnhancement(jobId);
  const tools = await client.catalog();
  const credits: number = tools.tools[0].credits;
  await client.productPhotoPresets({ operation: 'studio_packshot' });
  const account = await client.account();
  const upload: Upload = await client.upload(Buffer.from([0xff, 0xd8, 0xff]));
  await client.editImage({ input: [{ image_url: upload.image_url }] });

  try {
    await client.getJob(jobId);
  } catch (error) {
    if (error instanceof ImageJobsApiError) {
      const code: ErrorCode | 'unexpected_response' = error.code;
      const fieldErrors = error.details.errors?.map((each) => `${each.path}: ${each.message}`);
      const requestId: string | undefined = error.requestId;
      void [code, fieldErrors, requestId];
    }
  }
  const event = verifyWebhook({ payload: '{}', headers: {}, secret: 'whsec_x' });
  const eventJobId: string = event.job.id;
  void [remaining, items, cursor, credits, account, eventJobId];
}

export async function wrongUsage(): Promise<void> {
  // @ts-expect-error a misspelt field is refused, as the service refuses unknown fields
  await client.removeBackground({ input, backgroud: { type: 'white' } });
  // @ts-expect-error `input` is required
  await client.editImage({ operations: {} });
  // @ts-expect-error not a background type
  await client.removeBackground({ input, background: { type: 'purple' } });
  // @ts-expect-error `image_url` is required in each input image
  await client.editImage({ input: [{ external_id: 'sku-1' }] });
  // @ts-expect-error number_of_images is a number
  await client.editImage({ input, output: { number_of_images: '2' } });
  // @ts-expect-error an ad needs `creative`
  await client.createAd({ input });
  // @ts-expect-error not a platform
  await client.createAd({ input, creative: { platform: 'myspace' } });
  // @ts-expect-error the AI edit prompt lives in `options`
  await client.aiEditImage({ input, prompt: 'Make it blue' });
  // @ts-expect-error product photo jobs take `images` with `source_url`, not `input`
  await client.createProductPhotoJob({ input });
  // @ts-expect-error not a create endpoint
  await client.createJob('image/upscale', { input });
  // @ts-expect-error the body must be the one of the endpoint named: ad/create needs `creative`
  await client.createJob('ad/create', { input, operations: {} });
  // @ts-expect-error not a job status
  await client.listJobs({ status: 'done' });
  // @ts-expect-error `limit` is a number
  await client.listJobs({ limit: '10' });
  // @ts-expect-error idempotency keys are strings
  await client.editImage({ input }, { idempotencyKey: 42 });

  const job = await client.getJob('b4a7c0de-0000-4000-8000-000000000000');
  // @ts-expect-error the job's field is `status`
  void job.job.state;
  // @ts-expect-error results carry `result_url`, not `url`
  void job.results[0].url;
  // @ts-expect-error status is a union of the document's job statuses, not any string
  const status: 'done' = job.job.status;
  // @ts-expect-error the create response has no `jobs`
  void (await client.editImage({ input })).jobs;
  // @ts-expect-error an upload's id is `id`
  void (await client.upload(Buffer.alloc(0))).upload_id;

  const body: CreateRequest<'scene/create'> = { input, scene: { prompt: 'x' } };
  // @ts-expect-error scene prompts are strings
  body.scene.prompt = 3;
  void status;
}
