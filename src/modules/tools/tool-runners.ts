import { Inject, Injectable } from '@nestjs/common';
import type { ToolId } from '../catalog/tools';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import type { ToolRunner } from './tool-runner';

/**
 * The live pipeline of each tool. A tool missing here is unavailable to live
 * keys: creates answer 503 `tool_unavailable` and reserve nothing.
 */
export const LIVE_TOOL_RUNNERS = Symbol('LIVE_TOOL_RUNNERS');
export type LiveToolRunners = ReadonlyMap<ToolId, ToolRunner>;

@Injectable()
export class ToolRunners {
  constructor(
    private readonly sandbox: SandboxSimulator,
    @Inject(LIVE_TOOL_RUNNERS) private readonly live: LiveToolRunners,
  ) {}

  runnerFor(tool: ToolId, sandbox: boolean): ToolRunner | null {
    return sandbox ? this.sandbox : (this.live.get(tool) ?? null);
  }

  isAvailable(tool: ToolId, sandbox: boolean): boolean {
    return this.runnerFor(tool, sandbox) !== null;
  }
}
