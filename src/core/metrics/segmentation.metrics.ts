import { Injectable } from '@nestjs/common';
import { Histogram, Registry } from 'prom-client';
import { metricsOf } from './registered-metrics';

/** The local segmentation model's inference, without the pixel work before and after it. */
@Injectable()
export class SegmentationMetrics {
  private readonly inference: Histogram;

  constructor(registry: Registry) {
    this.inference = metricsOf(registry).histogram({
      name: 'imgjobs_segmentation_inference_seconds',
      help: 'Time the local segmentation model took for one image.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
    });
  }

  inferred(seconds: number): void {
    this.inference.observe(seconds);
  }
}
