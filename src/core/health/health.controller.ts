import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, AccessLevel } from '../http/access.decorator';
import { HealthService, type Readiness } from './health.service';

@ApiTags('Health')
@Access(AccessLevel.Public)
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @ApiOperation({ summary: 'The process is running.' })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'PostgreSQL and Redis answer; 503 otherwise.' })
  @ApiOkResponse({ description: 'Ready.' })
  @ApiServiceUnavailableResponse({ description: 'A dependency is down.' })
  async ready(@Res({ passthrough: true }) res: Response): Promise<{ status: string; checks: Readiness['checks'] }> {
    const readiness = await this.health.readiness();
    if (!readiness.ready) res.status(503);
    return { status: readiness.ready ? 'ok' : 'unavailable', checks: readiness.checks };
  }
}
