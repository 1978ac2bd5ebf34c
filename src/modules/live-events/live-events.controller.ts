import { Controller, Get, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { requestIdOf } from '../../core/http/request-id';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { LiveEventStreams } from './live-event-streams.service';

const STREAM_EXAMPLE = [
  'retry: 2000',
  'event: ready',
  'data: {"request_id":"5f0c6a2e-9d1b-4c3e-8a7f-2b6d4e1c0a93"}',
  '',
  'event: result',
  'data: {"job_id":"7c1e2f4a-9b3d-4c5e-8f6a-1b2c3d4e5f60","result_id":"a41d0c3b-2e5f-4a6b-9c8d-7e6f5a4b3c21",' +
    '"status":"completed"}',
  '',
  'event: job',
  'data: {"job_id":"7c1e2f4a-9b3d-4c5e-8f6a-1b2c3d4e5f60","status":"completed"}',
  '',
  ': heartbeat',
  '',
].join('\n');

@ApiTags('Events')
@ApiBearerAuth('api_key')
@Controller('api/v1')
export class LiveEventsController {
  constructor(private readonly streams: LiveEventStreams) {}

  @Get('events')
  @ApiOperation({
    summary:
      'Server-sent events: a `job` event (`job_id`, `status`) when one of your jobs changes status and a `result` ' +
      'event (`job_id`, `result_id`, `status`) when one of its results does, for your key’s account and ' +
      'environment, so a page re-reads only what changed instead of polling. Authenticated by the usual ' +
      '`Authorization` header (read it with fetch streaming; EventSource cannot send one). The stream opens ' +
      'with a `ready` event, carries a `: heartbeat` comment every LIVE_EVENTS_HEARTBEAT_SECONDS, may send ' +
      '`resync` (changes may have been missed: re-read everything shown) and ends with `closing` when the ' +
      'instance shuts down or the key is revoked (reconnect). Events are hints: a status may repeat, and the ' +
      'job or result read afterwards is the truth. Does not count toward the polling limit; at most ' +
      'LIVE_EVENTS_MAX_STREAMS_PER_KEY streams open per key.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'An event stream that stays open until the client or the server closes it.',
    content: { 'text/event-stream': { schema: { type: 'string' }, example: STREAM_EXAMPLE } },
  })
  @ApiTooManyRequestsResponse({
    type: ErrorResponseDto,
    description: '`rate_limit_exceeded`: the key already holds LIVE_EVENTS_MAX_STREAMS_PER_KEY open streams',
  })
  @ApiServiceUnavailableResponse({
    type: ErrorResponseDto,
    description: '`service_unavailable`: this instance is shutting down',
  })
  events(@Auth() caller: AuthContext, @Req() req: Request, @Res() res: Response): void {
    this.streams.open(caller, res, requestIdOf(req));
  }
}
