import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, AccessLevel } from '../http/access.decorator';
import { HealthService, type ReadinessReply } from './health.service';

@ApiTags('Health')
@Access(AccessLevel.Public)
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'The process is running, and the Node.js release it runs on.' })
  @ApiOkResponse({
    description:
      '`{ status: "ok", node: "v24.22.3" }`; a process that runs segmentation models (a worker, or role `all`) adds ' +
      '`segmentation_models`: each model it serves and the execution provider it runs on (null until loaded).',
  })
  about(): Record<string, unknown> {
    return this.health.about();
  }

  @Get('live')
  @ApiOperation({ summary: 'The process is running (a liveness probe); 200 while it drains, too.' })
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'PostgreSQL and Redis answer and the process is not shutting down (a readiness probe); 503 otherwise.',
  })
  @ApiOkResponse({ description: 'Ready.' })
  @ApiServiceUnavailableResponse({
    description: '`unavailable`: a dependency is down (`checks` says which); `draining`: the process is shutting down.',
  })
  async ready(@Res({ passthrough: true }) res: Response): Promise<ReadinessReply['body']> {
    const reply = await this.health.readinessReply();
    res.status(reply.httpStatus);
    return reply.body;
  }
}
