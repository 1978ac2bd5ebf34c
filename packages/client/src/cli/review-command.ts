import { Command, InvalidArgumentError, Option } from 'commander';
import { ImageJobsClient } from '../index';
import type { ReviewItem, ReviewListQuery, ReviewState } from '../types';
import { translated } from './client-api';
import { integerFrom, type GlobalFlags } from './options';
import { UsageError } from './tool-requests';

const LIST_STATES: ReadonlyArray<ReviewState | 'all'> = ['pending', 'accepted', 'rejected', 'recut', 'all'];
/** The most results one `GET /reviews` page holds; a longer `--limit` reads several pages. */
const PAGE_SIZE = 100;

/** What `review` needs of the service: the narrow face of `ImageJobsClient` it runs on. */
export interface ReviewsApi {
  listReviews(query: ReviewListQuery): Promise<{ results: ReviewItem[]; nextCursor: string | null }>;
  decide(resultId: string, decision: 'accepted' | 'rejected', note: string | undefined): Promise<ReviewItem>;
}

export function clientReviewsApi(baseUrl: string, apiKey: string | undefined): ReviewsApi {
  const client = new ImageJobsClient({ apiKey, baseUrl, userAgent: 'image-jobs-cli' });
  return {
    listReviews: (query) =>
      translated(async () => {
        const page = await client.listReviews(query);
        return { results: page.results, nextCursor: page.next_cursor ?? null };
      }),
    decide: (resultId, decision, note) =>
      translated(async () => (await client.decideReview(resultId, { decision, note })).result),
  };
}

/** `--since`: a day (YYYY-MM-DD, from its start in UTC) or a date-time with its zone. */
export function sinceFlag(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    return `${value}T00:00:00Z`;
  }
  if (/T.*(Z|[+-]\d{2}:?\d{2})$/.test(value) && !Number.isNaN(Date.parse(value))) return value;
  throw new InvalidArgumentError('a day (2026-11-28) or a date-time with its zone (2026-11-28T09:00:00Z)');
}

/** One line a result: what a person needs to find it and decide it. */
export function reviewLine(item: ReviewItem): string {
  return [
    item.result_id,
    item.review.state.padEnd(8),
    item.uncertainty.toFixed(3),
    item.tool.padEnd(17),
    item.completed_at,
    item.external_id ?? '-',
  ].join('  ');
}

interface ListFlags {
  state?: ReviewState | 'all';
  tool?: ReviewListQuery['tool'];
  since?: string;
  limit: number;
}

/** `image-jobs review list|accept|reject`: the account's flagged cut-outs, and a person's decisions on them. */
export function addReviewCommand(
  program: Command,
  context: {
    createReviewsApi: (baseUrl: string, apiKey: string | undefined) => ReviewsApi;
    print: (line: string) => void;
  },
): void {
  const apiOf = (command: Command): ReviewsApi => {
    const globals = command.optsWithGlobals<GlobalFlags>();
    if (!globals.apiKey) throw new UsageError('an API key is needed: --api-key or IMAGE_JOBS_API_KEY');
    return context.createReviewsApi(globals.baseUrl, globals.apiKey);
  };
  const review = program
    .command('review')
    .description("Review flagged cut-outs: list them, accept or reject them (the key's environment).");

  review
    .command('list')
    .description(
      'List flagged cut-outs, newest completed first: result id, state, uncertainty, tool, time, external id.',
    )
    .addOption(
      new Option('--state <state>', 'pending (default), accepted, rejected, recut or all').choices(LIST_STATES),
    )
    .option('--tool <tool>', "the results' tool, e.g. remove_background")
    .addOption(
      new Option('--since <time>', 'completed at or after: a day (UTC) or a date-time with its zone').argParser(
        sinceFlag,
      ),
    )
    .addOption(new Option('--limit <n>', 'how many to list').argParser(integerFrom(1, 10_000)).default(20))
    .action(async (flags: ListFlags, command: Command) => {
      const api = apiOf(command);
      let cursor: string | undefined;
      let listed = 0;
      do {
        const page = await api.listReviews({
          state: flags.state,
          tool: flags.tool,
          completed_from: flags.since,
          limit: Math.min(PAGE_SIZE, flags.limit - listed),
          cursor,
        });
        for (const item of page.results) context.print(reviewLine(item));
        listed += page.results.length;
        cursor = page.nextCursor ?? undefined;
      } while (cursor && listed < flags.limit);
      if (listed === 0) context.print('no flagged cut-outs match');
    });

  for (const [name, decision] of [
    ['accept', 'accepted'],
    ['reject', 'rejected'],
  ] as const) {
    review
      .command(name)
      .description(`Mark a completed cut-out ${decision} (again with the same note changes nothing).`)
      .argument('<result-id>', 'the result, as `review list` shows it')
      .option('--note <text>', 'why (at most 1000 characters)')
      .action(async (resultId: string, flags: { note?: string }, command: Command) => {
        const item = await apiOf(command).decide(resultId, decision, flags.note);
        context.print(
          `${item.result_id} ${item.review.state} by ${item.review.decided_by} at ${item.review.decided_at}`,
        );
      });
  }
}
