import type { paths } from './generated/openapi';
import type { JsonResponse } from './types';

/**
 * HAND-WRITTEN, TEMPORARY: the answer of `POST /api/v1/uploads` as agreed while that endpoint is built on another
 * branch. Once the endpoint is in the OpenAPI document and the types are regenerated (`npm run client:generate`),
 * `UploadResponse` below switches to the generated type by itself; then delete this interface and the conditional.
 */
export interface HandWrittenUploadResponse {
  upload: {
    /** `upl_…` */
    id: string;
    /** `upload://upl_…`: accepted by every create endpoint wherever a source image URL goes. */
    image_url: string;
    content_type: string;
    format: string;
    width: number;
    height: number;
    size_bytes: number;
    created_at: string;
    expires_at: string;
  };
  request_id: string;
}

/** The generated answer of `POST /api/v1/uploads` when the document has it, else the hand-written one. */
export type UploadResponse = paths extends { '/api/v1/uploads': { post: infer Operation } }
  ? JsonResponse<Operation, 201>
  : HandWrittenUploadResponse;

/** An uploaded source image. */
export type Upload = UploadResponse['upload'];
