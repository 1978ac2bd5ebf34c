import { resizeOnly } from '../../../../test/support/edit-requests';
import { NearestUpscaler } from '../../../../test/support/nearest-upscaler';
import type { SourceImage } from '../../../core/image/source-image';
import { NO_HINTS } from '../../../engine/mask/subject-hints';
import { ToolId } from '../../catalog/tools';
import { ResultFailure } from '../result-failure';
import type { TaskOf } from '../shared/result-frame';
import type { SourceLoader } from '../shared/source-loader';
import { ImageEditingRunner } from './image-editing.runner';

const source = (width: number, height: number): SourceImage => ({
  bytes: Buffer.alloc(0),
  width,
  height,
  format: 'png',
  hasAlpha: false,
  unusedProfile: null,
  xmpLeftOut: null,
});

const edit = resizeOnly;

describe('ImageEditingRunner.pixels', () => {
  // The source loader is not used by pixels().
  const runner = new ImageEditingRunner(null, new NearestUpscaler(), { SOURCE_MAX_MEGAPIXELS: 50 }, {} as SourceLoader);

  it("counts the source, the model's output and the planned image together when the model enlarges", () => {
    // 1000 x 1000 doubled by the x2 model: 1 + 4 (model) + 4 (planned) megapixels.
    expect(runner.pixels(source(1000, 1000), edit({ upscale: true }))).toBe(9_000_000);
    // To 3000 wide, the x4 model: 1 + 16 + 9.
    expect(runner.pixels(source(1000, 1000), edit({ width: 3000, upscale: true }))).toBe(26_000_000);
  });

  it('counts the larger of the source and the planned image otherwise', () => {
    expect(runner.pixels(source(1000, 1000), edit({ width: 3000, upscale: false }))).toBe(9_000_000);
    expect(runner.pixels(source(1000, 1000), edit({ width: 500, upscale: true }))).toBe(1_000_000);
  });
});

describe('ImageEditingRunner.prepare on a deployment without a segmenter', () => {
  const runner = new ImageEditingRunner(null, null, { SOURCE_MAX_MEGAPIXELS: 50 }, {} as SourceLoader);
  const task = (existingAlpha?: 'use'): TaskOf<ToolId.ImageEditing> => ({
    jobId: 'job-1',
    resultId: 'result-1',
    accountId: 'account-1',
    sandbox: false,
    index: 0,
    sourceImageUrl: 'https://images.example.com/cut.png',
    externalId: null,
    subjectHints: NO_HINTS,
    format: 'png',
    tool: ToolId.ImageEditing,
    options: {
      operations: { background: { type: 'transparent' } },
      output: { number_of_images: 1 },
      ...(existingAlpha ? { existing_alpha: existingAlpha } : {}),
    },
  });

  it('runs a cut-out whose mask is the source alpha (existing_alpha use): nothing is segmented', () => {
    const { request } = runner.prepare(task('use'));
    expect(request.cutout).toMatchObject({ background: null, existingAlpha: true });
  });

  it('refuses the same cut-out to be segmented, before the download', () => {
    expect(() => runner.prepare(task())).toThrow(ResultFailure);
  });
});
