import type { paths } from './generated/openapi';
import type { JsonResponse } from './types';

/** The answer of `POST /api/v1/uploads`. */
export type UploadResponse = JsonResponse<paths['/api/v1/uploads']['post'], 201>;

/** An uploaded source image. */
export type Upload = UploadResponse['upload'];
