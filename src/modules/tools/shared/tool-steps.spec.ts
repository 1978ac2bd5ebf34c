import { made, runPipeline, runSteps, type ToolPipeline, type ToolStep } from './tool-steps';

interface Counting {
  signal: AbortSignal;
  ran: string[];
}

const appending =
  (name: string): ToolStep<Counting, string[]> =>
  (context, work) => {
    context.ran.push(name);
    return [...work, name];
  };

describe(runSteps.name, () => {
  it('runs the steps in order, each from the state the one before left', async () => {
    const context = { signal: new AbortController().signal, ran: [] };
    const later: ToolStep<Counting, string[]> = async (_context, work) => [...work, `after ${work.length}`];
    await expect(runSteps([appending('decode'), later, appending('encode')], context, [])).resolves.toEqual([
      'decode',
      'after 1',
      'encode',
    ]);
    expect(context.ran).toEqual(['decode', 'encode']);
  });

  it("stops with the signal's reason before the next step once the signal aborts", async () => {
    const controller = new AbortController();
    const reason = new Error('out of time');
    const context = { signal: controller.signal, ran: [] };
    const aborting: ToolStep<Counting, string[]> = (ctx, work) => {
      ctx.ran.push('abort');
      controller.abort(reason);
      return work;
    };
    await expect(runSteps([appending('decode'), aborting, appending('encode')], context, [])).rejects.toBe(reason);
    expect(context.ran).toEqual(['decode', 'abort']);
  });

  it('runs no step for a signal that has already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const context = { signal: controller.signal, ran: [] };
    await expect(runSteps([appending('decode')], context, [])).rejects.toThrow('cancelled');
    expect(context.ran).toEqual([]);
  });

  it("lets a step's own failure through as it is", async () => {
    const failure = new Error('not an image');
    const failing: ToolStep<Counting, string[]> = () => Promise.reject(failure);
    const context = { signal: new AbortController().signal, ran: [] };
    await expect(runSteps([failing, appending('encode')], context, [])).rejects.toBe(failure);
    expect(context.ran).toEqual([]);
  });
});

describe(runPipeline.name, () => {
  it("starts from the pipeline's start and returns its result of the last state", async () => {
    const image = Buffer.from('encoded');
    const pipeline: ToolPipeline<Counting, { encoded: Buffer | null }> = {
      start: () => ({ encoded: null }),
      steps: [(_context, work) => ({ ...work, encoded: image })],
      result: ({ encoded }) => ({ image: made(encoded, 'encoded image'), thumbnail: image }),
    };
    await expect(runPipeline(pipeline, { signal: new AbortController().signal, ran: [] })).resolves.toEqual({
      image,
      thumbnail: image,
    });
  });

  it('names what is missing when a state is read before the step that makes it', () => {
    expect(() => made(null, 'decoded image')).toThrow('No decoded image yet');
  });
});
