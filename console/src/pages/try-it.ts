import { errorMessage, request } from '../api.js';
import { errorBox, field, h, select } from '../dom.js';
import { coalesce, readJob } from '../jobs-store.js';
import { liveEvents } from '../live.js';
import type { CreatedJob, CreatedProductPhotoJob, ProductPhotoPresets, UploadResponse } from '../types.js';
import { resultTile } from './job.js';

/** What each choice sends: its endpoint and the body for the uploaded images. */
function createRequest(choice: string, images: string[], options: { format: string; width: number; height: number }) {
  const externalId = (index: number) => `console-${index + 1}`;
  if (choice === 'remove_background') {
    return {
      path: '/api/v1/remove-background',
      body: { input: images.map((image_url) => ({ image_url })), output: { format: options.format } },
    };
  }
  if (choice === 'resize') {
    return {
      path: '/api/v1/image/edit',
      body: {
        input: images.map((image_url) => ({ image_url })),
        operations: { resizing: { width: options.width, height: options.height, fit: 'contain' } },
        output: { format: options.format },
      },
    };
  }
  return {
    path: '/api/v1/product-photo-jobs',
    body: {
      preset: choice.replace(/^preset:/, ''),
      images: images.map((source_url, index) => ({ source_url, external_id: externalId(index) })),
    },
  };
}

/** Drop photos, pick a tool or a preset, see the results as they complete. */
export function renderTryIt(main: HTMLElement): () => void {
  const files = h('input', { type: 'file', accept: 'image/*', multiple: true });
  const tool = select([
    ['remove_background', 'Remove the background'],
    ['resize', 'Resize (image editing)'],
  ]);
  const format = select([
    ['png', 'PNG'],
    ['webp', 'WebP'],
    ['jpg', 'JPEG'],
    ['avif', 'AVIF'],
  ]);
  const width = h('input', { type: 'number', min: 1, max: 4096, value: 1200 });
  const height = h('input', { type: 'number', min: 1, max: 4096, value: 1200 });
  const status = h('div', { 'aria-live': 'polite' });
  const results = h('ul', { class: 'tiles', 'aria-live': 'polite' });
  const drop = h('div', { class: 'dropzone' }, 'Drop photos here, or ', field('choose files', files));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Run');
  let jobId: string | null = null;

  request<ProductPhotoPresets>('/api/v1/product-photo-presets')
    .then(({ presets }) => {
      for (const preset of presets)
        tool.append(
          h('option', { value: `preset:${preset.id}` }, `Preset: ${preset.name} (${preset.credits} credits)`),
        );
    })
    .catch(() => undefined);

  const run = async (chosen: File[]) => {
    if (!chosen.length) {
      status.replaceChildren(errorBox('Choose or drop at least one photo.'));
      return;
    }
    submit.disabled = true;
    try {
      status.replaceChildren(h('p', {}, `Uploading ${chosen.length} photo(s)…`));
      const uploads = await Promise.all(
        chosen.map((file) => request<UploadResponse>('/api/v1/uploads', { method: 'POST', blob: file })),
      );
      const { path, body } = createRequest(
        tool.value,
        uploads.map(({ upload }) => upload.image_url),
        {
          format: format.value,
          width: Number(width.value),
          height: Number(height.value),
        },
      );
      const created = await request<CreatedJob | CreatedProductPhotoJob>(path, {
        method: 'POST',
        body,
        idempotencyKey: `console-${crypto.randomUUID()}`,
      });
      jobId = created.job.id;
      status.replaceChildren(
        h(
          'p',
          {},
          'Job ',
          h('a', { href: `#/jobs/${jobId}`, class: 'mono' }, jobId.slice(0, 8)),
          ' created; results appear as they complete.',
        ),
      );
      await show();
    } catch (error) {
      status.replaceChildren(errorBox(errorMessage(error)));
    } finally {
      submit.disabled = false;
    }
  };

  const show = async () => {
    if (!jobId) return;
    const { job, results: read } = await readJob(jobId, true);
    results.replaceChildren(...read.map((result) => resultTile(job.id, result)));
  };

  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    void run([...(event.dataTransfer?.files ?? [])].filter((file) => file.type.startsWith('image/')));
  });
  const form = h(
    'form',
    { class: 'card' },
    drop,
    field('Tool or preset', tool),
    field('Format', format),
    field('Width (resize)', width),
    field('Height (resize)', height),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void run([...(files.files ?? [])]);
  });

  const reread = coalesce(() => void show().catch(() => undefined));
  const unsubscribe = liveEvents.subscribe((change) => {
    if (jobId && (change === 'resync' || change.job_id === jobId)) reread(jobId);
  });
  main.append(h('h1', {}, 'Try it'), form, status, results);
  return unsubscribe;
}
