import { ApiProperty } from '@nestjs/swagger';
import { UPLOAD_MEDIA_TYPE_LIST } from './upload-media-type';

export class UploadDto {
  @ApiProperty({ example: 'upl_4fQ9zK2mX7bN1cV8dR5tY3wA', pattern: '^upl_[A-Za-z0-9]{24}$' })
  id!: string;

  @ApiProperty({
    example: 'upload://upl_4fQ9zK2mX7bN1cV8dR5tY3wA',
    description:
      'Give this wherever a create endpoint takes a source image URL (`input[].image_url`, ' +
      '`images[].source_url`). Only keys of the same account can use it, until `expires_at`.',
  })
  image_url!: string;

  @ApiProperty({ enum: UPLOAD_MEDIA_TYPE_LIST, example: 'image/jpeg', description: 'What the bytes are.' })
  content_type!: string;

  @ApiProperty({ example: 'jpeg', description: 'The format read from the image header (`jpeg`, `png`, `avif`, ...).' })
  format!: string;

  @ApiProperty({ type: 'integer', minimum: 1, example: 1200, description: 'Pixels, EXIF orientation applied.' })
  width!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 800, description: 'Pixels, EXIF orientation applied.' })
  height!: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 123456 })
  size_bytes!: number;

  @ApiProperty({ format: 'date-time', example: '2026-07-01T09:30:00.000Z' })
  created_at!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2026-07-02T09:30:00.000Z',
    description:
      'After this the upload cannot be used (a result made from it fails `source_fetch_failed`) and is deleted.',
  })
  expires_at!: string;
}

export class UploadResponseDto {
  @ApiProperty({ type: UploadDto }) upload!: UploadDto;
  @ApiProperty() request_id!: string;
}
