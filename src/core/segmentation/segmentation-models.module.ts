import { Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import { configuredModels, SEGMENTATION_MODELS } from './segmentation-models';

/**
 * The segmentation models a request may name, read from their manifests at start (no weights
 * are loaded; a manifest that does not validate refuses start): every role needs them, the API
 * to check requests and price them, the worker to route and run them.
 */
@Global()
@Module({
  providers: [{ provide: SEGMENTATION_MODELS, inject: [APP_CONFIG], useFactory: configuredModels }],
  exports: [SEGMENTATION_MODELS],
})
export class SegmentationModelsModule {}
