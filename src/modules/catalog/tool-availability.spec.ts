import { ToolId } from './tools';
import { configuredAvailability } from './tool-availability';

const configured = (settings: Partial<Parameters<typeof configuredAvailability>[0]> = {}) =>
  configuredAvailability({
    SEGMENTER: 'none',
    UPSCALER: 'none',
    IMAGE_PROVIDER: 'none',
    IMAGE_PROVIDER_MODEL: 'gpt-image-1',
    STUDIO_BACKDROPS: false,
    ...settings,
  });

describe(configuredAvailability.name, () => {
  it('offers what needs neither a segmenter nor a provider, and says why the rest is missing', () => {
    const tools = configured();
    expect(tools.get(ToolId.ImageEditing)).toEqual({
      available: true,
      mode: 'sharp pipelines on the worker; upscale needs the super-resolution model (UPSCALER is none)',
    });
    expect(configured({ UPSCALER: 'local' }).get(ToolId.ImageEditing)).toEqual({
      available: true,
      mode: 'sharp pipelines on the worker; upscale by a super-resolution model (ESRGAN slim)',
    });
    expect(tools.get(ToolId.RemoveBackground)).toEqual({
      available: false,
      reason: 'needs a segmenter (SEGMENTER is none)',
    });
    expect(tools.get(ToolId.ImageGeneration)).toEqual({
      available: false,
      reason: 'needs an image provider (IMAGE_PROVIDER)',
    });
    expect(tools.get(ToolId.AdCreative)).toEqual({
      available: true,
      mode: 'laid out by the service: the product photo whole (SEGMENTER is none)',
    });
  });

  it('names the configured provider as its client would, without creating one', () => {
    const tools = configured({ SEGMENTER: 'local', IMAGE_PROVIDER: 'openai' });
    expect(tools.get(ToolId.ImageAiEdit)).toEqual({ available: true, mode: 'openai (gpt-image-1)' });
    expect(tools.get(ToolId.AiBackground)).toEqual({
      available: true,
      mode: 'generated scenes (openai (gpt-image-1))',
    });
  });

  it('offers scenes on the studio backdrops without a provider, only with a segmenter', () => {
    expect(configured({ STUDIO_BACKDROPS: true }).get(ToolId.AiBackground)).toEqual({
      available: false,
      reason: 'needs background removal (SEGMENTER is none)',
    });
    expect(configured({ SEGMENTER: 'remote', STUDIO_BACKDROPS: true }).get(ToolId.AiBackground)).toEqual({
      available: true,
      mode: 'built-in studio backdrops (drawn, not generated: no image provider is configured)',
    });
  });
});
