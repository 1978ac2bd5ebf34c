import { Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { OutboundHttps } from '../outbound/outbound-https';
import { IMAGE_PROVIDER, type ImageProvider } from './image-provider';
import { openAiDescription, OpenAiImageProvider } from './openai-image-provider';

/** OpenAI's own API, used when IMAGE_PROVIDER is openai and IMAGE_PROVIDER_BASE_URL is unset. */
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

function imageProviderFor(config: AppConfig, outbound: OutboundHttps): ImageProvider | null {
  switch (config.IMAGE_PROVIDER) {
    case 'openai':
      return new OpenAiImageProvider(
        {
          // The configuration schema requires the key when IMAGE_PROVIDER is openai.
          apiKey: config.IMAGE_PROVIDER_API_KEY as string,
          baseUrl: config.IMAGE_PROVIDER_BASE_URL ?? OPENAI_BASE_URL,
          model: config.IMAGE_PROVIDER_MODEL,
          timeoutSeconds: config.IMAGE_PROVIDER_TIMEOUT_SECONDS,
          maxRetries: config.IMAGE_PROVIDER_MAX_RETRIES,
        },
        outbound,
      );
    case 'none':
      return null;
  }
}

/**
 * How the configured provider is named (its `description`), or null when there is none: known
 * from configuration alone, so a process that never calls the provider need not create it.
 */
export function configuredProviderDescription(
  config: Pick<AppConfig, 'IMAGE_PROVIDER' | 'IMAGE_PROVIDER_MODEL'>,
): string | null {
  switch (config.IMAGE_PROVIDER) {
    case 'openai':
      return openAiDescription(config.IMAGE_PROVIDER_MODEL);
    case 'none':
      return null;
  }
}

/**
 * The configured image provider (IMAGE_PROVIDER), or null when there is none. Creating it
 * costs nothing and connects nowhere; OutboundHttps comes from the global OutboundModule.
 */
@Module({
  providers: [{ provide: IMAGE_PROVIDER, inject: [APP_CONFIG, OutboundHttps], useFactory: imageProviderFor }],
  exports: [IMAGE_PROVIDER],
})
export class ImageProviderModule {}
