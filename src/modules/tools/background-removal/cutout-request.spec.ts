import { NO_HINTS } from '../../../engine/mask/subject-hints';
import { findPreset, ProductPhotoOperation } from '../../catalog/product-photo-presets';
import { ToolId } from '../../catalog/tools';
import type { PreservationLevel, ProductPhotoOptions } from '../tool-options';
import { resultChoicesOf } from '../shared/tool-steps';
import { typedTask, type TypedToolTask } from '../tool-runner';
import { cutoutRequestOf, productPhotoCutout } from './cutout-request';

const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };

const removeBackgroundTask = (options: Record<string, unknown>, index = 0): TypedToolTask =>
  typedTask({
    jobId: 'job',
    resultId: 'result',
    accountId: 'account',
    tool: ToolId.RemoveBackground,
    sandbox: false,
    index,
    sourceImageUrl: 'https://images.example.com/a.jpg',
    externalId: null,
    subjectHints: NO_HINTS,
    format: 'png',
    options,
  });

describe('cutoutRequestOf (POST /remove-background)', () => {
  const stored = (background: object, output: object = {}, numberOfImages = 1) => ({
    background: { type: 'transparent', shadow: 'none', ...background },
    output: {
      crop_to_subject: false,
      margin_percent: 0,
      channels: 'rgba',
      number_of_images: numberOfImages,
      ...output,
    },
  });

  it('maps backgrounds, crops and shadows', () => {
    expect(cutoutRequestOf(removeBackgroundTask(stored({})))).toMatchObject({
      background: null,
      placement: { kind: 'source' },
      shadow: { kind: 'none' },
    });
    expect(cutoutRequestOf(removeBackgroundTask(stored({ type: 'white' })))?.background).toEqual(WHITE);
    expect(cutoutRequestOf(removeBackgroundTask(stored({ type: 'color', color: '#2050c0' })))?.background).toEqual({
      r: 0x20,
      g: 0x50,
      b: 0xc0,
      alpha: 1,
    });
    expect(
      cutoutRequestOf(removeBackgroundTask(stored({}, { crop_to_subject: true, margin_percent: 12 })))?.placement,
    ).toEqual({ kind: 'crop', marginPercent: 12 });
  });

  it('places the cut-out on a canvas as the stored placement says', () => {
    const placement = {
      width: 1200,
      height: 900,
      padding: { top: '5%', right: 24, bottom: '2.5%', left: 0 },
      horizontal_alignment: 'left',
      vertical_alignment: 'bottom',
      scale: '80%',
      shadow_in_box: true,
    };
    expect(cutoutRequestOf(removeBackgroundTask({ ...stored({}), placement }))?.placement).toEqual({
      kind: 'layout',
      size: { width: 1200, height: 900 },
      padding: { top: { percent: 5 }, right: { px: 24 }, bottom: { percent: 2.5 }, left: { px: 0 } },
      horizontal: 'left',
      vertical: 'bottom',
      scale: { kind: 'percent', percent: 80 },
      shadowInBox: true,
    });
    const { width: _width, height: _height, ...sourceSized } = placement;
    expect(
      cutoutRequestOf(removeBackgroundTask({ ...stored({}), placement: { ...sourceSized, scale: 'fill' } }))?.placement,
    ).toMatchObject({ kind: 'layout', size: null, scale: { kind: 'fill' } });
  });

  it('carries the channels asked for (rgba for jobs stored before masks existed); hints are the choices', () => {
    const hints = { region: { left: 0.1, top: 0.2, right: 0.6, bottom: 0.9 }, keepPoints: [{ x: 0.3, y: 0.5 }] };
    const task = { ...removeBackgroundTask(stored({}, { channels: 'alpha' })), subjectHints: hints };
    expect(cutoutRequestOf(task)?.channels).toBe('alpha');
    expect(resultChoicesOf(task, null).hints).toEqual(hints);
    const { channels: _absent, ...older } = stored({}).output as Record<string, unknown>;
    const olderTask = removeBackgroundTask({ ...stored({}), output: older });
    expect(cutoutRequestOf(olderTask)?.channels).toBe('rgba');
    expect(resultChoicesOf(olderTask, null).hints).toEqual(NO_HINTS);
  });

  it('chooses the file as stored, and the defaults for jobs stored before file choices existed', () => {
    const chosen = stored({}, { quality: 70, dpi: 300, metadata: 'keep' });
    expect(resultChoicesOf(removeBackgroundTask(chosen), null).output.file).toEqual({
      quality: 70,
      dpi: 300,
      metadata: 'keep',
      lossless: false,
    });
    expect(resultChoicesOf(removeBackgroundTask(stored({})), null).output.file).toEqual({
      quality: null,
      dpi: null,
      metadata: 'strip',
      lossless: false,
    });
  });

  it("gives each variant of a source its own light, and never touches the product's pixels", () => {
    const first = cutoutRequestOf(removeBackgroundTask(stored({ shadow: 'natural' }, {}, 2), 0));
    const second = cutoutRequestOf(removeBackgroundTask(stored({ shadow: 'natural' }, {}, 2), 1));
    expect(first?.shadow.kind).toBe('natural');
    expect(Math.sign(first?.shadow.lean ?? 0)).toBe(1);
    expect(Math.sign(second?.shadow.lean ?? 0)).toBe(-1);
    expect(first).toMatchObject({ light: false, color: false, polish: false });
  });
});

describe('productPhotoCutout', () => {
  const options = (
    operation: ProductPhotoOperation,
    preset: string | null,
    level?: PreservationLevel,
  ): ProductPhotoOptions => ({
    operation,
    preset: (preset && findPreset(preset)) || null,
    preservation_level: level,
    instructions: null,
    output: { number_of_images: 1 },
  });

  it(
    'honours the preservation level: strict keeps the pixels, ' +
      'balanced corrects light and colour, creative polishes too',
    () => {
      expect(productPhotoCutout(options(ProductPhotoOperation.StudioPackshot, null), 'jpg')).toMatchObject({
        light: false,
        color: false,
        polish: false,
      });
      expect(productPhotoCutout(options(ProductPhotoOperation.StudioPackshot, null, 'balanced'), 'jpg')).toMatchObject({
        light: true,
        color: true,
        polish: false,
      });
      expect(productPhotoCutout(options(ProductPhotoOperation.StudioPackshot, null, 'creative'), 'jpg')).toMatchObject({
        light: true,
        color: true,
        polish: true,
      });
    },
  );

  it("places packshots and marketplace images on the preset's canvas, on white", () => {
    expect(
      productPhotoCutout(options(ProductPhotoOperation.StudioPackshot, 'etsy_listing_image'), 'jpg'),
    ).toMatchObject({
      background: WHITE,
      shadow: { kind: 'soft' },
      placement: { kind: 'canvas', width: 2700, height: 2025, fill: 0.8 },
    });
    expect(
      productPhotoCutout(options(ProductPhotoOperation.MarketplaceClean, 'amazon_main_image'), 'jpg'),
    ).toMatchObject({
      background: WHITE,
      shadow: { kind: 'none' },
      placement: { kind: 'canvas', width: 2000, height: 2000, fill: 0.85 },
    });
    expect(productPhotoCutout(options(ProductPhotoOperation.MarketplaceClean, null), 'jpg')?.placement).toMatchObject({
      width: 2000,
      height: 2000,
    });
  });

  it('cuts every product photo out in colour, never as a mask alone', () => {
    expect(productPhotoCutout(options(ProductPhotoOperation.MarketplaceClean, null), 'jpg')?.channels).toBe('rgba');
  });

  it('cuts out on transparency for png, on white for jpg, and leaves original-background enhancement alone', () => {
    expect(
      productPhotoCutout(options(ProductPhotoOperation.RemoveBackground, 'transparent_cutout'), 'png'),
    ).toMatchObject({ background: null, placement: { kind: 'source' } });
    expect(productPhotoCutout(options(ProductPhotoOperation.RemoveBackground, null), 'jpg')?.background).toEqual(WHITE);
    expect(productPhotoCutout(options(ProductPhotoOperation.ProductPhotoEnhance, null), 'jpg')).toBeNull();
    expect(
      productPhotoCutout(options(ProductPhotoOperation.ProductPhotoEnhance, 'shop_square_image'), 'webp'),
    ).toMatchObject({
      background: WHITE,
      light: true,
      placement: { kind: 'canvas', width: 2048, height: 2048 },
    });
  });
});
