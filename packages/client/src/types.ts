import type { components, paths } from './generated/openapi';

/** Every schema of the OpenAPI document, by its component name. */
export type Schemas = components['schemas'];

/** The public API's paths (the operator routes under /admin/v1 are not this client's). */
export type ApiPath = Extract<keyof paths, `/api/v1/${string}`>;

/** The JSON body of the 2xx answer `status` of an operation. */
export type JsonResponse<Operation, Status extends number> = Operation extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

/** The JSON request body of an operation. */
export type JsonRequest<Operation> = Operation extends { requestBody: { content: { 'application/json': infer Body } } }
  ? Body
  : never;

/** The query parameters of an operation. */
export type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

/**
 * The create endpoints, named by their path under /api/v1 (`'remove-background'`, `'image/edit'`, ...): every POST of
 * the document that requires an `Idempotency-Key` header. A create endpoint added to the service joins this union when
 * the types are regenerated.
 */
export type CreateEndpoint = {
  [P in ApiPath]: paths[P] extends { post: { parameters: { header: { 'Idempotency-Key': string } } } }
    ? P extends `/api/v1/${infer Endpoint}`
      ? Endpoint
      : never
    : never;
}[ApiPath];

type CreateOperation<E extends CreateEndpoint> = paths[`/api/v1/${E}`]['post'];

/** The JSON body a create endpoint takes. */
export type CreateRequest<E extends CreateEndpoint> = JsonRequest<CreateOperation<E>>;

/** What a create endpoint answers (202 for a new job, 200 for a repeated idempotent request: the same shape). */
export type CreateResponse<E extends CreateEndpoint> = JsonResponse<CreateOperation<E>, 202>;

export type ToolId = Schemas['ToolId'];
export type JobStatus = Schemas['JobStatus'];
export type ResultStatus = Schemas['ResultStatus'];
export type ErrorCode = Schemas['ErrorCode'];
export type ResultErrorCode = Schemas['ResultErrorCode'];

/** A job summary (`job` in every job response). */
export type Job = Schemas['JobSummaryDto'];
/** One result of a job, as `GET /jobs/{jobId}` lists them. */
export type JobResult = Schemas['JobResultDto'];
/** Which model (and its weights' version) and which mask post-processing made a cut-out. */
export type Segmentation = Schemas['SegmentationDto'];
/** `GET /jobs/{jobId}`: the job and every result. */
export type JobDetail = Schemas['JobDetailResponseDto'];
/** `GET /jobs`: a page of jobs, newest first. */
export type JobList = Schemas['JobListResponseDto'];
export type ListJobsQuery = QueryOf<paths['/api/v1/jobs']['get']>;
/** What the six tool endpoints answer. */
export type CreatedJob = Schemas['CreateJobResponseDto'];
/** What `POST /product-photo-jobs` answers. */
export type CreatedProductPhotoJob = Schemas['CreateProductPhotoJobResponseDto'];
export type Enhancement = Schemas['EnhancementResponseDto'];
export type ToolCatalog = Schemas['ToolCatalogResponseDto'];
export type ToolCatalogEntry = Schemas['ToolCatalogEntryDto'];
export type ProductPhotoPresets = Schemas['ProductPhotoPresetsResponseDto'];
export type ProductPhotoPresetsQuery = QueryOf<paths['/api/v1/product-photo-presets']['get']>;
export type AccountInfo = Schemas['CallerResponseDto'];
/** One movement of the account's credits, with the balance it left. */
export type LedgerEntry = Schemas['AccountLedgerEntryDto'];
export type Ledger = Schemas['AccountLedgerResponseDto'];
export type LedgerQuery = QueryOf<paths['/api/v1/account/ledger']['get']>;
export type Usage = Schemas['UsageResponseDto'];
export type UsageQuery = QueryOf<paths['/api/v1/account/usage']['get']>;
/** A delivery of a webhook event, with every attempt. */
export type WebhookDelivery = Schemas['DeliveryDto'];
export type WebhookDeliveryList = Schemas['WebhookDeliveryListResponseDto'];
export type WebhookDeliveriesQuery = QueryOf<paths['/api/v1/webhook-deliveries']['get']>;
export type Redelivery = Schemas['RedeliveryResponseDto'];
export type ErrorResponse = Schemas['ErrorResponseDto'];
/** A completed cut-out's review (`review` on results and review items). */
export type ResultReview = Schemas['ResultReviewDto'];
export type ReviewState = ResultReview['state'];
/** A flagged cut-out as `GET /reviews` lists it. */
export type ReviewItem = Schemas['ReviewItemDto'];
export type ReviewList = Schemas['ReviewListResponseDto'];
export type ReviewListQuery = QueryOf<paths['/api/v1/reviews']['get']>;
export type ReviewSummary = Schemas['ReviewSummaryResponseDto'];
export type ReviewDecisionRequest = JsonRequest<paths['/api/v1/reviews/{resultId}/decision']['post']>;
export type ReviewItemResponse = Schemas['ReviewItemResponseDto'];
export type AccountSettings = JsonRequest<paths['/api/v1/account']['patch']>;

export type RemoveBackgroundRequest = CreateRequest<'remove-background'>;
export type ImageEditRequest = CreateRequest<'image/edit'>;
export type ImageAiEditRequest = CreateRequest<'image/ai-edit'>;
export type SceneCreateRequest = CreateRequest<'scene/create'>;
export type ImageGenerateRequest = CreateRequest<'image/generate'>;
export type AdCreateRequest = CreateRequest<'ad/create'>;
export type ProductPhotoJobRequest = CreateRequest<'product-photo-jobs'>;

/** The statuses a job never leaves. */
export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'partially_completed', 'failed', 'cancelled'];

export function isTerminalJobStatus(status: JobStatus): boolean {
  return TERMINAL_JOB_STATUSES.includes(status);
}
