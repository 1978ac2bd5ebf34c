import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';

/** An account activity controller: under `tag`, called with an API key, and counted toward the polling limit. */
export const ActivityApi = (tag: string) =>
  applyDecorators(
    ApiTags(tag),
    ApiBearerAuth('api_key'),
    ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded`' }),
  );
