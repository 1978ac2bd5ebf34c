import { fromFixture, paint } from '../../../../test/support/image-fixtures';
import { planGeometry } from '../../../core/image/geometry';
import { NO_HINTS, type Cutout, type SubjectHints } from '../../../engine/mask/subject-hints';
import type { RawImage } from '../../../engine/raw-image';
import { inspectSource } from '../../../core/image/source-image';
import type { Segmenter } from '../../../core/segmentation/segmenter';
import { hintsInPart, visiblePart } from './edit-hints';
import { runPipeline } from '../shared/tool-steps';
import { editContext } from '../../../../test/support/tool-contexts';
import { EDIT_PIPELINE } from './edit-pipeline';
import type { EditRequest } from './edit-request';

const HINTS: SubjectHints = {
  region: { left: 0.1, top: 0.2, right: 0.6, bottom: 0.9 },
  keepPoints: [
    { x: 0.5, y: 0.5 },
    { x: 0.11, y: 0.5 },
  ],
};

describe(visiblePart.name, () => {
  const source = { width: 400, height: 200 };

  it('is the whole source when the edit only scales it', () => {
    expect(visiblePart(source, planGeometry(source, { width: 100, upscale: false }), null)).toEqual({
      left: 0,
      top: 0,
      width: 1,
      height: 1,
    });
    expect(
      visiblePart(source, planGeometry(source, { width: 300, height: 300, fit: 'contain', upscale: false }), null),
    ).toEqual({
      left: 0,
      top: 0,
      width: 1,
      height: 1,
    });
  });

  it('is the centre that cover keeps: a 200 x 200 box of a 400 x 200 source keeps its middle half', () => {
    expect(
      visiblePart(source, planGeometry(source, { width: 200, height: 200, fit: 'cover', upscale: false }), null),
    ).toEqual({
      left: 0.25,
      top: 0,
      width: 0.5,
      height: 1,
    });
  });

  it('is the window crop cut, in fractions of the resampled image', () => {
    const plan = planGeometry(source, { width: 100, height: 50, fit: 'crop', upscale: false });
    expect(visiblePart(source, plan, { left: 300, top: 150 })).toEqual({
      left: 0.75,
      top: 0.75,
      width: 0.25,
      height: 0.25,
    });
  });
});

describe(hintsInPart.name, () => {
  it('leaves hints on the whole source as they are', () => {
    expect(hintsInPart(HINTS, { left: 0, top: 0, width: 1, height: 1 })).toEqual(HINTS);
  });

  it('moves the region and keep points into the part, clips the region and drops points cut away', () => {
    const moved = hintsInPart(HINTS, { left: 0.25, top: 0, width: 0.5, height: 1 });
    expect(moved.region).toEqual({ left: 0, top: 0.2, right: expect.closeTo(0.7, 10), bottom: 0.9 });
    expect(moved.keepPoints).toEqual([{ x: 0.5, y: 0.5 }]);
  });

  it("shrinks a region the part misses to the part's edge", () => {
    expect(hintsInPart(HINTS, { left: 0.7, top: 0, width: 0.3, height: 1 }).region).toMatchObject({
      left: 0,
      right: 0,
    });
  });

  it('keeps having no hints', () => {
    expect(hintsInPart(NO_HINTS, { left: 0.25, top: 0, width: 0.5, height: 1 })).toEqual(NO_HINTS);
  });
});

const RECORDED_SEGMENTATION = { model: 'recording', version: 'v9', postProcessingVersion: '7' };

/** Records what it was asked and answers a full mask, so the test sees the hints the pipeline passes. */
class RecordingSegmenter implements Segmenter {
  readonly asked: Array<{ width: number; height: number; hints: SubjectHints | undefined }> = [];

  ready(): Promise<void> {
    return Promise.resolve();
  }

  segment(image: RawImage, _signal: AbortSignal, hints?: SubjectHints): Promise<Cutout> {
    this.asked.push({ width: image.width, height: image.height, hints });
    return Promise.resolve({
      mask: { data: new Uint8Array(image.width * image.height).fill(255), width: image.width, height: image.height },
      uncertainty: 0.25,
      segmentation: RECORDED_SEGMENTATION,
    });
  }
}

describe('EDIT_PIPELINE with subject hints', () => {
  const request = (resize: EditRequest['resize']): EditRequest => ({
    resize,
    cutout: {
      background: null,
      backdrop: null,
      shadow: { kind: 'none', spread: 1, lean: 0 },
      existingAlpha: false,
      model: null,
      placement: null,
    },
    light: false,
    color: false,
    polish: false,
    unsupported: null,
  });
  const source = async () =>
    inspectSource(
      await fromFixture(paint(400, 200, () => [120, 130, 140]))
        .png()
        .toBuffer(),
      50_000_000,
    );

  it('hands the segmenter the hints in the frame it segments; reports its uncertainty and segmentation', async () => {
    const segmenter = new RecordingSegmenter();
    const dependencies = { segmenter, upscaler: null };
    const whole = await runPipeline(
      EDIT_PIPELINE,
      editContext(request({ width: 200, upscale: false }), await source(), dependencies, {}, { hints: HINTS }),
    );
    const covered = await runPipeline(
      EDIT_PIPELINE,
      editContext(
        request({ width: 200, height: 200, fit: 'cover', upscale: false }),
        await source(),
        dependencies,
        {},
        {
          hints: HINTS,
        },
      ),
    );
    expect(segmenter.asked[0]).toEqual({ width: 200, height: 100, hints: HINTS });
    expect(segmenter.asked[1]).toMatchObject({ width: 200, height: 200, hints: { keepPoints: [{ x: 0.5, y: 0.5 }] } });
    expect(segmenter.asked[1].hints?.region).toMatchObject({ left: 0, right: expect.closeTo(0.7, 10) });
    expect([whole.uncertainty, covered.uncertainty]).toEqual([0.25, 0.25]);
    expect([whole.segmentation, covered.segmentation]).toEqual([RECORDED_SEGMENTATION, RECORDED_SEGMENTATION]);
  });

  it('reports no uncertainty and no segmentation for an edit that cuts nothing out', async () => {
    const edited = await runPipeline(
      EDIT_PIPELINE,
      editContext({ ...request({ width: 100, upscale: false }), cutout: null }, await source(), {
        segmenter: null,
        upscaler: null,
      }),
    );
    expect(edited.uncertainty).toBeUndefined();
    expect(edited.segmentation).toBeUndefined();
  });
});
