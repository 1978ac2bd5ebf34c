import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { MODEL_NAME_PATTERN } from '../config/config.schema';
import { isPresetName, PRESETS } from './model-presets';

/**
 * A segmentation model as its manifest describes it: a small JSON file next to the weights that
 * says how to feed the graph and read its answer (docs/operating.md "Segmentation models").
 */
export interface ModelManifest {
  name: string;
  /** The manifest's version label, e.g. `@imgly/background-removal-data@1.4.5`. */
  version: string;
  /** The manifest file; null for the built-in manifest of the shipped model. */
  manifestPath: string | null;
  /** An operator's weights file with its expected sha256, or the shipped ISNet prepared at `input.size`. */
  weights: { kind: 'file'; path: string; sha256: string } | { kind: 'shipped' };
  input: ModelInput;
  output: ModelOutput;
  licence: string;
}

/** A square side, or an image-shaped size: the longer side at most `max`, each side a multiple of `multiple`. */
export type InputSize = number | { multiple: number; max: number };

export interface ModelInput {
  name: string;
  layout: 'nchw' | 'nhwc';
  size: InputSize;
  resize: 'lanczos3' | 'bilinear' | 'cubic' | 'nearest';
  colourOrder: 'rgb' | 'bgr';
  /** `unit`: /255; `image_max`: divided by the resized image's brightest value, as rembg does. */
  scaling: 'unit' | 'image_max';
  mean: [number, number, number];
  std: [number, number, number];
}

export interface ModelOutput {
  /** The output's name, or its index among the graph's outputs. */
  tensor: string | number;
  type: 'float32' | 'float16';
  activation: 'none' | 'sigmoid';
  minMaxStretch: boolean;
}

/**
 * A model this process refuses to serve, and why. The message names the manifest (or the
 * model) and what is wrong, so one log line tells the operator what to fix.
 */
export class ModelRefusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = ModelRefusedError.name;
  }
}

const channels = z.tuple([z.number(), z.number(), z.number()]);
const side = z.number().int().min(16).max(8192);

const manifestSchema = z.strictObject({
  preset: z.string().optional(),
  name: z.string().regex(MODEL_NAME_PATTERN, 'lower-case letters, digits and . _ - only, up to 63'),
  version: z.string().min(1).max(200).optional(),
  file: z.string().min(1).optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'is not 64 lower-case hex digits')
    .optional(),
  weights: z.literal('shipped').optional(),
  input: z.strictObject({
    name: z.string().min(1, 'is required (the preset does not know this export’s input name)'),
    layout: z.enum(['nchw', 'nhwc']),
    size: z.union([side, z.strictObject({ multiple: z.number().int().min(1).max(256), max: side })]),
    resize: z.enum(['lanczos3', 'bilinear', 'cubic', 'nearest']),
    colour_order: z.enum(['rgb', 'bgr']),
    scaling: z.enum(['unit', 'image_max']),
    mean: channels,
    std: channels.refine((values) => values.every((value) => value > 0), 'must all be above 0'),
  }),
  output: z.strictObject({
    tensor: z.union([z.string().min(1), z.number().int().min(0)]),
    type: z.enum(['float32', 'float16']),
    activation: z.enum(['none', 'sigmoid']),
    min_max_stretch: z.boolean(),
  }),
  licence: z.string().min(1).max(300),
});

type ManifestFields = z.infer<typeof manifestSchema>;

/** Reads and validates `file`; every problem is a ModelRefusedError naming the file. */
export async function readModelManifest(file: string): Promise<ModelManifest> {
  const refuse = (problem: string, cause?: unknown) =>
    new ModelRefusedError(`model manifest ${file}: ${problem}`, { cause });
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    throw refuse(
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `cannot be read (${String(error)})`,
      error,
    );
  });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw refuse(`is not JSON (${(error as Error).message})`, error);
  }
  return manifestFrom(raw, path.resolve(file), refuse);
}

/** The built-in manifest of the shipped ISNet: the `isnet` preset at `inputSize`, the shipped weights. */
export function shippedManifest(options: { name: string; version: string; inputSize: number }): ModelManifest {
  const raw = { preset: 'isnet', weights: 'shipped', name: options.name, version: options.version };
  const manifest = manifestFrom(raw, null, (problem) => new ModelRefusedError(`the shipped model: ${problem}`));
  return { ...manifest, input: { ...manifest.input, size: options.inputSize } };
}

function manifestFrom(
  raw: unknown,
  manifestPath: string | null,
  refuse: (problem: string) => ModelRefusedError,
): ModelManifest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw refuse('is not a JSON object');
  const fields = withPreset(raw as Record<string, unknown>, refuse);
  const parsed = manifestSchema.safeParse(fields);
  if (!parsed.success) {
    throw refuse(
      parsed.error.issues
        .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'manifest'}: ${issue.message}`)
        .join('; '),
    );
  }
  return resolved(parsed.data, manifestPath, refuse);
}

/** The manifest's fields over its preset's: `input` and `output` merge field by field. */
function withPreset(
  raw: Record<string, unknown>,
  refuse: (problem: string) => ModelRefusedError,
): Record<string, unknown> {
  const preset = raw.preset;
  if (preset === undefined) return raw;
  if (typeof preset !== 'string' || !isPresetName(preset)) {
    throw refuse(`unknown preset ${JSON.stringify(preset)} (known: ${Object.keys(PRESETS).join(', ')})`);
  }
  const base = PRESETS[preset];
  const section = (key: 'input' | 'output') => {
    const own = raw[key];
    if (own !== undefined && (typeof own !== 'object' || own === null)) return own;
    return { ...base[key], ...(own as Record<string, unknown> | undefined) };
  };
  return { licence: base.licence, ...raw, input: section('input'), output: section('output') };
}

function resolved(
  fields: ManifestFields,
  manifestPath: string | null,
  refuse: (problem: string) => ModelRefusedError,
): ModelManifest {
  const { input, output } = fields;
  const weights = weightsOf(fields, manifestPath, refuse);
  if (weights.kind === 'shipped' && typeof input.size !== 'number') {
    throw refuse('input.size: the shipped weights take a square size (a number)');
  }
  if (typeof input.size !== 'number' && input.size.max < input.size.multiple) {
    throw refuse('input.size: max is smaller than multiple');
  }
  return {
    name: fields.name,
    version: fields.version ?? (weights.kind === 'file' ? path.basename(weights.path) : 'shipped'),
    manifestPath,
    weights,
    input: {
      name: input.name,
      layout: input.layout,
      size: input.size,
      resize: input.resize,
      colourOrder: input.colour_order,
      scaling: input.scaling,
      mean: input.mean,
      std: input.std,
    },
    output: {
      tensor: output.tensor,
      type: output.type,
      activation: output.activation,
      minMaxStretch: output.min_max_stretch,
    },
    licence: fields.licence,
  };
}

function weightsOf(
  fields: ManifestFields,
  manifestPath: string | null,
  refuse: (problem: string) => ModelRefusedError,
): ModelManifest['weights'] {
  if (fields.weights === 'shipped') {
    if (fields.file !== undefined || fields.sha256 !== undefined) {
      throw refuse('weights "shipped" takes no file or sha256');
    }
    return { kind: 'shipped' };
  }
  if (fields.file === undefined) throw refuse('file: is required (or "weights": "shipped")');
  if (fields.sha256 === undefined) throw refuse('sha256: is required beside file');
  const base = manifestPath === null ? process.cwd() : path.dirname(manifestPath);
  return { kind: 'file', path: path.resolve(base, fields.file), sha256: fields.sha256 };
}

/** How an input size reads in GET /tools and the log: `768x768` or `longer side up to 2048, multiple of 32`. */
export function describeInputSize(size: InputSize): string {
  return typeof size === 'number' ? `${size}x${size}` : `longer side up to ${size.max}, multiple of ${size.multiple}`;
}
