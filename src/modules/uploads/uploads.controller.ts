import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
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
      '(LIMIT_UPLOADS_PER_HOUR_KEY, 100 per hour by default), refused uploads too.\n\n' +
      '```\ncurl -s https://api.example.com/api/v1/uploads -H "Authorization: Bearer $KEY" \\\n' +
      '  -H "Content-Type: image/jpeg" --data-binary @shoe.jpg\n```',
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
  @ApiBadRequestResponse({
    type: ErrorResponseDto,
    description: '`invalid_request`: an empty body, a body that is not an image, or not the declared type',
  })
  @ApiPayloadTooLargeResponse({
    type: ErrorResponseDto,
    description: '`payload_too_large`: more than SOURCE_MAX_BYTES, or more than SOURCE_MAX_MEGAPIXELS',
  })
  @ApiUnsupportedMediaTypeResponse({
    type: ErrorResponseDto,
    description: '`unsupported_media_type`: Content-Type is not an accepted image type, or the body is compressed',
  })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded` (with Retry-After)' })
  async upload(
    @Auth() caller: AuthContext,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ upload: UploadDto }> {
    const upload = await this.uploads.create({
      caller,
      clientIp: req.ip ?? 'unknown',
      contentType: req.headers['content-type'],
      readBody: (maxBytes) => readRawBody(req, res, maxBytes),
      onRateLimit: (decision) => setRateLimitHeaders(res, decision),
    });
    return { upload: presentUpload(upload) };
  }
}
