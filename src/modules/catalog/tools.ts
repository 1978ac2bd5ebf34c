export enum ToolId {
  RemoveBackground = 'remove_background',
  ImageEditing = 'image_editing',
  ImageAiEdit = 'image_ai_edit',
  AiBackground = 'ai_background',
  ImageGeneration = 'image_generation',
  AdCreative = 'ad_creative',
}

/** Background removal and everything else are admitted, queued and scaled apart (spec 8.3). */
export enum CapacityGroup {
  BackgroundRemoval = 'background_removal',
  Processing = 'processing',
}

/**
 * A request option that prices a job by another cost key than its tool's default: the option's
 * field and value, and the key whose price the job then reserves and captures.
 */
export interface OptionPrice {
  field: string;
  value: string;
  costKey: string;
  description: string;
}

export interface ToolDefinition {
  id: ToolId;
  name: string;
  endpoint: string;
  description: string;
  capacityGroup: CapacityGroup;
  /** Options that change the price; none for most tools. */
  optionPrices: readonly OptionPrice[];
}

export const defaultCostKey = (tool: ToolId): string => `${tool}.default`;

/**
 * A cut-out made from the source's own alpha (`existing_alpha` `use`) runs no segmentation: it is
 * priced as an image edit, not as a background removal.
 */
export const EXISTING_ALPHA_PRICE: OptionPrice = {
  field: 'existing_alpha',
  value: 'use',
  costKey: defaultCostKey(ToolId.ImageEditing),
  description: "The source's own alpha is the mask and nothing is segmented: priced as an image edit.",
};

/** The tools whose requests may name a segmentation model, each priced per model by its own cost key. */
export const MODEL_PRICED_TOOLS: readonly ToolId[] = [ToolId.RemoveBackground, ToolId.ImageEditing];

/**
 * The cost key of `tool`'s results cut out with `model`: a row in the prices table prices them
 * (a heavier model may cost more); without one they cost the tool's own price.
 */
export const modelCostKey = (tool: ToolId, model: string): string => `${tool}.model.${model}`;

/** What each tool is. What it costs is data (the `prices` table), never code. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    id: ToolId.RemoveBackground,
    name: 'Background removal',
    endpoint: '/api/v1/remove-background',
    description:
      'Cuts the product out of its background: transparent, white, a solid colour, a photo of yours (background.type ' +
      'image) or its own background blurred (blur: gaussian or bokeh), with an optional shadow, or ' +
      'its alpha mask alone as a one-channel PNG (output.channels alpha). Per image, subject_hints (a region, keep ' +
      'points) say where the product is; each cut-out reports its uncertainty. A source already cut out (a PNG or ' +
      'WebP with transparency) keeps its own alpha with existing_alpha use, at the image editing price instead of ' +
      'this one (option_prices). placement puts the product on a canvas: its size, padding per side, alignment, ' +
      'scale and whether the shadow counts in its box.',
    capacityGroup: CapacityGroup.BackgroundRemoval,
    optionPrices: [EXISTING_ALPHA_PRICE],
  },
  {
    id: ToolId.ImageEditing,
    name: 'Image editing',
    endpoint: '/api/v1/image/edit',
    description:
      'Structured edits: resize, crop, relight, colour correction, upscale, polish, background (a colour, a photo ' +
      'or the own background blurred) and shadow, and the cut-out placed on a canvas (operations.placement).',
    capacityGroup: CapacityGroup.Processing,
    optionPrices: [],
  },
  {
    id: ToolId.ImageAiEdit,
    name: 'AI image edit',
    endpoint: '/api/v1/image/ai-edit',
    description: 'Edits product images from natural-language instructions.',
    capacityGroup: CapacityGroup.Processing,
    optionPrices: [],
  },
  {
    id: ToolId.AiBackground,
    name: 'AI background and scene',
    endpoint: '/api/v1/scene/create',
    description: 'Places the product in a generated scene described by a prompt.',
    capacityGroup: CapacityGroup.Processing,
    optionPrices: [],
  },
  {
    id: ToolId.ImageGeneration,
    name: 'Image generation',
    endpoint: '/api/v1/image/generate',
    description: 'Generates images from a prompt, optionally guided by reference images.',
    capacityGroup: CapacityGroup.Processing,
    optionPrices: [],
  },
  {
    id: ToolId.AdCreative,
    name: 'Ad creative',
    endpoint: '/api/v1/ad/create',
    description: 'Creates ad visuals sized and styled for an advertising platform from product photos.',
    capacityGroup: CapacityGroup.Processing,
    optionPrices: [],
  },
];

export function toolDefinition(id: ToolId): ToolDefinition {
  const tool = TOOLS.find((candidate) => candidate.id === id);
  if (!tool) throw new Error(`Unknown tool ${id}`);
  return tool;
}
