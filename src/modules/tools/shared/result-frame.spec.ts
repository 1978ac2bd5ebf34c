import { ToolId } from '../../catalog/tools';
import { ResultErrorCode, ResultFailure } from '../result-failure';
import type { TypedToolTask } from '../tool-runner';
import { refuseOtherTools } from './result-frame';

const task = (tool: ToolId) => ({ tool }) as TypedToolTask;

describe(refuseOtherTools.name, () => {
  const cutout = { name: 'cut-out', tools: [ToolId.RemoveBackground, ToolId.ImageEditing] };

  it('lets through a task of any tool that runs on the pipeline', () => {
    expect(() => refuseOtherTools(task(ToolId.RemoveBackground), cutout)).not.toThrow();
    expect(() => refuseOtherTools(task(ToolId.ImageEditing), cutout)).not.toThrow();
  });

  it('refuses any other tool as a failed result that names the tool and the pipeline', () => {
    let refusal: unknown;
    try {
      refuseOtherTools(task(ToolId.AdCreative), cutout);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ResultFailure);
    expect(refusal).toMatchObject({
      code: ResultErrorCode.ProcessingFailed,
      message: 'The ad_creative tool does not run on the cut-out pipeline.',
    });
  });
});
