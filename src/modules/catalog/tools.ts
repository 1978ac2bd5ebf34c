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

export interface ToolDefinition {
  id: ToolId;
  name: string;
  endpoint: string;
  description: string;
  capacityGroup: CapacityGroup;
}

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
      'points) say where the product is; each cut-out reports its uncertainty.',
    capacityGroup: CapacityGroup.BackgroundRemoval,
  },
  {
    id: ToolId.ImageEditing,
    name: 'Image editing',
    endpoint: '/api/v1/image/edit',
    description:
      'Structured edits: resize, crop, relight, colour correction, upscale, polish, background (a colour, a photo ' +
      'or the own background blurred) and shadow.',
    capacityGroup: CapacityGroup.Processing,
  },
  {
    id: ToolId.ImageAiEdit,
    name: 'AI image edit',
    endpoint: '/api/v1/image/ai-edit',
    description: 'Edits product images from natural-language instructions.',
    capacityGroup: CapacityGroup.Processing,
  },
  {
    id: ToolId.AiBackground,
    name: 'AI background and scene',
    endpoint: '/api/v1/scene/create',
    description: 'Places the product in a generated scene described by a prompt.',
    capacityGroup: CapacityGroup.Processing,
  },
  {
    id: ToolId.ImageGeneration,
    name: 'Image generation',
    endpoint: '/api/v1/image/generate',
    description: 'Generates images from a prompt, optionally guided by reference images.',
    capacityGroup: CapacityGroup.Processing,
  },
  {
    id: ToolId.AdCreative,
    name: 'Ad creative',
    endpoint: '/api/v1/ad/create',
    description: 'Creates ad visuals sized and styled for an advertising platform from product photos.',
    capacityGroup: CapacityGroup.Processing,
  },
];

export const defaultCostKey = (tool: ToolId): string => `${tool}.default`;

export function toolDefinition(id: ToolId): ToolDefinition {
  const tool = TOOLS.find((candidate) => candidate.id === id);
  if (!tool) throw new Error(`Unknown tool ${id}`);
  return tool;
}
