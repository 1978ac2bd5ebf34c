import { pipeline } from 'node:stream/promises';
import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Access, AccessLevel } from '../http/access.decorator';
import { ErrorResponseDto } from '../openapi/error-response.dto';
import { ResultFilesService } from './result-files.service';
import { FILES_PATH } from './result-url.signer';

/** A repeated or absent query parameter becomes "", which never verifies. */
const singleValue = (value: unknown): string => (typeof value === 'string' ? value : '');

@ApiTags('Files')
@Access(AccessLevel.Public)
@Controller(FILES_PATH)
export class FilesController {
  constructor(private readonly files: ResultFilesService) {}

  /**
   * Express 5's `*key` matches one or more path segments and hands them over decoded, as an
   * array. The response is written directly (`@Res()`), so the file streams from the storage
   * driver as it is.
   */
  @Get('*key')
  @ApiOperation({
    summary: 'Download a result image or thumbnail (public; the signed URL is the credential).',
    description:
      'The `result_url` and `thumbnail_url` of a result point here. The URL is signed and expires ' +
      '(7 days by default); use it as given. Cacheable privately until it expires.',
  })
  @ApiParam({
    name: 'key',
    description: 'The file key, which contains "/" (e.g. `results/<jobId>/<resultId>.png`).',
    example: 'results/0b6f3c1e-0e0c-4a3e-9f1a-2c3d4e5f6a7b/5a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d.png',
  })
  @ApiQuery({ name: 'expires', description: 'Unix time (seconds) when the URL stops working.', example: '1767225600' })
  @ApiQuery({ name: 'signature', description: 'base64url HMAC-SHA256 of `<key>:<expires>`.' })
  @ApiProduces('image/png', 'image/jpeg', 'image/webp', 'image/avif')
  @ApiOkResponse({
    description: 'The image bytes.',
    schema: { type: 'string', format: 'binary' },
    headers: {
      'Cache-Control': {
        description: '`private, max-age=<seconds until the URL expires>`',
        schema: { type: 'string' },
      },
    },
  })
  @ApiNotFoundResponse({
    type: ErrorResponseDto,
    description: '`not_found`: the signature is missing, wrong or expired, or the file no longer exists',
  })
  async download(
    @Param('key') key: string[] | string,
    @Query('expires') expires: unknown,
    @Query('signature') signature: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.files.openSigned(
      Array.isArray(key) ? key.join('/') : key,
      singleValue(expires),
      singleValue(signature),
    );
    res.status(200);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Cache-Control', `private, max-age=${file.maxAgeSeconds}`);
    // Served from the API's origin: browsers must not sniff an image into something runnable.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await pipeline(file.stream, res);
  }
}
