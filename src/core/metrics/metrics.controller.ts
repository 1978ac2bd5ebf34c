import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, AccessLevel } from '../http/access.decorator';
import { MetricsScraper } from './metrics-scraper';

/**
 * Prometheus scrapes the API here with METRICS_TOKEN or ADMIN_TOKEN (the access guard: 404
 * while neither is set, 401 without one, 429 after too many wrong ones). Left out of the OpenAPI
 * document, which describes the API clients use.
 */
@ApiExcludeController()
@Access(AccessLevel.Metrics)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsScraper) {}

  @Get()
  async scrape(@Res({ passthrough: true }) res: Response): Promise<string> {
    const body = await this.metrics.scrape();
    res.setHeader('content-type', this.metrics.contentType);
    return body;
  }
}
