import { uploadUrlOf } from '../../core/uploads/upload-url';
import type { UploadDto } from './upload.dto';
import type { Upload } from './upload.entity';
import { formatOf } from './upload-media-type';

/** An upload as the API answers it. */
export function presentUpload(upload: Upload): UploadDto {
  return {
    id: upload.id,
    image_url: uploadUrlOf(upload.id),
    content_type: upload.contentType,
    format: formatOf(upload.contentType),
    width: upload.width,
    height: upload.height,
    size_bytes: upload.sizeBytes,
    created_at: upload.createdAt.toISOString(),
    expires_at: upload.expiresAt.toISOString(),
  };
}
