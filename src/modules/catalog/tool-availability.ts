import { Inject, Injectable, Module } from '@nestjs/common';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { configuredProviderDescription } from '../../core/image-provider/image-provider.module';
import { ToolId } from './tools';

/** Whether live keys can use a tool here, and how it runs (`mode`) or why not (`reason`), as the catalog says. */
export type ToolAvailability = { available: true; mode?: string } | { available: false; reason: string };

/**
 * Each tool's availability to live keys on this deployment. A tool that is missing or
 * unavailable here is refused to live keys: creates answer 503 `tool_unavailable` and reserve
 * nothing, and a worker fails its results.
 */
export const TOOL_AVAILABILITY = Symbol('TOOL_AVAILABILITY');
export type ToolAvailabilities = ReadonlyMap<ToolId, ToolAvailability>;

const NOT_OFFERED: ToolAvailability = { available: false, reason: 'not offered by this deployment' };

/**
 * What the configuration offers, without creating the segmenter or the provider's client: an
 * API process answers from this and never builds the worker's pipelines.
 */
export function configuredAvailability(
  config: Pick<AppConfig, 'SEGMENTER' | 'UPSCALER' | 'IMAGE_PROVIDER' | 'IMAGE_PROVIDER_MODEL' | 'STUDIO_BACKDROPS'>,
): ToolAvailabilities {
  const segmenter = config.SEGMENTER !== 'none';
  const provider = configuredProviderDescription(config);
  const needsProvider: ToolAvailability = { available: false, reason: 'needs an image provider (IMAGE_PROVIDER)' };
  return new Map<ToolId, ToolAvailability>([
    [ToolId.ImageEditing, { available: true, mode: editingMode(config.UPSCALER !== 'none') }],
    [
      ToolId.RemoveBackground,
      segmenter ? { available: true } : { available: false, reason: 'needs a segmenter (SEGMENTER is none)' },
    ],
    [
      ToolId.ImageAiEdit,
      provider
        ? {
            available: true,
            mode: `${provider}${
              segmenter ? '' : '; strict and balanced preservation need background ' + 'removal (SEGMENTER is none)'
            }`,
          }
        : needsProvider,
    ],
    [ToolId.AiBackground, sceneAvailability(segmenter, provider, config.STUDIO_BACKDROPS)],
    [ToolId.ImageGeneration, provider ? { available: true, mode: provider } : needsProvider],
    [ToolId.AdCreative, { available: true, mode: adMode(segmenter, provider) }],
  ]);
}

function editingMode(upscaler: boolean): string {
  return upscaler
    ? 'sharp pipelines on the worker; upscale by a super-resolution model (ESRGAN slim)'
    : 'sharp pipelines on the worker; upscale needs the super-resolution model (UPSCALER is none)';
}

function sceneAvailability(segmenter: boolean, provider: string | null, studioBackdrops: boolean): ToolAvailability {
  if (!segmenter) return { available: false, reason: 'needs background removal (SEGMENTER is none)' };
  if (provider) return { available: true, mode: `generated scenes (${provider})` };
  if (studioBackdrops) {
    return {
      available: true,
      mode: 'built-in studio backdrops (drawn, not generated: no image provider is configured)',
    };
  }
  return {
    available: false,
    reason: 'needs an image provider (IMAGE_PROVIDER), or STUDIO_BACKDROPS=true for built-in backdrops',
  };
}

function adMode(segmenter: boolean, provider: string | null): string {
  const subject = segmenter
    ? 'the product cut out by background removal'
    : 'the product photo whole (SEGMENTER is none)';
  const premium = provider ? `; premium_ad backdrops by ${provider}` : '';
  return `laid out by the service: ${subject}${premium}`;
}

@Injectable()
export class ToolAvailabilityService {
  constructor(@Inject(TOOL_AVAILABILITY) private readonly tools: ToolAvailabilities) {}

  /** For live keys; sandbox keys can use every tool. */
  availability(tool: ToolId): ToolAvailability {
    return this.tools.get(tool) ?? NOT_OFFERED;
  }

  isAvailable(tool: ToolId, sandbox: boolean): boolean {
    return sandbox || this.availability(tool).available;
  }
}

/** Tool availability for both roles, from configuration alone. */
@Module({
  providers: [
    { provide: TOOL_AVAILABILITY, inject: [APP_CONFIG], useFactory: configuredAvailability },
    ToolAvailabilityService,
  ],
  exports: [ToolAvailabilityService],
})
export class ToolAvailabilityModule {}
