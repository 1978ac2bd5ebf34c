import { parseAspectRatio, type AspectRatio } from '../../../core/image/aspect-ratio';
import type { ShadowKind } from '../../../core/image/compose/shadow';
import type { Size } from '../../../core/image/raw-image';
import type { ProductPhotoPreset } from '../../catalog/product-photo-presets';
import type { ToolTask } from '../tool-runner';

export type PreservationLevel = 'strict' | 'balanced' | 'creative';

/** A product photo operation's own options, as `productPhotoJob` stores them. */
interface ProductPhotoOptions {
  operation: string;
  preset: ProductPhotoPreset | null;
  preservation_level: PreservationLevel;
  instructions: string | null;
}

const isProductPhoto = (options: Record<string, unknown>): boolean => typeof options.operation === 'string';
const productPhotoOptions = (task: ToolTask) => task.options as unknown as ProductPhotoOptions;
const presetCanvas = (preset: ProductPhotoPreset | null): Size | null =>
  preset?.width && preset.height ? { width: preset.width, height: preset.height } : null;

/** What `natural_lifestyle` asks for when the client gave no instructions. */
export const LIFESTYLE_PROMPT =
  'A natural lifestyle setting that suits this product, photographed in soft daylight, realistic and uncluttered.';

export interface SceneRequest {
  prompt: string;
  shadow: ShadowKind;
  /** The preset's canvas, when there is one. */
  canvas: Size | null;
  ratio: AspectRatio | null;
}

/** `ai_background` from `POST /scene/create`, or the `natural_lifestyle` product photo operation. */
export function sceneRequestOf(task: ToolTask): SceneRequest {
  if (isProductPhoto(task.options)) {
    const { preset, instructions } = productPhotoOptions(task);
    return { prompt: instructions ?? LIFESTYLE_PROMPT, shadow: 'natural', canvas: presetCanvas(preset), ratio: null };
  }
  const scene = task.options.scene as { prompt: string; shadow?: ShadowKind; aspect_ratio?: string };
  return { prompt: scene.prompt, shadow: scene.shadow ?? 'natural', canvas: null, ratio: parseAspectRatio(scene.aspect_ratio) };
}

export interface AiEditRequest {
  prompt: string;
  ratio: AspectRatio | null;
  preservation: PreservationLevel;
}

/** `image_ai_edit` from `POST /image/ai-edit`. */
export function aiEditRequestOf(task: ToolTask): AiEditRequest {
  const options = task.options.options as { prompt: string; aspect_ratio?: string; preservation_level?: PreservationLevel };
  return { prompt: options.prompt, ratio: parseAspectRatio(options.aspect_ratio), preservation: options.preservation_level ?? 'balanced' };
}

export interface GenerationRequest {
  prompt: string;
  ratio: AspectRatio | null;
}

/** `image_generation` from `POST /image/generate`. */
export function generationRequestOf(task: ToolTask): GenerationRequest {
  const options = task.options.options as { aspect_ratio?: string } | undefined;
  return { prompt: task.options.prompt as string, ratio: parseAspectRatio(options?.aspect_ratio) };
}

/** The canvas of exactly `ratio` whose longer side is at most `longSide`: a multiple of W x H. */
export function exactCanvas(ratio: AspectRatio, longSide: number): Size {
  const k = Math.max(1, Math.floor(longSide / Math.max(ratio.width, ratio.height)));
  return { width: ratio.width * k, height: ratio.height * k };
}
