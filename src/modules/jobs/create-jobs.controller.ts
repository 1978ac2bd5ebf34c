import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiPaymentRequiredResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { hashRequestBody } from '../idempotency/idempotency.service';
import { IdempotencyKeyHeader } from '../idempotency/idempotency-key.decorator';
import { setRateLimitHeaders } from '../rate-limit/rate-limit.headers';
import { AdCreateRequestDto } from './dto/ad-create.dto';
import { ImageAiEditRequestDto } from './dto/image-ai-edit.dto';
import { ImageEditRequestDto } from './dto/image-edit.dto';
import { ImageGenerateRequestDto } from './dto/image-generate.dto';
import {
  adCreateJob,
  imageAiEditJob,
  imageEditJob,
  imageGenerateJob,
  productPhotoJob,
  removeBackgroundJob,
  sceneCreateJob,
  type JobRequest,
} from './dto/job-request';
import { ProductPhotoJobRequestDto } from './dto/product-photo-job.dto';
import { RemoveBackgroundRequestDto } from './dto/remove-background.dto';
import { SceneCreateRequestDto } from './dto/scene-create.dto';
import { JobCreationService, type CreatedJob } from './job-creation.service';
import {
  CreateJobResponseDto,
  CreateProductPhotoJobResponseDto,
  type JobSummaryDto,
  type ProductPhotoJobSummaryDto,
} from './job-response.dto';
import { JobKind } from './job-status';
import { JobPresenter } from './job.presenter';
import { SegmentationModelChoice } from './segmentation-model-choice';

/** The error answers every create endpoint documents (spec 4.2 and contract section 2). */
function CreateEndpoint(
  summary: string,
  created: typeof CreateJobResponseDto | typeof CreateProductPhotoJobResponseDto,
) {
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
    for (const decorate of [
      ApiOperation({ summary }),
      ApiHeader({ name: 'Idempotency-Key', required: true, description: '8 to 160 of A-Z a-z 0-9 . _ : -' }),
      ApiHeader({ name: 'X-Request-Id', required: false, description: 'Your correlation id (max 160).' }),
      ApiAcceptedResponse({ type: created, description: 'Job accepted and queued.' }),
      ApiOkResponse({ type: created, description: 'The existing job, for a repeated idempotent request.' }),
      ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`' }),
      ApiUnauthorizedResponse({ type: ErrorResponseDto, description: '`unauthorized`' }),
      ApiPaymentRequiredResponse({ type: ErrorResponseDto, description: '`insufficient_credits`' }),
      ApiForbiddenResponse({ type: ErrorResponseDto, description: '`api_access_disabled`, `account_restricted`' }),
      ApiConflictResponse({ type: ErrorResponseDto, description: '`idempotency_conflict`' }),
      ApiTooManyRequestsResponse({
        type: ErrorResponseDto,
        description: '`rate_limit_exceeded`, `too_many_active_jobs`, `too_many_pending_results` (with Retry-After)',
      }),
      ApiServiceUnavailableResponse({
        type: ErrorResponseDto,
        description: '`capacity_unavailable` (with Retry-After), `tool_unavailable`, `service_unavailable`',
      }),
    ]) {
      decorate(target, key, descriptor);
    }
  };
}

@ApiTags('Jobs')
@ApiBearerAuth('api_key')
@Controller('api/v1')
export class CreateJobsController {
  /** The largest image an upscale may make: the most a worker holds at once. */
  private readonly maxUpscaledPixels: number;

  constructor(
    private readonly creation: JobCreationService,
    private readonly presenter: JobPresenter,
    private readonly modelChoice: SegmentationModelChoice,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'SOURCE_MAX_MEGAPIXELS'>,
  ) {
    this.maxUpscaledPixels = config.SOURCE_MAX_MEGAPIXELS * 1_000_000;
  }

  @Post('remove-background')
  @HttpCode(202)
  @CreateEndpoint('Remove the background of 1 to 20 images.', CreateJobResponseDto)
  removeBackground(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: RemoveBackgroundRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    return this.createStandard(caller, key, removeBackgroundJob(body, this.maxUpscaledPixels), req, res);
  }

  @Post('image/edit')
  @HttpCode(202)
  @CreateEndpoint(
    'Structured edits: resize, crop, relight, upscale, polish, background and shadow.',
    CreateJobResponseDto,
  )
  imageEdit(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: ImageEditRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    return this.createStandard(caller, key, imageEditJob(body, this.maxUpscaledPixels), req, res);
  }

  @Post('image/ai-edit')
  @HttpCode(202)
  @CreateEndpoint('Edit images from natural-language instructions.', CreateJobResponseDto)
  imageAiEdit(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: ImageAiEditRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    return this.createStandard(caller, key, imageAiEditJob(body), req, res);
  }

  @Post('scene/create')
  @HttpCode(202)
  @CreateEndpoint('Place products in a generated scene (AI background).', CreateJobResponseDto)
  sceneCreate(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: SceneCreateRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    return this.createStandard(caller, key, sceneCreateJob(body), req, res);
  }

  @Post('image/generate')
  @HttpCode(202)
  @CreateEndpoint('Generate images from a prompt, optionally guided by up to 4 reference images.', CreateJobResponseDto)
  imageGenerate(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: ImageGenerateRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    return this.createStandard(caller, key, imageGenerateJob(body), req, res);
  }

  @Post('ad/create')
  @HttpCode(202)
  @CreateEndpoint('Create ad visuals for an advertising platform.', CreateJobResponseDto)
  adCreate(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: AdCreateRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    return this.createStandard(caller, key, adCreateJob(body), req, res);
  }

  @Post('product-photo-jobs')
  @HttpCode(202)
  @CreateEndpoint('Enhance product photos with an operation or a channel preset.', CreateProductPhotoJobResponseDto)
  async productPhotoJob(
    @Auth() caller: AuthContext,
    @IdempotencyKeyHeader() key: string,
    @Body() body: ProductPhotoJobRequestDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<{ job: ProductPhotoJobSummaryDto; remaining_paid_credits: number }> {
    const created = await this.create(caller, key, JobKind.ProductPhoto, productPhotoJob(body), req, res);
    return {
      job: this.presenter.productPhotoSummary(created.job),
      remaining_paid_credits: created.remainingPaidCredits,
    };
  }

  private async createStandard(
    caller: AuthContext,
    key: string,
    request: JobRequest,
    req: Request,
    res: Response,
  ): Promise<{ job: JobSummaryDto; remaining_paid_credits: number }> {
    const created = await this.create(caller, key, JobKind.Standard, request, req, res);
    return { job: this.presenter.summary(created.job), remaining_paid_credits: created.remainingPaidCredits };
  }

  private async create(
    caller: AuthContext,
    idempotencyKey: string,
    kind: JobKind,
    request: JobRequest,
    req: Request,
    res: Response,
  ): Promise<CreatedJob> {
    const created = await this.creation.create({
      caller,
      endpoint: `${req.method} ${(req.route as { path?: string } | undefined)?.path ?? req.path}`,
      kind,
      request: await this.modelChoice.applied(request),
      idempotencyKey,
      requestHash: hashRequestBody(req.body),
      clientIp: req.ip ?? 'unknown',
      onRateLimit: (decision) => setRateLimitHeaders(res, decision),
    });
    if (created.replayed) res.status(200);
    return created;
  }
}
