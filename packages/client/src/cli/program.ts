import { Command, Option } from 'commander';
import { describeQuote, unitPrice } from './dry-run';
import { backgroundImageUrl } from './background-image';
import type { JobsApi } from './jobs-api';
import { BATCH_SIZE_RANGE, DEFAULT_BASE_URL, hexColour, integerFrom, type GlobalFlags, type RunFlags } from './options';
import { Pacing } from './pacing';
import { groupItems } from './plan';
import { alignFlag, canvasSize, paddingFlag, scaleFlag } from './placement-flags';
import { BarProgress, LineProgress } from './progress';
import { externalIdOf, resultsWrittenBefore, runJobs, type RunOutcome } from './run-jobs';
import { stateScope } from './state-file';
import { addReviewCommand, type ReviewsApi } from './review-command';
import { readSources } from './sources';
import {
  editRequest,
  presetRequest,
  removeBackgroundRequest,
  UsageError,
  type BackdropFlags,
  type EditFlags,
  type PresetFlags,
  type RemoveBackgroundFlags,
  type ToolRequest,
} from './tool-requests';
import type { OutputFormat } from './naming';

/** What the program needs from its surroundings, so tests can run it without a terminal. */
export interface ProgramContext {
  /** A client of the service at `baseUrl`, with `pacing` told of every limited answer. */
  createApi: (baseUrl: string, apiKey: string | undefined, pacing: Pacing) => JobsApi;
  createReviewsApi: (baseUrl: string, apiKey: string | undefined) => ReviewsApi;
  print: (line: string) => void;
  printError: (line: string) => void;
  /** Whether the output is a terminal, where a progress bar is redrawn in place. */
  interactive: boolean;
  sleep: (ms: number) => Promise<void>;
}

const FORMATS: readonly OutputFormat[] = ['png', 'jpg', 'webp', 'avif'];
const SHADOWS = ['none', 'soft', 'natural'] as const;

function addRunOptions(command: Command): Command {
  return command
    .requiredOption('-o, --out <folder>', 'where results are written (created if missing); also holds the run state')
    .option('--dry-run', 'print what the run would cost, from the catalog, and create nothing (no uploads either)')
    .addOption(
      new Option('--batch-size <n>', 'images per job')
        .argParser(integerFrom(BATCH_SIZE_RANGE.min, BATCH_SIZE_RANGE.max))
        .default(BATCH_SIZE_RANGE.max),
    )
    .addOption(
      new Option('--max-active-jobs <n>', "jobs in flight at once; keep within the key's active-job limit")
        .argParser(integerFrom(1, 100))
        .default(1),
    );
}

/** Placement on a canvas: the cut-out's canvas, padding, alignment, scale and whether the shadow counts. */
function addPlacementOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--placement-size <WxH>', 'place the product on a canvas of this size (1200x1200)').argParser(
        canvasSize,
      ),
    )
    .addOption(
      new Option('--padding <lengths>', 'canvas padding: 24, 24px or 5%, or top,right,bottom,left').argParser(
        paddingFlag,
      ),
    )
    .addOption(
      new Option(
        '--align <alignment>',
        'product alignment on the canvas: left, right, top, bottom, center or center,bottom',
      ).argParser(alignFlag),
    )
    .addOption(
      new Option('--scale <scale>', "the product's size on the canvas: fit, fill or 80% of fit").argParser(scaleFlag),
    )
    .option('--shadow-in-box', "count the product's shadow in its box on the canvas");
}

/** `--background image` and `blur`: the photo and its fit, the blur's kind and strength. */
function addBackdropOptions(command: Command): Command {
  return command
    .option('--background-image <file or URL>', 'with --background image: a local photo (uploaded once) or its URL')
    .addOption(
      new Option('--background-fit <fit>', 'with --background image: cover (default) or contain').choices([
        'cover',
        'contain',
      ]),
    )
    .addOption(
      new Option('--blur-mode <mode>', 'with --background blur: gaussian (default) or bokeh').choices([
        'gaussian',
        'bokeh',
      ]),
    )
    .addOption(
      new Option('--blur-strength <1-100>', 'with --background blur (default 50)').argParser(integerFrom(1, 100)),
    );
}

/** The flags with a local `--background-image` uploaded, unless this is a dry run. */
async function withBackgroundImage<F extends BackdropFlags & RunFlags>(flags: F, api: JobsApi): Promise<F> {
  if (!flags.backgroundImage) return flags;
  return { ...flags, backgroundImage: await backgroundImageUrl(flags.backgroundImage, api, flags.dryRun === true) };
}

function addOutputOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'result format (default png)').choices(FORMATS))
    .addOption(new Option('--quality <1-100>', 'jpg, webp and avif encoder quality').argParser(integerFrom(1, 100)))
    .addOption(new Option('--lossless', 'a lossless webp (with --format webp, without --quality)'));
}

/** `--existing-alpha use`: a photo already cut out (a PNG or WebP with transparency) keeps its own alpha. */
const existingAlphaOption = (note: string) =>
  new Option(
    '--existing-alpha <choice>',
    `use: a source already cut out keeps its own alpha as the mask, not segmented again (${note})`,
  ).choices(['ignore', 'use']);

/** `--segmentation-model <name>`: which of the service's models cuts the product out (GET /tools lists them). */
const segmentationModelOption = () =>
  new Option(
    '--segmentation-model <name>',
    "the segmentation model that cuts the product out (GET /tools lists them; default: the service's)",
  );

export function buildProgram(context: ProgramContext): Command {
  const program = new Command('image-jobs')
    .description('Runs the image job service on local photos: uploads them, runs jobs of up to 20, writes results.')
    // Errors of the command line come back to main as exceptions, which decides the exit code.
    .exitOverride()
    .addOption(new Option('--api-key <key>', 'API key (sk_live_… or sk_sandbox_…)').env('IMAGE_JOBS_API_KEY'))
    .addOption(new Option('--base-url <url>', 'the service').env('IMAGE_JOBS_BASE_URL').default(DEFAULT_BASE_URL))
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => context.print(text.trimEnd()),
      writeErr: (text) => context.printError(text.trimEnd()),
    })
    .addHelpText(
      'after',
      '\nRunning a command again with the same files, options and --out resumes it: results already\n' +
        'written are skipped and jobs already paid for are read again, never paid twice.\n' +
        'Exit code: 0 when every result was written, 1 when any failed, 2 for a usage error.',
    );

  addPlacementOptions(
    addBackdropOptions(
      addOutputOptions(
        addRunOptions(
          program
            .command('remove-background')
            .description('Cut the product out of each photo: a transparent, white or coloured background.')
            .argument('<files...>', 'image files, or folders of them'),
        ),
      ),
    ),
  )
    .addOption(
      new Option('--background <type>', 'the new background (default transparent)').choices([
        'transparent',
        'white',
        'color',
        'image',
        'blur',
      ]),
    )
    .option('--background-color <#RRGGBB>', 'the colour of --background color', hexColour)
    .addOption(new Option('--shadow <shadow>', 'a shadow under the product').choices(SHADOWS))
    .option('--crop-to-subject', 'crop each result to the product and its shadow')
    .addOption(new Option('--margin <percent>', 'margin around a cropped product').argParser(integerFrom(0, 40)))
    .addOption(existingAlphaOption('priced as an edit'))
    .addOption(segmentationModelOption())
    .action((files: string[], flags: RemoveBackgroundFlags & RunFlags, command: Command) =>
      execute(context, command, files, flags, async (api) =>
        removeBackgroundRequest(await withBackgroundImage(flags, api)),
      ),
    );

  addPlacementOptions(
    addBackdropOptions(
      addOutputOptions(
        addRunOptions(
          program
            .command('edit')
            .description('Resize, relight, correct colour, upscale, polish or replace the background of each photo.')
            .argument('<files...>', 'image files, or folders of them'),
        ),
      ),
    ),
  )
    .addOption(new Option('--width <px>', 'result width').argParser(integerFrom(1, 8192)))
    .addOption(new Option('--height <px>', 'result height').argParser(integerFrom(1, 8192)))
    .addOption(
      new Option('--fit <fit>', 'with width and height: contain (pad), cover (fill and cut) or crop').choices([
        'contain',
        'cover',
        'crop',
      ]),
    )
    .addOption(
      new Option('--background <type>', 'replace the background').choices([
        'original',
        'transparent',
        'white',
        'color',
        'image',
        'blur',
      ]),
    )
    .option('--background-color <#RRGGBB>', 'the colour of --background color', hexColour)
    .addOption(new Option('--shadow <shadow>', 'a shadow under the product').choices(SHADOWS))
    .option('--light', 'correct the exposure')
    .option('--colour', 'correct the white balance and lift dull colours')
    .option('--upscale', 'enlarge with super-resolution (twice the size, or to --width/--height)')
    .option('--polish', 'denoise and sharpen')
    .addOption(existingAlphaOption('with --background transparent, white, color or image'))
    .addOption(segmentationModelOption())
    .action((files: string[], flags: EditFlags & RunFlags, command: Command) =>
      execute(context, command, files, flags, async (api) => editRequest(await withBackgroundImage(flags, api))),
    );

  addRunOptions(
    program
      .command('preset')
      .description('Run a product photo preset (a marketplace or channel look) on each photo; see `presets`.')
      .argument('<preset>', 'a preset id, as `image-jobs presets` lists them')
      .argument('<files...>', 'image files, or folders of them'),
  )
    .addOption(
      new Option('--quality <1-100>', 'encoder quality, for presets writing jpg or webp').argParser(
        integerFrom(1, 100),
      ),
    )
    .addOption(
      new Option('--preservation <level>', 'how strictly the product is kept').choices([
        'strict',
        'balanced',
        'creative',
      ]),
    )
    .option('--instructions <text>', 'extra instructions for the preset')
    .action((presetId: string, files: string[], flags: PresetFlags & RunFlags, command: Command) =>
      execute(context, command, files, flags, async (api) => {
        const preset = (await api.presets()).find((candidate) => candidate.id === presetId);
        if (!preset) throw new UsageError(`no preset ${presetId}; \`image-jobs presets\` lists them`);
        return presetRequest({ ...preset, format: preset.format as OutputFormat }, flags);
      }),
    );

  program
    .command('presets')
    .description('List the product photo presets (id, operation, size, format).')
    .action(async (_flags: object, command: Command) => {
      const globals = command.optsWithGlobals<GlobalFlags>();
      const api = context.createApi(globals.baseUrl, globals.apiKey, new Pacing());
      for (const preset of await api.presets()) {
        const size = preset.width && preset.height ? `${preset.width}x${preset.height}` : 'source size';
        context.print(
          `${preset.id.padEnd(26)} ${preset.operation.padEnd(22)} ${size.padEnd(12)} ${preset.format}  ${preset.name}`,
        );
      }
    });

  addReviewCommand(program, context);

  return program;
}

async function execute(
  context: ProgramContext,
  command: Command,
  files: string[],
  flags: RunFlags,
  requestOf: (api: JobsApi) => Promise<ToolRequest>,
): Promise<void> {
  const globals = command.optsWithGlobals<GlobalFlags & RunFlags>();
  const pacing = new Pacing();
  const api = context.createApi(globals.baseUrl, globals.apiKey, pacing);
  const request = await requestOf(api);
  const { sources, problems } = await readSources(files);
  if (flags.dryRun) {
    const price = unitPrice(request.price, request.price.kind === 'tool' ? await api.catalog() : []);
    const written = globals.apiKey
      ? await resultsWrittenBefore(request, sources, flags.out, stateScope(globals.baseUrl, globals.apiKey))
      : new Set<string>();
    const waiting = sources.filter((source) => !written.has(source.path));
    const items = waiting.map((source) => ({ contentHash: source.contentHash, externalId: externalIdOf(source.stem) }));
    const quote = {
      command: request.command,
      images: sources.length,
      alreadyWritten: written.size,
      jobs: groupItems(items, flags.batchSize).length,
      price,
      sandbox: globals.apiKey?.startsWith('sk_sandbox_') ?? false,
    };
    for (const line of describeQuote(quote)) context.print(line);
    for (const problem of problems) context.print(`not sent: ${problem.path}: ${problem.reason}`);
    return;
  }
  if (!globals.apiKey) throw new UsageError('an API key is needed: --api-key or IMAGE_JOBS_API_KEY');
  const progress = context.interactive ? new BarProgress() : new LineProgress(context.print);
  const outcome = await runJobs(
    {
      request,
      sources,
      problems,
      outDir: flags.out,
      batchSize: flags.batchSize,
      maxActiveJobs: flags.maxActiveJobs,
      baseUrl: globals.baseUrl,
      apiKey: globals.apiKey,
    },
    { api, progress, pacing, sleep: context.sleep },
  );
  for (const line of summarise(outcome, flags.out)) context.print(line);
  if (outcome.failed.length > 0 || outcome.halted) process.exitCode = 1;
}

export function summarise(outcome: RunOutcome, outDir: string): string[] {
  const lines = [
    `summary: ${outcome.written.length} written, ${outcome.failed.length} failed` +
      (outcome.skipped > 0 ? `, ${outcome.skipped} skipped (written by an earlier run)` : '') +
      ` of ${outcome.total}; credits used: ${outcome.creditsUsed}`,
    `results in ${outDir}`,
  ];
  if (outcome.halted) lines.push(`stopped creating jobs: ${outcome.halted}`);
  if (outcome.failed.length > 0) {
    lines.push('failed:');
    for (const failure of outcome.failed) lines.push(`  ${failure.name}: ${failure.reason}`);
  }
  return lines;
}
