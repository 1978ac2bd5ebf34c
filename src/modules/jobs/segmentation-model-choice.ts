import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../core/errors/domain-error';
import { SEGMENTATION_MODELS, type SegmentationModels } from '../../core/segmentation/segmentation-models';
import { CatalogService } from '../catalog/catalog.service';
import type { JobRequest } from './dto/job-request';

/**
 * The model a create request names, checked against the deployment's models before anything is
 * written, and the price it sets: the request's cost key becomes the model's own when the prices
 * table has one for the tool.
 */
@Injectable()
export class SegmentationModelChoice {
  constructor(
    @Inject(SEGMENTATION_MODELS) private readonly models: SegmentationModels,
    private readonly catalog: CatalogService,
  ) {}

  async applied<R extends JobRequest>(request: R): Promise<R> {
    const name = modelNamed(request);
    if (name === undefined) return request;
    if (!this.models.byName(name)) {
      const offered = this.models.all.map((model) => model.name).join(', ');
      throw DomainError.invalid([
        { path: 'segmentation_model', message: `this deployment has no model ${name}; it offers ${offered}` },
      ]);
    }
    // Product photo operations keep their own price, whatever the model.
    if ('operation' in request.options) return request;
    const costKey = await this.catalog.modelPriceKey(request.tool, name);
    return costKey ? { ...request, costKey } : request;
  }
}

/** The model the request names; undefined when it names none (the default model). */
export function modelNamed(request: Pick<JobRequest, 'options'>): string | undefined {
  const { options } = request;
  return 'segmentation_model' in options ? options.segmentation_model : undefined;
}
