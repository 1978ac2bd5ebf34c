import { Inject, Injectable } from '@nestjs/common';
import type { ToolId } from '../catalog/tools';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import type { ToolRunner } from './tool-runner';

/** Whether live keys can use a tool here, and how it runs (`mode`) or why not (`reason`), as the catalog says. */
export type ToolAvailability = { available: true; mode?: string } | { available: false; reason: string };

export interface LiveTool {
  runner: ToolRunner;
  availability: ToolAvailability;
}

/**
 * The live pipeline of each tool, with its availability on this deployment. A tool that is
 * missing or unavailable here is refused to live keys: creates answer 503 `tool_unavailable`
 * and reserve nothing.
 */
export const LIVE_TOOL_RUNNERS = Symbol('LIVE_TOOL_RUNNERS');
export type LiveToolRunners = ReadonlyMap<ToolId, LiveTool>;

const NOT_OFFERED: ToolAvailability = { available: false, reason: 'not offered by this deployment' };

@Injectable()
export class ToolRunners {
  constructor(
    private readonly sandbox: SandboxSimulator,
    @Inject(LIVE_TOOL_RUNNERS) private readonly live: LiveToolRunners,
  ) {}

  runnerFor(tool: ToolId, sandbox: boolean): ToolRunner | null {
    if (sandbox) return this.sandbox;
    const live = this.live.get(tool);
    return live?.availability.available ? live.runner : null;
  }

  isAvailable(tool: ToolId, sandbox: boolean): boolean {
    return this.runnerFor(tool, sandbox) !== null;
  }

  /** For live keys; sandbox keys can use every tool. */
  availability(tool: ToolId): ToolAvailability {
    return this.live.get(tool)?.availability ?? NOT_OFFERED;
  }
}
