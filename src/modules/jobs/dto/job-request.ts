import { DomainError, type FieldError } from '../../../core/errors/domain-error';
import type { OutputFormat } from '../../../core/image/output-format';
import { DEFAULT_FORMAT, DEFAULT_METADATA, LOSSLESS_FORMATS, QUALITY_FORMATS } from '../../catalog/output-options';
import { findPreset, ProductPhotoOperation, productPhotoCostKey } from '../../catalog/product-photo-presets';
import { defaultCostKey, EXISTING_ALPHA_PRICE, ToolId } from '../../catalog/tools';
import {
  cutsSubjectOut,
  PRODUCT_PHOTO_TOOL,
  replacesBackground,
  type EditOperations,
  type AdCreativeOptions,
  type ImageAiEditOptions,
  type ImageEditOptions,
  type ImageGenerationOptions,
  type ProductPhotoOptions,
  type RemoveBackgroundOptions,
  type SceneOptions,
  type StoredOutput,
  type ToolOptions,
} from '../../tools/tool-options';
import type { StoredSubjectHints } from '../result-subject-hints';
import type { AdCreateRequestDto } from './ad-create.dto';
import { backdropProblems, blurFrameProblem, existingAlphaBlurProblem, withBackdropDefaults } from './backdrop-request';
import type { ImageAiEditRequestDto } from './image-ai-edit.dto';
import type { ImageEditRequestDto } from './image-edit.dto';
import type { ImageGenerateRequestDto } from './image-generate.dto';
import type { ProductPhotoJobRequestDto } from './product-photo-job.dto';
import type { RemoveBackgroundRequestDto } from './remove-background.dto';
import type { SceneCreateRequestDto } from './scene-create.dto';
import type { InputImageDto, OutputOptionsDto } from './shared.dto';
import { placementProblems, storedPlacement } from './placement.dto';
import { subjectHintProblems, type SubjectHintsDto } from './subject-hints.dto';

export const MAX_RESULTS_PER_JOB = 20;

/** The product photo operations cut out by the background-removal pipeline (scenes and ads cut out their own way). */
const PRODUCT_PHOTO_CUTOUTS: readonly ProductPhotoOperation[] = [
  ProductPhotoOperation.RemoveBackground,
  ProductPhotoOperation.StudioPackshot,
  ProductPhotoOperation.MarketplaceClean,
  ProductPhotoOperation.ProductPhotoEnhance,
];

export interface JobSource {
  imageUrl: string | null;
  externalId: string | null;
  /** Where the client says the product is, as it sent it; null when it said nothing. */
  subjectHints: StoredSubjectHints | null;
  /** The earlier cut-out a remove-background source re-cuts (`replaces_result_id`); absent for any other. */
  replacesResultId?: string;
}

/** A source image as the DTOs give it: some endpoints' images may carry subject hints. */
type HintedImage = { subject_hints?: SubjectHintsDto | null };

/**
 * Every create endpoint's request, reduced to what admission, pricing and the worker need: its
 * tool and that tool's options (as sent, with defaults applied), stored with the job as they are.
 */
export type JobRequest<O extends ToolOptions = ToolOptions> = O & {
  costKey: string;
  sources: JobSource[];
  format: OutputFormat;
  webhookUrl: string | null;
};

/**
 * Plain data for a jsonb column: class instances and undefined members dropped (the same members, so the same type).
 */
const plain = <T extends object>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const storedHints = (hints: SubjectHintsDto | null | undefined): StoredSubjectHints | null =>
  hints ? plain<StoredSubjectHints>(hints) : null;

const sourcesOf = (input: Array<InputImageDto & HintedImage> | undefined): JobSource[] =>
  (input ?? []).map((image) => ({
    imageUrl: image.image_url,
    externalId: image.external_id ?? null,
    subjectHints: storedHints(image.subject_hints),
  }));

/**
 * `given` over `defaults`, where a member `given` leaves undefined keeps its default: DTO
 * instances carry every declared member, set or not, so a plain spread would erase defaults.
 */
function withDefaults<D extends object, G extends object>(defaults: D, given: G | undefined): Omit<G, keyof D> & D {
  const set = Object.fromEntries(Object.entries(given ?? {}).filter(([, value]) => value !== undefined));
  return { ...defaults, ...set } as Omit<G, keyof D> & D;
}

function rejectIf(problems: Array<FieldError | false>): void {
  const errors = problems.filter((problem): problem is FieldError => problem !== false);
  if (errors.length > 0) throw DomainError.invalid(errors);
}

/** A colour must be given when the background type is `color`, and may be given for a contained photo. */
function colourProblems(
  path: string,
  background: { type?: string; color?: string } | undefined,
): Array<FieldError | false> {
  return [
    background?.type === 'color' &&
      !background.color && { path: `${path}.color`, message: 'color is required when type is color' },
    background?.color !== undefined &&
      background.type !== 'color' &&
      background.type !== 'image' && {
        path: `${path}.color`,
        message: 'color is only allowed when type is color, or image (what a contained photo is shown on)',
      },
  ];
}

/** Each image's hints checked where they sit (`input[0].subject_hints`). */
const hintProblems = (field: string, images: HintedImage[]): FieldError[] =>
  images.flatMap((image, index) => subjectHintProblems(`${field}[${index}].subject_hints`, image.subject_hints));

/** Hints on a request that cuts nothing out would be ignored without a word: refused, at each image that has them. */
const unusableHints = (field: string, images: HintedImage[], why: string): FieldError[] =>
  images.flatMap((image, index) =>
    image.subject_hints ? [{ path: `${field}[${index}].subject_hints`, message: why }] : [],
  );

/** A mask is one channel of a PNG: no other format, and nothing but the product's own alpha in it. */
function maskProblems(
  format: OutputFormat | undefined,
  background: { type: string; shadow: string },
): Array<FieldError | false> {
  return [
    format !== undefined &&
      format !== 'png' && {
        path: 'output.format',
        message: 'channels alpha gives a one-channel PNG mask; format must be png',
      },
    background.type !== 'transparent' && {
      path: 'background.type',
      message: 'a mask (channels alpha) has no background colour; leave the background transparent',
    },
    background.shadow !== 'none' && {
      path: 'background.shadow',
      message: 'a mask (channels alpha) has no shadow; leave shadow none',
    },
  ];
}

/**
 * `existing_alpha` `use` makes the source's alpha the mask: hints, which steer the segmenter, would be
 * ignored, so they are refused at each image that has them.
 */
const existingAlphaHintProblems = (existingAlpha: string | undefined, images: HintedImage[]): FieldError[] =>
  existingAlpha === 'use'
    ? unusableHints('input', images, 'subject_hints steer the segmenter; with existing_alpha use nothing is segmented')
    : [];

/** A named model is refused where nothing is segmented, rather than ignored. */
const unusedModel = (model: string | undefined, why: string | false): Array<FieldError | false> => [
  model !== undefined && why !== false && { path: 'segmentation_model', message: why },
];

const EXISTING_ALPHA_SEGMENTS_NOTHING =
  'segmentation_model chooses the segmenter; with existing_alpha use nothing is segmented';

/** A result's format and where it comes from, for the messages that refuse what the format cannot do. */
interface ResultFormat {
  format: OutputFormat;
  /** Why the result has this format: `output.format`, the default, or a preset. */
  origin: string;
}

const requestedFormat = (output: OutputOptionsDto | undefined): ResultFormat =>
  output?.format
    ? { format: output.format, origin: 'output.format' }
    : { format: DEFAULT_FORMAT, origin: 'the default format' };

/** A quality means nothing to a lossless format: refused rather than ignored, so a client sees its mistake. */
function qualityProblems(output: OutputOptionsDto | undefined, { format, origin }: ResultFormat): FieldError[] {
  const lossy: readonly string[] = QUALITY_FORMATS;
  if (output?.quality == null || lossy.includes(format)) return [];
  return [
    {
      path: 'output.quality',
      message: `quality applies to jpg, webp and avif; this result is ${format} (${origin}), which is lossless`,
    },
  ];
}

/** `output.lossless` is a webp choice: refused with any other format, and with a quality (which it would ignore). */
function losslessProblems(output: OutputOptionsDto | undefined, { format, origin }: ResultFormat): FieldError[] {
  const formats: readonly string[] = LOSSLESS_FORMATS;
  if (output?.lossless !== true) return [];
  if (!formats.includes(format)) {
    return [{ path: 'output.lossless', message: `lossless applies to webp; this result is ${format} (${origin})` }];
  }
  if (output.quality != null) {
    return [{ path: 'output.lossless', message: 'a lossless webp has no quality; leave output.quality out' }];
  }
  return [];
}

/**
 * The file choices a job stores: metadata always, quality and dpi when given (an explicit null is
 * none; undefined members are dropped when the options are written).
 */
const storedFileChoices = (output: OutputOptionsDto | undefined) => ({
  quality: output?.quality ?? undefined,
  dpi: output?.dpi ?? undefined,
  metadata: output?.metadata ?? DEFAULT_METADATA,
  lossless: output?.lossless || undefined,
});

/** The request of one create endpoint: its tool and that tool's options. */
type ToolJobRequest<T extends ToolId, O> = JobRequest<Extract<ToolOptions, { tool: T; options: O }>>;

/** A tool's options without the variant count, which `build` adds. */
type Unnumbered<O extends ToolOptions> = {
  tool: O['tool'];
  options: Omit<O['options'], 'output'> & { output?: object };
};

function build<O extends ToolOptions>(
  job: Unnumbered<O>,
  sources: JobSource[],
  output: OutputOptionsDto | undefined,
  webhookUrl: string | undefined,
  costKey = defaultCostKey(job.tool),
  resultFormat = requestedFormat(output),
): JobRequest<O> {
  const imagesPerSource = output?.number_of_images ?? 1;
  const results = sources.length * imagesPerSource;
  rejectIf([
    ...qualityProblems(output, resultFormat),
    ...losslessProblems(output, resultFormat),
    results > MAX_RESULTS_PER_JOB && {
      path: 'output.number_of_images',
      message:
        `${sources.length} source images x ${imagesPerSource} images each is ${results} results; a job holds ` +
        `at most ${MAX_RESULTS_PER_JOB}`,
    },
  ]);
  // The variant count travels with the options, so a worker knows which variant a result is.
  const stored = plain(job.options);
  const numbered: StoredOutput = {
    ...stored.output,
    number_of_images: imagesPerSource,
    ...storedFileChoices(output),
  };
  const options = { ...stored, output: numbered } as O['options'];
  // `O` pairs this tool with these options; TypeScript cannot follow the pairing through the generic spread above.
  const request = {
    tool: job.tool,
    options,
    costKey,
    sources,
    format: resultFormat.format,
    webhookUrl: webhookUrl ?? null,
  } as JobRequest;
  return request as JobRequest<O>;
}

/**
 * A re-cut replaces one result with one: each replaced result is named by one item, and each
 * item makes one result (several variants could not all replace it).
 */
function recutProblems(dto: RemoveBackgroundRequestDto): FieldError[] {
  const seen = new Set<string>();
  return dto.input.flatMap((image, index): FieldError[] => {
    const replaces = image.replaces_result_id;
    if (!replaces) return [];
    const path = `input[${index}].replaces_result_id`;
    if (seen.has(replaces)) return [{ path, message: 'names a result another item of this request re-cuts already' }];
    seen.add(replaces);
    if ((dto.output?.number_of_images ?? 1) > 1) {
      return [{ path, message: 'a re-cut makes one result; leave output.number_of_images at 1' }];
    }
    return [];
  });
}

/** `maxCanvasPixels`: the largest placement canvas (SOURCE_MAX_MEGAPIXELS; the controller passes it). */
export function removeBackgroundJob(
  dto: RemoveBackgroundRequestDto,
  maxCanvasPixels = Number.POSITIVE_INFINITY,
): ToolJobRequest<ToolId.RemoveBackground, RemoveBackgroundOptions> {
  const background = withBackdropDefaults(
    withDefaults({ type: 'transparent' as const, shadow: 'none' as const }, dto.background),
  );
  const output = withDefaults({ crop_to_subject: false, margin_percent: 0, channels: 'rgba' }, dto.output);
  const mask = output.channels === 'alpha';
  rejectIf([
    ...placementProblems('placement', dto.placement, maxCanvasPixels),
    dto.placement !== undefined &&
      (dto.output?.crop_to_subject === true || dto.output?.margin_percent !== undefined) && {
        path: 'placement',
        message: 'placement and output.crop_to_subject (with margin_percent) both frame the result; use one of them',
      },
    ...(dto.placement ? blurFrameProblem('placement', dto.background) : []),
    ...colourProblems('background', dto.background),
    ...backdropProblems('background', dto.background),
    ...(output.crop_to_subject ? blurFrameProblem('output.crop_to_subject', dto.background) : []),
    !mask &&
      dto.output?.format === 'jpg' &&
      background.type === 'transparent' && {
        path: 'output.format',
        message: 'jpg cannot hold a transparent background; use png, webp or avif, or a white or color background',
      },
    ...(mask ? maskProblems(dto.output?.format, background) : []),
    ...hintProblems('input', dto.input),
    ...existingAlphaHintProblems(dto.existing_alpha, dto.input),
    ...existingAlphaBlurProblem(dto.existing_alpha, dto.background),
    ...unusedModel(dto.segmentation_model, dto.existing_alpha === 'use' && EXISTING_ALPHA_SEGMENTS_NOTHING),
    ...recutProblems(dto),
  ]);
  const placement = dto.placement && storedPlacement(dto.placement);
  return build(
    {
      tool: ToolId.RemoveBackground,
      options: {
        background,
        output,
        existing_alpha: dto.existing_alpha,
        segmentation_model: dto.segmentation_model,
        ...(placement ? { placement } : {}),
      },
    },
    sourcesOf(dto.input).map((source, index) => {
      const replaces = dto.input[index].replaces_result_id;
      return replaces ? { ...source, replacesResultId: replaces } : source;
    }),
    dto.output,
    dto.webhook_url,
    // Still the remove_background tool (its label and capacity group), at the price the catalog lists for the option.
    dto.existing_alpha === EXISTING_ALPHA_PRICE.value ? EXISTING_ALPHA_PRICE.costKey : undefined,
  );
}

/**
 * An upscale that states its result's size (both sides: `contain` pads to the box, `cover` and
 * `crop` fill it) is refused when that size holds more than `maxPixels`, the most a worker holds
 * at once (SOURCE_MAX_MEGAPIXELS); any other upscale whose result would pass the limits fails at
 * the worker, once the source's size shows it.
 */
function upscaleSizeProblems(
  operations: Pick<EditOperations, 'resizing' | 'restorations'> | undefined,
  maxPixels: number,
): Array<FieldError | false> {
  const { width, height } = operations?.resizing ?? {};
  if (operations?.restorations?.upscale !== true || width === undefined || height === undefined) return [];
  const megapixels = (pixels: number) => `${Math.round(pixels / 1e5) / 10} megapixels`;
  return [
    width * height > maxPixels && {
      path: 'operations.resizing',
      message:
        `an upscaled result is at most ${megapixels(maxPixels)}; ${width} x ${height} is ` +
        `${megapixels(width * height)}`,
    },
  ];
}

/** The edit's operations as stored: a background photo's or blur's defaults filled in, a placement's too. */
function editOperations(operations: ImageEditRequestDto['operations']): EditOperations {
  if (!operations) return {};
  const { placement, ...others } = operations;
  const stored: EditOperations = placement ? { ...others, placement: storedPlacement(placement) } : others;
  return stored.background ? { ...stored, background: withBackdropDefaults(stored.background) } : stored;
}

/** `maxUpscaledPixels`: the largest image an upscale or a placement's canvas may make (SOURCE_MAX_MEGAPIXELS). */
export function imageEditJob(
  dto: ImageEditRequestDto,
  maxUpscaledPixels: number,
): ToolJobRequest<ToolId.ImageEditing, ImageEditOptions> {
  const placement = dto.operations?.placement;
  rejectIf([
    ...placementProblems('operations.placement', placement, maxUpscaledPixels),
    placement !== undefined &&
      !replacesBackground(dto.operations?.background) && {
        path: 'operations.placement',
        message:
          'placement puts the cut-out product on a canvas: it needs operations.background with type transparent, ' +
          'white, color or image',
      },
    ...(placement ? blurFrameProblem('operations.placement', dto.operations?.background) : []),
    placement !== undefined &&
      dto.operations?.resizing !== undefined && {
        path: 'operations.placement',
        message: 'placement sets the result size itself; leave operations.resizing out',
      },
    ...colourProblems('operations.background', dto.operations?.background),
    ...backdropProblems('operations.background', dto.operations?.background),
    ...upscaleSizeProblems(dto.operations, maxUpscaledPixels),
    dto.output?.format === 'jpg' &&
      dto.operations?.background?.type === 'transparent' && {
        path: 'output.format',
        message: 'jpg cannot hold a transparent background; use png, webp or avif, or a white or color background',
      },
    ...hintProblems('input', dto.input),
    ...(cutsSubjectOut(dto.operations?.background)
      ? []
      : unusableHints(
          'input',
          dto.input,
          'subject_hints need operations.background with a type other than original, or a shadow: ' +
            'without one nothing is cut out',
        )),
    dto.existing_alpha === 'use' &&
      !replacesBackground(dto.operations?.background) && {
        path: 'existing_alpha',
        message:
          'existing_alpha use needs operations.background with type transparent, white, color or image: ' +
          "without one the source's alpha is not used as a mask",
      },
    ...existingAlphaBlurProblem(dto.existing_alpha, dto.operations?.background),
    // Hints on an edit that cuts nothing out are refused above already, with their own reason.
    ...(cutsSubjectOut(dto.operations?.background) ? existingAlphaHintProblems(dto.existing_alpha, dto.input) : []),
    ...unusedModel(
      dto.segmentation_model,
      !cutsSubjectOut(dto.operations?.background)
        ? 'segmentation_model needs operations.background with a type other than original, or a shadow: without ' +
            'one nothing is cut out'
        : dto.existing_alpha === 'use' && EXISTING_ALPHA_SEGMENTS_NOTHING,
    ),
  ]);
  return build(
    {
      tool: ToolId.ImageEditing,
      options: {
        operations: editOperations(dto.operations),
        existing_alpha: dto.existing_alpha,
        segmentation_model: dto.segmentation_model,
      },
    },
    sourcesOf(dto.input),
    dto.output,
    dto.webhook_url,
  );
}

export function imageAiEditJob(dto: ImageAiEditRequestDto): ToolJobRequest<ToolId.ImageAiEdit, ImageAiEditOptions> {
  return build(
    { tool: ToolId.ImageAiEdit, options: { options: dto.options } },
    sourcesOf(dto.input),
    dto.output,
    dto.webhook_url,
  );
}

export function sceneCreateJob(dto: SceneCreateRequestDto): ToolJobRequest<ToolId.AiBackground, SceneOptions> {
  return build(
    { tool: ToolId.AiBackground, options: { scene: withDefaults({ shadow: 'natural' as const }, dto.scene) } },
    sourcesOf(dto.input),
    dto.output,
    dto.webhook_url,
  );
}

/** Without reference images a generation job still has one (empty) source: max(N, 1) x M. */
export function imageGenerateJob(
  dto: ImageGenerateRequestDto,
): ToolJobRequest<ToolId.ImageGeneration, ImageGenerationOptions> {
  const references = sourcesOf(dto.input);
  const sources = references.length > 0 ? references : [{ imageUrl: null, externalId: null, subjectHints: null }];
  return build(
    { tool: ToolId.ImageGeneration, options: { prompt: dto.prompt, options: dto.options ?? {} } },
    sources,
    dto.output,
    dto.webhook_url,
  );
}

export function adCreateJob(dto: AdCreateRequestDto): ToolJobRequest<ToolId.AdCreative, AdCreativeOptions> {
  const creative = withDefaults({ goal: 'conversion' as const, style: 'minimal' as const }, dto.creative);
  return build({ tool: ToolId.AdCreative, options: { creative } }, sourcesOf(dto.input), dto.output, dto.webhook_url);
}

/** Product photo jobs: one result per image; a preset decides the operation and format. */
export function productPhotoJob(dto: ProductPhotoJobRequestDto): JobRequest {
  const preset = dto.preset ? findPreset(dto.preset) : undefined;
  rejectIf([
    preset !== undefined &&
      dto.operation !== undefined &&
      dto.operation !== preset.operation && {
        path: 'preset',
        message: `preset ${preset.id} is for the ${preset.operation} operation, not ${dto.operation}`,
      },
  ]);
  const operation = dto.operation ?? preset?.operation ?? ProductPhotoOperation.ProductPhotoEnhance;
  // As productPhotoCutout decides: enhancing keeps the photo's background unless the preset replaces it.
  const keepsBackground =
    operation === ProductPhotoOperation.ProductPhotoEnhance && (!preset || preset.background === 'original');
  // As productPhotoCutout decides too: these operations cut the product out with the segmenter here.
  const cutsOut = PRODUCT_PHOTO_CUTOUTS.includes(operation) && !keepsBackground;
  rejectIf([
    ...hintProblems('images', dto.images),
    ...(keepsBackground
      ? unusableHints(
          'images',
          dto.images,
          `subject_hints need an operation that cuts the product out; ${operation} without a white or transparent ` +
            `preset keeps the photo's background`,
        )
      : []),
    ...unusedModel(
      dto.segmentation_model,
      !cutsOut &&
        `segmentation_model needs an operation that cuts the product out here (remove_background, studio_packshot, ` +
          `marketplace_clean, or product_photo_enhance with a preset that replaces the background), not ${operation}` +
          (preset ? ` with preset ${preset.id}` : ''),
    ),
  ]);
  const sources = dto.images.map((image) => ({
    imageUrl: image.source_url,
    externalId: image.external_id,
    subjectHints: storedHints(image.subject_hints),
  }));
  const options: Omit<ProductPhotoOptions, 'output'> = {
    operation,
    preset: preset ?? null,
    preservation_level: dto.preservation_level ?? 'strict',
    instructions: dto.instructions ?? null,
    segmentation_model: dto.segmentation_model,
  };
  return build(
    { tool: PRODUCT_PHOTO_TOOL[operation], options },
    sources,
    dto.output,
    dto.webhook_url,
    productPhotoCostKey(operation),
    preset
      ? { format: preset.format, origin: `the format of preset ${preset.id}` }
      : { format: 'jpg', origin: 'the format of product photos without a preset' },
  );
}
