import { resizeOnly } from '../../../../test/support/edit-requests';
import { NearestUpscaler } from '../../../../test/support/nearest-upscaler';
import type { SourceImage } from '../../../core/image/source-image';
import type { ResultFrame } from '../shared/result-frame';
import type { SourceLoader } from '../shared/source-loader';
import { ImageEditingRunner } from './image-editing.runner';

const source = (width: number, height: number): SourceImage => ({
  bytes: Buffer.alloc(0),
  width,
  height,
  format: 'png',
  hasAlpha: false,
});

const edit = resizeOnly;

describe('ImageEditingRunner.pixels', () => {
  // The frame is not used by pixels().
  const runner = new ImageEditingRunner(
    null,
    new NearestUpscaler(),
    { SOURCE_MAX_MEGAPIXELS: 50 },
    {} as ResultFrame,
    {} as SourceLoader,
  );

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
