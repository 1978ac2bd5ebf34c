import { parseAspectRatio, type AspectRatio } from '../../../core/image/aspect-ratio';
import type { ShadowKind } from '../../../engine/compose/shadow';
import type { Size } from '../../../engine/raw-image';
import type { ProductPhotoPreset } from '../../catalog/product-photo-presets';
import {
  isProductPhoto,
  type ImageAiEditOptions,
  type ImageGenerationOptions,
  type PreservationLevel,
  type ProductPhotoOptions,
  type SceneOptions,
} from '../tool-options';

const presetCanvas = (preset: ProductPhotoPreset | null): Size | null =>
  preset?.width && preset.height ? { width: preset.width, height: preset.height } : null;

/** What `natural_lifestyle` asks for when the client gave no instructions. */
export const LIFESTYLE_PROMPT =
  'A natural lifestyle setting that suits this product, photographed in soft daylight, realistic and uncluttered.';

/** What the image provider is asked to paint, and the aspect ratio asked for (null when none was). */
export interface PromptedRequest {
  prompt: string;
  ratio: AspectRatio | null;
}

export interface SceneRequest extends PromptedRequest {
  shadow: ShadowKind;
  /** The preset's canvas, when there is one. */
  canvas: Size | null;
}

/** `ai_background` from `POST /scene/create`, or the `natural_lifestyle` product photo operation. */
export function sceneRequestOf(options: SceneOptions | ProductPhotoOptions): SceneRequest {
  if (isProductPhoto(options)) {
    const { preset, instructions } = options;
    return { prompt: instructions ?? LIFESTYLE_PROMPT, shadow: 'natural', canvas: presetCanvas(preset), ratio: null };
  }
  const { scene } = options;
  return {
    prompt: scene.prompt,
    shadow: scene.shadow ?? 'natural',
    canvas: null,
    ratio: parseAspectRatio(scene.aspect_ratio),
  };
}

export interface AiEditRequest extends PromptedRequest {
  preservation: PreservationLevel;
}

/** `image_ai_edit` from `POST /image/ai-edit`. */
export function aiEditRequestOf({ options }: ImageAiEditOptions): AiEditRequest {
  return {
    prompt: options.prompt,
    ratio: parseAspectRatio(options.aspect_ratio),
    preservation: options.preservation_level ?? 'balanced',
  };
}

/** A generation asks for its prompt and ratio alone. */
export type GenerationRequest = PromptedRequest;

/** `image_generation` from `POST /image/generate`. */
export function generationRequestOf({ prompt, options }: ImageGenerationOptions): GenerationRequest {
  // `options` is stored as `{}` when the client sent none.
  return { prompt, ratio: parseAspectRatio(options.aspect_ratio) };
}

/** The canvas of exactly `ratio` whose longer side is at most `longSide`: a multiple of W x H. */
export function exactCanvas(ratio: AspectRatio, longSide: number): Size {
  const k = Math.max(1, Math.floor(longSide / Math.max(ratio.width, ratio.height)));
  return { width: ratio.width * k, height: ratio.height * k };
}
