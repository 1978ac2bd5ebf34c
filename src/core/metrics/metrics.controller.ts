import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, AccessLevel } from '../http/access.decorator';
import { MetricsScraper } from './metrics-scraper';

/**
 * Prometheus scrapes the API here with the operator's token (the admin API's guard: 404 while
 * ADMIN_TOKEN is unset, 401 without it). Left out of the OpenAPI document, which describes the
 * API clients use.
 */
@ApiExcludeController()
@Access(AccessLevel.Admin)
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
