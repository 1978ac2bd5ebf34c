import { plainToInstance } from 'class-transformer';
import { AdCreateRequestDto } from './ad-create.dto';
import { DomainError } from '../../../core/errors/domain-error';
import { ImageEditRequestDto } from './image-edit.dto';
import { adCreateJob, imageEditJob, productPhotoJob, removeBackgroundJob, sceneCreateJob } from './job-request';
import { ProductPhotoJobRequestDto } from './product-photo-job.dto';
import { RemoveBackgroundRequestDto } from './remove-background.dto';
import { SceneCreateRequestDto } from './scene-create.dto';

const input = [{ image_url: 'https://images.example.com/p/1.jpg' }];

describe('job requests', () => {
  it('keeps the defaults of members a DTO declares but the client left out', () => {
    const ad = adCreateJob(plainToInstance(AdCreateRequestDto, { input, creative: { platform: 'tiktok' } }));
    expect(ad.options.creative).toEqual({ platform: 'tiktok', goal: 'conversion', style: 'minimal' });
    const scene = sceneCreateJob(plainToInstance(SceneCreateRequestDto, { input, scene: { prompt: 'On a beach' } }));
    expect(scene.options.scene).toEqual({ prompt: 'On a beach', shadow: 'natural' });
    const cutout = removeBackgroundJob(
      plainToInstance(RemoveBackgroundRequestDto, { input, background: { type: 'white' } }),
    );
    expect(cutout.options.background).toEqual({ type: 'white', shadow: 'none' });
  });

  it('lets what the client sent win over a default', () => {
    const ad = adCreateJob(
      plainToInstance(AdCreateRequestDto, {
        input,
        creative: { platform: 'tiktok', goal: 'awareness', style: 'bold' },
      }),
    );
    expect(ad.options.creative).toMatchObject({ goal: 'awareness', style: 'bold' });
  });
});

/** The paths a request is refused at, or [] when it is accepted. */
function refusedAt(build: () => unknown): string[] {
  try {
    build();
    return [];
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return (error.details?.errors as Array<{ path: string }>).map((problem) => problem.path);
  }
}

describe('subject hints', () => {
  const hinted = (subject_hints: object) => [{ image_url: 'https://images.example.com/p/1.jpg', subject_hints }];
  const cutout = (subject_hints: object) => () =>
    removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input: hinted(subject_hints) }));
  const region = { left: 0.1, top: 0.1, right: 0.6, bottom: 0.9 };

  it('stores them with their source as sent', () => {
    const hints = { region, keep_points: [{ x: 0.3, y: 0.5 }] };
    expect(cutout(hints)().sources[0].subjectHints).toEqual(hints);
    expect(
      removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input })).sources[0].subjectHints,
    ).toBeNull();
  });

  it('refuses an empty box, a keep point outside the region, and hints that hint at nothing', () => {
    expect(refusedAt(cutout({ region: { ...region, right: 0.1 } }))).toEqual(['input[0].subject_hints.region.right']);
    expect(refusedAt(cutout({ region: { ...region, bottom: 0.05 } }))).toEqual([
      'input[0].subject_hints.region.bottom',
    ]);
    expect(
      refusedAt(
        cutout({
          region,
          keep_points: [
            { x: 0.3, y: 0.5 },
            { x: 0.7, y: 0.5 },
          ],
        }),
      ),
    ).toEqual(['input[0].subject_hints.keep_points[1]']);
    expect(refusedAt(cutout({}))).toEqual(['input[0].subject_hints']);
    expect(refusedAt(cutout({ keep_points: [] }))).toEqual(['input[0].subject_hints']);
    expect(refusedAt(cutout({ region, keep_points: [{ x: 0.6, y: 0.9 }] }))).toEqual([]);
  });

  it('refuses hints on an edit or a product photo job that cuts nothing out', () => {
    const edit = (operations: object) => () =>
      imageEditJob(plainToInstance(ImageEditRequestDto, { input: hinted({ region }), operations }), 50e6);
    expect(refusedAt(edit({}))).toEqual(['input[0].subject_hints']);
    expect(refusedAt(edit({ background: { type: 'original' } }))).toEqual(['input[0].subject_hints']);
    expect(refusedAt(edit({ background: { type: 'original', shadow: 'soft' } }))).toEqual([]);
    expect(refusedAt(edit({ background: { type: 'white' } }))).toEqual([]);
    const product = (body: object) => () =>
      productPhotoJob(
        plainToInstance(ProductPhotoJobRequestDto, {
          images: [
            { source_url: 'https://images.example.com/p/1.jpg', external_id: 'sku-1', subject_hints: { region } },
          ],
          ...body,
        }),
      );
    expect(refusedAt(product({}))).toEqual(['images[0].subject_hints']);
    expect(refusedAt(product({ preset: 'shop_square_image' }))).toEqual([]);
    expect(refusedAt(product({ operation: 'natural_lifestyle' }))).toEqual([]);
  });
});

describe('an upscale that states its size', () => {
  const MAX_PIXELS = 50e6;
  const edit =
    (resizing: object, upscale = true) =>
    () =>
      imageEditJob(
        plainToInstance(ImageEditRequestDto, { input, operations: { resizing, restorations: { upscale } } }),
        MAX_PIXELS,
      );

  it('is refused at operations.resizing when its box holds more than a worker holds at once', () => {
    expect(refusedAt(edit({ width: 8192, height: 8192, fit: 'cover' }))).toEqual(['operations.resizing']);
    expect(refusedAt(edit({ width: 7072, height: 7072, fit: 'contain' }))).toEqual(['operations.resizing']);
    expect(refusedAt(edit({ width: 8000, height: 6000, fit: 'crop' }))).toEqual([]);
  });

  it('is left to the worker when only the source can tell, and never refused without upscale', () => {
    expect(refusedAt(edit({ width: 8192 }))).toEqual([]);
    expect(refusedAt(edit({ height: 8192 }))).toEqual([]);
    expect(refusedAt(edit({ width: 8192, height: 8192 }, false))).toEqual([]);
  });
});

describe('mask output (output.channels alpha)', () => {
  const mask = (body: object) => () =>
    removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input, ...body }));

  it('is png on a transparent background without a shadow, and stores the channels with the options', () => {
    const job = mask({ output: { channels: 'alpha', crop_to_subject: true } })();
    expect(job.format).toBe('png');
    expect(job.options.output).toMatchObject({ channels: 'alpha', crop_to_subject: true, margin_percent: 0 });
    expect(removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input })).options.output).toMatchObject({
      channels: 'rgba',
    });
  });

  it('refuses another format, a background colour and a shadow, each at its own path', () => {
    expect(refusedAt(mask({ output: { channels: 'alpha', format: 'jpg' } }))).toEqual(['output.format']);
    expect(refusedAt(mask({ output: { channels: 'alpha', format: 'webp' } }))).toEqual(['output.format']);
    expect(refusedAt(mask({ output: { channels: 'alpha' }, background: { type: 'white' } }))).toEqual([
      'background.type',
    ]);
    expect(refusedAt(mask({ output: { channels: 'alpha' }, background: { shadow: 'natural' } }))).toEqual([
      'background.shadow',
    ]);
  });
});

describe('file choices (output.quality, output.dpi, output.metadata)', () => {
  const edit = (output: object) => () => imageEditJob(plainToInstance(ImageEditRequestDto, { input, output }), 50e6);
  const products = (body: object) => () =>
    productPhotoJob(
      plainToInstance(ProductPhotoJobRequestDto, {
        images: [{ source_url: 'https://images.example.com/p/1.jpg', external_id: 'sku-1' }],
        ...body,
      }),
    );

  it('stores the choices with the output, metadata always and quality and dpi when given', () => {
    expect(edit({ format: 'jpg', quality: 70, dpi: 300, metadata: 'keep' })().options.output).toEqual({
      number_of_images: 1,
      quality: 70,
      dpi: 300,
      metadata: 'keep',
    });
    expect(JSON.parse(JSON.stringify(edit({ quality: null })().options.output))).toEqual({
      number_of_images: 1,
      metadata: 'strip',
    });
    const cutout = removeBackgroundJob(
      plainToInstance(RemoveBackgroundRequestDto, { input, output: { format: 'webp', quality: 60, dpi: 72 } }),
    );
    expect(cutout.options.output).toMatchObject({ quality: 60, dpi: 72, metadata: 'strip', channels: 'rgba' });
  });

  it('refuses a quality for png, asked for or by default, and for a preset that writes png', () => {
    expect(refusedAt(edit({ format: 'png', quality: 80 }))).toEqual(['output.quality']);
    expect(refusedAt(edit({ quality: 80 }))).toEqual(['output.quality']);
    expect(refusedAt(edit({ format: 'webp', quality: 80 }))).toEqual([]);
    expect(refusedAt(products({ preset: 'transparent_cutout', output: { quality: 80 } }))).toEqual(['output.quality']);
    expect(refusedAt(products({ output: { quality: 80, dpi: 300, metadata: 'keep' } }))).toEqual([]);
  });

  it('stores a product photo job with its preset format and the choices', () => {
    const job = products({ preset: 'transparent_cutout', output: { dpi: 300, metadata: 'keep' } })();
    expect(job.format).toBe('png');
    expect(job.options.output).toEqual({ number_of_images: 1, dpi: 300, metadata: 'keep' });
  });
});

describe('placement on a canvas', () => {
  const cutout = (body: object) => removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input, ...body }));
  const edit = (operations: object) => imageEditJob(plainToInstance(ImageEditRequestDto, { input, operations }), 5e7);

  it('stores nothing new without a placement, so such jobs run as before', () => {
    expect(Object.keys(cutout({}).options).sort()).toEqual(['background', 'output']);
    expect(edit({ background: { type: 'white' } }).options.operations).toEqual({ background: { type: 'white' } });
  });

  it('stores a placement with its defaults, padding one length per side', () => {
    expect(cutout({ placement: {} }).options.placement).toEqual({
      padding: { top: 0, right: 0, bottom: 0, left: 0 },
      horizontal_alignment: 'center',
      vertical_alignment: 'center',
      scale: 'fit',
      shadow_in_box: false,
    });
    expect(
      edit({
        background: { type: 'transparent' },
        placement: { width: 800, height: 600, padding: { top: '5%', left: '12px' }, scale: '75.5%' },
      }).options.operations.placement,
    ).toMatchObject({ width: 800, height: 600, padding: { top: '5%', right: 0, bottom: 0, left: 12 }, scale: '75.5%' });
    expect(cutout({ placement: { padding: '2.5%' } }).options.placement?.padding).toEqual({
      top: '2.5%',
      right: '2.5%',
      bottom: '2.5%',
      left: '2.5%',
    });
  });

  it('refuses padding that leaves no room on a given canvas, counting percent as the service rounds it', () => {
    // 49.5 % of 101 is 49.995, rounded to 50: 100 of 101 pixels leaves one.
    expect(
      refusedAt(() => cutout({ placement: { width: 101, height: 10, padding: { left: '49.5%', right: '49.5%' } } })),
    ).toEqual([]);
    expect(
      refusedAt(() => cutout({ placement: { width: 100, height: 10, padding: { left: '49.5%', right: '49.5%' } } })),
    ).toEqual(['placement.padding']);
  });
});

describe('existing alpha (existing_alpha)', () => {
  const cutout = (body: object) => () =>
    removeBackgroundJob(plainToInstance(RemoveBackgroundRequestDto, { input, ...body }));
  const edit = (body: object) => () =>
    imageEditJob(plainToInstance(ImageEditRequestDto, { input, ...body }), 50_000_000);

  it('prices a remove-background job that uses it at the edit price, still as remove_background', () => {
    const used = cutout({ existing_alpha: 'use' })();
    expect([used.tool, used.costKey, used.options.existing_alpha]).toEqual([
      'remove_background',
      'image_editing.default',
      'use',
    ]);
    expect(cutout({ existing_alpha: 'ignore' })().costKey).toBe('remove_background.default');
  });

  it('stores nothing when the request is silent, so its options are what they were before it existed', () => {
    const silent = cutout({})();
    expect(silent.costKey).toBe('remove_background.default');
    expect('existing_alpha' in silent.options).toBe(false);
    expect('existing_alpha' in edit({ operations: { background: { type: 'white' } } })().options).toBe(false);
  });

  it('is refused on an edit whose background does not replace the photo, and with hints', () => {
    expect(refusedAt(edit({ existing_alpha: 'use' }))).toEqual(['existing_alpha']);
    expect(refusedAt(edit({ existing_alpha: 'use', operations: { background: { shadow: 'soft' } } }))).toEqual([
      'existing_alpha',
    ]);
    expect(refusedAt(edit({ existing_alpha: 'use', operations: { background: { type: 'transparent' } } }))).toEqual([]);
    expect(refusedAt(edit({ existing_alpha: 'ignore' }))).toEqual([]);
    const hinted = [{ ...input[0], subject_hints: { region: { left: 0, top: 0, right: 0.5, bottom: 0.5 } } }];
    expect(refusedAt(cutout({ existing_alpha: 'use', input: hinted }))).toEqual(['input[0].subject_hints']);
  });
});
