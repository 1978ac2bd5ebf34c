/**
 * The API's shapes, as the console reads them: every one is a type generated from the service's OpenAPI document
 * (packages/client/src/generated/openapi.ts, `npm run client:generate`), the same the client package uses, so a field
 * renamed in the API fails the console's type check instead of its pages at run time. Imports of the client are
 * type-only, so the compiled console imports nothing from it, and go through the workspace package's name: TypeScript
 * neither emits nor places under the console's rootDir what it finds that way, as it would a relative path. Beside
 * them only what the console adds: the lists its filters offer, checked against the API's unions.
 */
import type { JobStatus, Schemas, ToolId, ReviewState } from '@image-jobs/client/src/types';

export type {
  AccountInfo,
  CreatedJob,
  CreatedProductPhotoJob,
  JobDetail,
  JobList,
  JobResult,
  Ledger,
  LedgerEntry,
  ProductPhotoPresets,
  Redelivery,
  RemoveBackgroundRequest,
  ReviewItem,
  ReviewItemResponse,
  ReviewList,
  ReviewDecisionRequest,
  ReviewState,
  ReviewSummary,
  ToolCatalog,
  ToolCatalogEntry,
  WebhookDelivery,
  WebhookDeliveryList,
} from '@image-jobs/client/src/types';

/** A job as lists and details show it (`job` in every job response). */
export type JobSummary = Schemas['JobSummaryDto'];
export type SubjectHints = Schemas['SubjectHintsDto'];
export type SubjectRegion = NonNullable<SubjectHints['region']>;
export type SubjectPoint = Schemas['SubjectPointDto'];
/** `GET /account/usage`, and the usage it carries. */
export type UsageResponse = Schemas['UsageResponseDto'];
export type Usage = Schemas['UsageDto'];
/** `POST /uploads`. */
export type UploadResponse = Schemas['UploadResponseDto'];

/** The operators' pages read the admin API (/admin/v1), which the client package leaves out. */
export type Account = Schemas['AccountDto'];
export type AccountResponse = Schemas['AccountResponseDto'];
export type AccountList = Schemas['AccountListResponseDto'];
export type AccountListItem = Schemas['AccountListItemDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyResponseDto'];
export type OperatorLedger = Schemas['LedgerResponseDto'];
export type Overview = Schemas['OverviewDto'];
export type OverviewResponse = Schemas['OverviewResponseDto'];
export type CreateAccountRequest = Schemas['CreateAccountDto'];
export type UpdateAccountRequest = Schemas['UpdateAccountDto'];
export type CreditChangeRequest = Schemas['CreditChangeDto'];

/**
 * Every member of one of the API's unions, each once, in the order a filter offers them: a member the API adds, renames
 * or drops fails the type check here until the list follows.
 */
const everyOf =
  <Member extends string>() =>
  <const List extends readonly Member[]>(
    list: List & (Exclude<Member, List[number]> extends never ? unknown : { missing: Exclude<Member, List[number]> }),
  ): List =>
    list;

export const JOB_STATUSES = everyOf<JobStatus>()([
  'queued',
  'processing',
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
]);
export const TOOL_IDS = everyOf<ToolId>()([
  'remove_background',
  'image_editing',
  'image_ai_edit',
  'ai_background',
  'image_generation',
  'ad_creative',
]);
export const REVIEW_STATES = everyOf<ReviewState>()(['pending', 'accepted', 'rejected', 'recut']);
