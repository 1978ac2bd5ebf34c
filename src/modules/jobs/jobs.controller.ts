import { Controller, Get, HttpCode, Param, Post, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { UuidParamPipe } from '../../core/http/uuid-param.pipe';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import { CancelRateLimitInterceptor } from '../rate-limit/cancel-rate-limit.interceptor';
import { PollRateLimitGuard } from '../rate-limit/poll-rate-limit.guard';
import {
  EnhancementResponseDto,
  JobDetailResponseDto,
  JobListResponseDto,
  ListJobsQueryDto,
  type EnhancementDto,
  type JobResultDto,
  type JobSummaryDto,
} from './job-response.dto';
import { JobPresenter } from './job.presenter';
import { JobsService } from './jobs.service';

const DEFAULT_PAGE_SIZE = 20;

@ApiTags('Jobs')
@ApiBearerAuth('api_key')
@ApiNotFoundResponse({
  type: ErrorResponseDto,
  description: '`not_found`: no such job for this key’s account and environment',
})
@Controller('api/v1')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly presenter: JobPresenter,
  ) {}

  @Get('jobs')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({ summary: 'List your jobs, newest first (counts toward the polling limit).' })
  @ApiOkResponse({ type: JobListResponseDto })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded`' })
  async list(
    @Auth() caller: AuthContext,
    @Query() query: ListJobsQueryDto,
  ): Promise<{ jobs: JobSummaryDto[]; next_cursor: string | null }> {
    const page = await this.jobs.list(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
    return { jobs: page.jobs.map((job) => this.presenter.summary(job)), next_cursor: page.nextCursor };
  }

  @Get('jobs/:jobId')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({ summary: 'A job and all its results: the source of truth (counts toward the polling limit).' })
  @ApiOkResponse({ type: JobDetailResponseDto })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded`' })
  async get(
    @Auth() caller: AuthContext,
    @Param('jobId', UuidParamPipe) jobId: string,
  ): Promise<{ job: JobSummaryDto; results: JobResultDto[] }> {
    const { job, results } = await this.jobs.get(caller, jobId);
    return { job: this.presenter.summary(job), results: await this.presenter.results(results) };
  }

  @Post('jobs/:jobId/cancel')
  @HttpCode(200)
  @UseInterceptors(CancelRateLimitInterceptor)
  @ApiOperation({
    summary:
      'Cancel a queued or processing job: results not started are cancelled and their credits released ' +
      '(counts toward the create limit; a refused cancel gives its slot back).',
  })
  @ApiOkResponse({ type: JobDetailResponseDto })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded`' })
  async cancel(
    @Auth() caller: AuthContext,
    @Param('jobId', UuidParamPipe) jobId: string,
  ): Promise<{ job: JobSummaryDto; results: JobResultDto[] }> {
    const { job, results } = await this.jobs.cancel(caller, jobId);
    return { job: this.presenter.summary(job), results: await this.presenter.results(results) };
  }

  @Get('product-image-enhancements/:enhancementId')
  @UseGuards(PollRateLimitGuard)
  @ApiOperation({ summary: 'The status of a product photo job, item by item (counts toward the polling limit).' })
  @ApiOkResponse({ type: EnhancementResponseDto })
  @ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: '`rate_limit_exceeded`' })
  async enhancement(
    @Auth() caller: AuthContext,
    @Param('enhancementId', UuidParamPipe) enhancementId: string,
  ): Promise<{ enhancement: EnhancementDto }> {
    const { job, results } = await this.jobs.enhancement(caller, enhancementId);
    return { enhancement: await this.presenter.enhancement(job, results) };
  }
}
