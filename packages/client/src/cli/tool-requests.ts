import type { OutputFormat } from './naming';
import { placementOf, type PlacementFlags } from './placement-flags';

/** The create endpoints the command line uses, as the client names them. */
export type CreateEndpoint = 'remove-background' | 'image/edit' | 'product-photo-jobs';

/** A price as the service lists it: per image, at a pricing version. */
export interface ListedPrice {
  credits: number;
  pricingVersion: number;
  costKey: string;
}

/**
 * Where a run's price comes from: a tool's cost in `GET /tools`, or the price a preset is listed
 * with in `GET /product-photo-presets` (its operation's).
 */
export type PriceSource =
  { kind: 'tool'; toolId: string; option?: { field: string; value: string } } | ({ kind: 'preset' } & ListedPrice);

/** One command's request: everything in the create body but the images, and what it produces. */
export interface ToolRequest {
  /** The command's name, part of every idempotency key (two commands never share a job). */
  command: string;
  endpoint: CreateEndpoint;
  /** The body's members other than the images, exactly as sent. */
  options: Record<string, unknown>;
  /** The format results are written in, which names their files. */
  format: OutputFormat;
  price: PriceSource;
}

/** A source as a create body lists it: its uploaded URL and its label, returned with its result. */
export interface RequestImage {
  imageUrl: string;
  externalId: string;
}

/** The create body for `images` (product photo jobs call them `images[].source_url`, the rest `input[].image_url`). */
export function createBody(request: ToolRequest, images: readonly RequestImage[]): Record<string, unknown> {
  if (request.endpoint === 'product-photo-jobs') {
    return {
      images: images.map((image) => ({ source_url: image.imageUrl, external_id: image.externalId })),
      ...request.options,
    };
  }
  return {
    input: images.map((image) => ({ image_url: image.imageUrl, external_id: image.externalId })),
    ...request.options,
  };
}

/** Drops undefined members and objects left empty, so an option not given is not sent at all. */
export function compact(value: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    const inner =
      member !== null && typeof member === 'object' && !Array.isArray(member)
        ? compact(member as Record<string, unknown>)
        : member;
    if (inner !== undefined) kept[key] = inner;
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}

export interface OutputFlags {
  format?: OutputFormat;
  quality?: number;
  lossless?: boolean;
}

/** A background photo or a blur of the photo's own background (`--background image` or `blur`). */
export interface BackdropFlags {
  backgroundImage?: string;
  backgroundFit?: 'cover' | 'contain';
  blurMode?: 'gaussian' | 'bokeh';
  blurStrength?: number;
}

export interface RemoveBackgroundFlags extends OutputFlags, BackdropFlags, PlacementFlags {
  background?: 'transparent' | 'white' | 'color' | 'image' | 'blur';
  backgroundColor?: string;
  shadow?: 'none' | 'soft' | 'natural';
  cropToSubject?: boolean;
  margin?: number;
  existingAlpha?: 'ignore' | 'use';
  segmentationModel?: string;
}

export interface EditFlags extends OutputFlags, BackdropFlags, PlacementFlags {
  width?: number;
  height?: number;
  fit?: 'contain' | 'cover' | 'crop';
  background?: 'original' | 'transparent' | 'white' | 'color' | 'image' | 'blur';
  backgroundColor?: string;
  shadow?: 'none' | 'soft' | 'natural';
  light?: boolean;
  colour?: boolean;
  upscale?: boolean;
  polish?: boolean;
  existingAlpha?: 'ignore' | 'use';
  segmentationModel?: string;
}

export interface PresetFlags {
  quality?: number;
  preservation?: 'strict' | 'balanced' | 'creative';
  instructions?: string;
}

/** A product photo preset as `GET /product-photo-presets` lists it (the members the command line reads). */
export interface PresetDescription extends ListedPrice {
  id: string;
  operation: string;
  format: OutputFormat;
}

/** Options that cannot work together, refused before anything is uploaded or created. */
export class UsageError extends Error {}

function checkBackground(
  flags: BackdropFlags & { background?: string; backgroundColor?: string },
  format: OutputFormat,
): void {
  if (flags.background === 'color' && !flags.backgroundColor) {
    throw new UsageError('--background color needs --background-color #RRGGBB');
  }
  if (flags.backgroundColor && flags.background !== 'color' && flags.background !== 'image') {
    throw new UsageError('--background-color goes with --background color (or image, what a contained photo is on)');
  }
  if (flags.background === 'image' && !flags.backgroundImage) {
    throw new UsageError('--background image needs --background-image <file or URL>');
  }
  if ((flags.backgroundImage || flags.backgroundFit) && flags.background !== 'image') {
    throw new UsageError('--background-image and --background-fit go with --background image');
  }
  if ((flags.blurMode || flags.blurStrength !== undefined) && flags.background !== 'blur') {
    throw new UsageError('--blur-mode and --blur-strength go with --background blur');
  }
  if (format === 'jpg' && flags.background === 'transparent') {
    throw new UsageError('jpg has no transparency: choose --format png, webp or avif, or another --background');
  }
}

function checkQuality(quality: number | undefined, format: OutputFormat): void {
  if (quality !== undefined && format === 'png') {
    throw new UsageError('png is lossless: --quality applies to jpg, webp and avif only');
  }
}

function checkLossless(flags: OutputFlags, format: OutputFormat): void {
  if (!flags.lossless) return;
  if (format !== 'webp') throw new UsageError('--lossless applies to --format webp only');
  if (flags.quality !== undefined) throw new UsageError('--lossless has no quality: leave --quality out');
}

/** The request's `background`, its photo or blur included. */
function backgroundOption(flags: BackdropFlags & { background?: string; backgroundColor?: string; shadow?: string }) {
  return {
    type: flags.background,
    color: flags.backgroundColor,
    image_url: flags.backgroundImage,
    fit: flags.backgroundFit,
    blur: { mode: flags.blurMode, strength: flags.blurStrength },
    shadow: flags.shadow,
  };
}

export function removeBackgroundRequest(flags: RemoveBackgroundFlags): ToolRequest {
  const format = flags.format ?? 'png';
  checkBackground({ ...flags, background: flags.background ?? 'transparent' }, format);
  checkQuality(flags.quality, format);
  checkLossless(flags, format);
  const placement = placementOf(flags);
  if (placement && (flags.cropToSubject || flags.margin !== undefined)) {
    throw new UsageError('--crop-to-subject and --margin frame the result as placement does: use one or the other');
  }
  if (placement && flags.background === 'blur') {
    throw new UsageError("--background blur keeps the photo's own frame: no placement on a canvas with it");
  }
  const options = compact({
    placement,
    background: backgroundOption(flags),
    output: {
      format: flags.format,
      quality: flags.quality,
      lossless: flags.lossless,
      crop_to_subject: flags.cropToSubject,
      margin_percent: flags.margin,
    },
    existing_alpha: flags.existingAlpha,
    segmentation_model: flags.segmentationModel,
  });
  return {
    command: 'remove-background',
    endpoint: 'remove-background',
    options: options ?? {},
    format,
    price: {
      kind: 'tool',
      toolId: 'remove_background',
      // The catalog lists what a source that is its own mask costs (the edit's price), and a model priced apart.
      ...pricedOption(flags),
    },
  };
}

/**
 * The request option that may price the job otherwise than its tool (the service refuses the two
 * together, so at most one is sent): a source that is its own mask, or a model priced apart.
 */
function pricedOption(flags: Pick<RemoveBackgroundFlags, 'existingAlpha' | 'segmentationModel'>) {
  if (flags.existingAlpha) return { option: { field: 'existing_alpha', value: flags.existingAlpha } };
  if (flags.segmentationModel) return { option: { field: 'segmentation_model', value: flags.segmentationModel } };
  return {};
}

export function editRequest(flags: EditFlags): ToolRequest {
  const format = flags.format ?? 'png';
  checkBackground(flags, format);
  checkQuality(flags.quality, format);
  checkLossless(flags, format);
  if (flags.fit && (flags.width === undefined || flags.height === undefined)) {
    throw new UsageError('--fit applies when both --width and --height are given');
  }
  const placement = placementOf(flags);
  if (placement && !['transparent', 'white', 'color', 'image'].includes(flags.background ?? 'original')) {
    throw new UsageError(
      'placement puts the cut-out on a canvas: it needs --background transparent, white, color or image',
    );
  }
  if (placement && (flags.width !== undefined || flags.height !== undefined || flags.fit)) {
    throw new UsageError(
      'placement sets the result size itself (--placement-size): leave --width, --height and --fit out',
    );
  }
  const operations = {
    placement,
    adjustments: { light: flags.light, color: flags.colour },
    background: backgroundOption(flags),
    resizing: { width: flags.width, height: flags.height, fit: flags.fit },
    restorations: { upscale: flags.upscale, polish: flags.polish },
  };
  if (!compact(operations)) {
    throw new UsageError('say what to edit: --width/--height, --background, --light, --colour, --upscale or --polish');
  }
  if (
    flags.existingAlpha === 'use' &&
    !['transparent', 'white', 'color', 'image'].includes(flags.background ?? 'original')
  ) {
    throw new UsageError('--existing-alpha use needs --background transparent, white, color or image');
  }
  const options = compact({
    operations,
    output: { format: flags.format, quality: flags.quality, lossless: flags.lossless },
    existing_alpha: flags.existingAlpha,
    segmentation_model: flags.segmentationModel,
  });
  return {
    command: 'edit',
    endpoint: 'image/edit',
    options: options ?? {},
    format,
    price: { kind: 'tool', toolId: 'image_editing', ...pricedOption(flags) },
  };
}

export function presetRequest(preset: PresetDescription, flags: PresetFlags): ToolRequest {
  checkQuality(flags.quality, preset.format);
  const options = compact({
    preset: preset.id,
    preservation_level: flags.preservation,
    instructions: flags.instructions,
    output: { quality: flags.quality },
  });
  return {
    command: 'preset',
    endpoint: 'product-photo-jobs',
    options: options ?? {},
    format: preset.format,
    price: {
      kind: 'preset',
      credits: preset.credits,
      pricingVersion: preset.pricingVersion,
      costKey: preset.costKey,
    },
  };
}
