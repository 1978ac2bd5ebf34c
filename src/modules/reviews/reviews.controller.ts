import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { UuidParamPipe } from '../../core/http/uuid-param.pipe';
import { ErrorResponseDto } from '../../core/openapi/error-response.dto';
import { Auth, type AuthContext } from '../auth/auth-context';
import {
  ListReviewsQueryDto,
  ReviewDecisionDto,
  ReviewItemResponseDto,
  ReviewListResponseDto,
  ReviewSummaryResponseDto,
  type ReviewItemDto,
} from './review.dto';
import { ReviewPresenter } from './review.presenter';
import { ReviewsService } from './reviews.service';

const DEFAULT_PAGE_SIZE = 20;

@ApiTags('Reviews')
@ApiBearerAuth('api_key')
@ApiBadRequestResponse({ type: ErrorResponseDto, description: '`invalid_request`: a bad filter, cursor or body' })
@Controller('api/v1/reviews')
export class ReviewsController {
  constructor(
    private readonly reviews: ReviewsService,
    private readonly presenter: ReviewPresenter,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      "The account's flagged cut-outs (this key's environment), newest completed first; by default those still " +
      '`pending`.',
  })
  @ApiOkResponse({ type: ReviewListResponseDto })
  async list(
    @Auth() caller: AuthContext,
    @Query() query: ListReviewsQueryDto,
  ): Promise<{ results: ReviewItemDto[]; next_cursor: string | null }> {
    const page = await this.reviews.list(caller, {
      state: query.state,
      tool: query.tool,
      completedFrom: query.completed_from,
      completedTo: query.completed_to,
      minUncertainty: query.min_uncertainty,
      maxUncertainty: query.max_uncertainty,
      limit: query.limit ?? DEFAULT_PAGE_SIZE,
      cursor: query.cursor,
    });
    return { results: await this.presenter.items(page.results), next_cursor: page.nextCursor };
  }

  @Get('summary')
  @ApiOperation({ summary: 'How many flagged cut-outs are pending, and the review threshold.' })
  @ApiOkResponse({ type: ReviewSummaryResponseDto })
  async summary(@Auth() caller: AuthContext): Promise<{ pending: number; review_threshold: number }> {
    const { pending, reviewThreshold } = await this.reviews.summary(caller);
    return { pending, review_threshold: reviewThreshold };
  }

  @Get(':resultId')
  @ApiOperation({
    summary:
      'One completed cut-out with its review, flagged or not (follow `replaces_result_id` and ' +
      '`replaced_by_result_id` with it).',
  })
  @ApiOkResponse({ type: ReviewItemResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: '`not_found`: no such result for this key' })
  @ApiConflictResponse({ type: ErrorResponseDto, description: '`not_reviewable`: not a completed cut-out (yet)' })
  async read(
    @Auth() caller: AuthContext,
    @Param('resultId', UuidParamPipe) resultId: string,
  ): Promise<{ result: ReviewItemDto }> {
    return { result: await this.presenter.item(await this.reviews.get(caller, resultId)) };
  }

  @Post(':resultId/decision')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Accept or reject a completed cut-out (flagged or not). The same decision and note again changes nothing; ' +
      'another decision replaces the earlier one. Sends `image_api.result.reviewed` to the job’s webhook_url.',
  })
  @ApiOkResponse({ type: ReviewItemResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: '`not_found`: no such result for this key' })
  @ApiConflictResponse({
    type: ErrorResponseDto,
    description:
      '`not_reviewable`: not a completed cut-out; `already_recut`: the result was re-cut (by a re-cut not failed)',
  })
  async decide(
    @Auth() caller: AuthContext,
    @Param('resultId', UuidParamPipe) resultId: string,
    @Body() body: ReviewDecisionDto,
  ): Promise<{ result: ReviewItemDto }> {
    const row = await this.reviews.decide(caller, resultId, { decision: body.decision, note: body.note ?? null });
    return { result: await this.presenter.item(row) };
  }
}
