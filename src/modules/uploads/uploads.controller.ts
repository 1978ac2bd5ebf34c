import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { readRawBody } from '../../core/http/body-parsing';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { OptionalIdempotencyKeyHeader } from '../idempotency/idempotency-key.decorator';
import { setRateLimitHeaders } from '../rate-limit/rate-limit.headers';
import { UploadResponseDto, type UploadDto } from './upload.dto';
import { UPLOAD_MEDIA_TYPE_LIST } from './upload-media-type';
import { presentUpload } from './upload.presenter';
import { UploadsService } from './uploads.service';

@ApiTags('Uploads')
@ApiBearerAuth('api_key')
@Controller('api/v1/uploads')
export class UploadsController {
  constructor(private readonly uploads: UploadsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Upload a source image, to use as `upload://…` in any create request.',
    description:
      'The body is the image itself, with its type as `Content-Type`. The format is read from the image ' +
      'header and must be the declared type. At most SOURCE_MAX_BYTES (25 MiB by default, the limit of ' +
      'fetched sources) and SOURCE_MAX_MEGAPIXELS (50). The upload is kept UPLOAD_RETENTION_HOURS (24 by ' +
      'default), usable by every key of your account, and then deleted. Counts toward the upload limit ' +
      '(LIMIT_UPLOADS_PER_HOUR_KEY, 100 per hour by default), refused uploads and replays too. A body ' +
      'whose Content-Length is over SOURCE_MAX_BYTES is refused 413 before any of it is read, and the ' +
      'connection is closed.\n\n' +
      'With an `Idempotency-Key` (kept as long as the upload, UPLOAD_RETENTION_HOURS), the same key with ' +
      'the same Content-Type and bytes answers 200 with the upload the first request stored, however many ' +
      'times and however concurrently it is sent; the same key with another body is 409 ' +
      '`idempotency_conflict`. A refused request stores nothing and leaves the key free.\n\n' +
      '```\ncurl -s https://api.example.com/api/v1/uploads -H "Authorization: Bearer $KEY" \\\n' +
      '  -H "Content-Type: image/jpeg" --data-binary @shoe.jpg\n```',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '8 to 160 characters of `A-Za-z0-9._:-`. Scoped to the API key. A repeat with the same Content-Type and ' +
      'bytes answers 200 with the same upload; another body is 409 `idempotency_conflict`.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,160}$' },
  })
  @ApiConsumes(...UPLOAD_MEDIA_TYPE_LIST)
  @ApiBody({ schema: { type: 'string', format: 'binary' }, description: 'The image bytes.' })
  @ApiCreatedResponse({
    type: UploadResponseDto,
    description: 'Stored.',
    example: {
      upload: {
        id: 'upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
        image_url: 'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
        content_type: 'image/jpeg',
        format: 'jpeg',
        width: 1200,
        height: 800,
        size_bytes: 123456,
        created_at: '2026-07-01T09:30:00.000Z',
        expires_at: '2026-07-02T09:30:00.000Z',
      },
      request_id: '5f0c6a2e-8d1b-4c3e-9f7a-2b6d4e8a1c0f',
    },
  })
  @ApiOkResponse({
    type: UploadResponseDto,
    description: 'A repeat of an earlier request with the same Idempotency-Key, Content-Type and bytes: its upload.',
  })
  @ApiConflictResponse({
    type: ErrorResponseDto,
    description:
      '`idempotency_conflict`: the Idempotency-Key was used with another body (or a request with it is still ' +
      'storing its upload; then with Retry-After)',
  })
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description:
      '`invalid_request`: an empty body, a body that is not an image, not the declared type, or an invalid ' +
      'Idempotency-Key',
  })
  @ApiPayloadTooLargeResponse({
    type: ErrorResponseDto,
    description:
      '`payload_too_large`: more than SOURCE_MAX_BYTES (refused from Content-Length before the body is read, ' +
      'the connection then closed), or more than SOURCE_MAX_MEGAPIXELS',
  })
  @ApiUnsupportedMediaTypeResponse({
    type: ErrorResponseDto,
    description: '`unsupported_media_type`: Content-Type is not an accepted image type, or the body is compressed',
  })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded` (with Retry-After)' })
  async upload(
    @Auth() caller: AuthContext,
    @OptionalIdempotencyKeyHeader() idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ upload: UploadDto }> {
    const { upload, replayed } = await this.uploads.create({
      caller,
      clientIp: req.ip ?? 'unknown',
      contentType: req.headers['content-type'],
      readBody: (maxBytes) => readRawBody(req, res, maxBytes),
      onRateLimit: (decision) => setRateLimitHeaders(res, decision),
      idempotencyKey,
    });
    if (replayed) res.status(200);
    return { upload: presentUpload(upload) };
  }
}
