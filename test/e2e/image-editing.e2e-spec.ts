import sharp from 'sharp';
import { Deployment } from '../support/deployment';
import { decodeRgba, fromFixture, productPhoto } from '../support/image-fixtures';
import { ImageSourceServer } from '../support/image-source-server';
import { cleanEnv } from '../support/processes';
import { postJson, seedAccountOverHttp } from '../support/service-http';
import { readUntil } from '../support/waiting';

const ADMIN_TOKEN = 'edit-e2e-admin-token-0123456789';
const CREDITS = 50;

interface ResultBody {
  external_id: string;
  status: string;
  error_code: string | null;
  result_url: string | null;
  thumbnail_url: string | null;
}

describe('live image editing with the API and a worker as separate processes', () => {
  let deployment: Deployment;
  let sources: ImageSourceServer;

  beforeAll(async () => {
    deployment = await Deployment.create('e2e-edit');
    sources = await ImageSourceServer.start();
  });
  afterAll(async () => {
    await deployment?.close();
    await sources?.stop();
  });

  it(
    'downloads, edits and stores each result; the ledger holds one ' +
      'reservation, a capture per result made and a release per failure',
    async () => {
      const { base } = await deployment.startApiAndWorker(
        cleanEnv({
          ADMIN_TOKEN,
          OUTBOUND_ALLOWLIST: '127.0.0.1',
          // API and worker share the store, as two containers share a volume.
          STORAGE_DIR: deployment.storageDir,
        }),
      );

      sources.serve(
        '/shoe.jpg',
        await fromFixture(productPhoto(1200, 900, 5))
          .jpeg()
          .toBuffer(),
        { contentType: 'image/jpeg' },
      );
      sources.serve('/gone.jpg', 'gone', { status: 404, contentType: 'text/plain' });

      const { accountId, key } = await seedAccountOverHttp(base, ADMIN_TOKEN, {
        name: 'edit e2e',
        credits: CREDITS,
        environment: 'live',
      });
      const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
      const auth = { Authorization: `Bearer ${key}` };

      const created = await postJson(
        `${base}/api/v1/image/edit`,
        {
          input: [
            { image_url: sources.url('/shoe.jpg'), external_id: 'shoe' },
            { image_url: sources.url('/gone.jpg'), external_id: 'gone' },
          ],
          operations: { resizing: { width: 600, height: 600, fit: 'cover' }, adjustments: { light: true } },
          output: { format: 'jpg', number_of_images: 2 },
        },
        { ...auth, 'Idempotency-Key': 'edit-e2e-1' },
      );
      expect(created.status).toBe(202);
      const jobId = (created.body.job as { id: string }).id;
      expect(created.body.remaining_paid_credits).toBe(CREDITS - 4);

      const readJob = async () =>
        (await (await fetch(`${base}/api/v1/jobs/${jobId}`, { headers: auth })).json()) as {
          job: { status: string; completed_results: number; failed_results: number } | undefined;
          results: ResultBody[];
        };
      const { job, results } = await readUntil(
        readJob,
        (read) => read.job !== undefined && !['queued', 'processing'].includes(read.job.status),
        'the job to end',
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(job).toMatchObject({ status: 'partially_completed', completed_results: 2, failed_results: 2 });

      for (const result of results) {
        if (result.external_id === 'gone') {
          expect(result).toMatchObject({ status: 'failed', error_code: 'source_fetch_failed', result_url: null });
          continue;
        }
        const image = Buffer.from(await (await fetch(result.result_url as string)).arrayBuffer());
        expect(await sharp(image).metadata()).toMatchObject({ format: 'jpeg', width: 600, height: 600 });
        // The cover cut is centred on the product, which is darker than the backdrop.
        const centre = (await decodeRgba(image)).pixel(300, 330);
        expect(centre[0]).toBeGreaterThan(centre[1] + 40);
        const thumbnail = await fetch(result.thumbnail_url as string);
        expect(thumbnail.headers.get('content-type')).toBe('image/webp');
        expect(await sharp(Buffer.from(await thumbnail.arrayBuffer())).metadata()).toMatchObject({
          width: 256,
          height: 256,
        });
      }
      expect(sources.requests('/shoe.jpg')).toBe(1);

      const ledger = (await (
        await fetch(`${base}/admin/v1/accounts/${accountId}/ledger`, { headers: admin })
      ).json()) as {
        entries: Array<{ kind: string; amount: number; job_id: string | null }>;
      };
      const ofJob = ledger.entries.filter((entry) => entry.job_id === jobId);
      expect(ofJob.filter((entry) => entry.kind === 'reserve').map((entry) => entry.amount)).toEqual([-4]);
      expect(ofJob.filter((entry) => entry.kind === 'capture')).toHaveLength(2);
      expect(ofJob.filter((entry) => entry.kind === 'release').map((entry) => entry.amount)).toEqual([1, 1]);
      const balance = (
        (await (await fetch(`${base}/admin/v1/accounts/${accountId}`, { headers: admin })).json()) as {
          account: { paid_credits: number };
        }
      ).account.paid_credits;
      expect(balance).toBe(CREDITS - 2);
      expect(ledger.entries.reduce((sum, entry) => sum + entry.amount, 0)).toBe(balance);
    },
    120_000,
  );
});
