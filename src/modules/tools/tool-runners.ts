import { Inject, Injectable } from '@nestjs/common';
import { ToolId } from '../catalog/tools';
import { ToolAvailabilityService } from '../catalog/tool-availability';
import { pipelineOf } from './tool-pipelines';
import type { ToolRunner, TypedToolTask } from './tool-runner';

/** The live pipelines on this worker, each under the tool whose pipeline it is. */
export const LIVE_TOOL_RUNNERS = Symbol('LIVE_TOOL_RUNNERS');
export type LiveToolRunners = ReadonlyMap<ToolId, ToolRunner>;

/** What runs every sandbox result (the simulator), given by the tools module so this registry imports no tool. */
export const SANDBOX_RUNNER = Symbol('SANDBOX_RUNNER');

/** Which runner produces a result on this worker. */
@Injectable()
export class ToolRunners {
  constructor(
    @Inject(SANDBOX_RUNNER) private readonly sandbox: ToolRunner,
    private readonly availability: ToolAvailabilityService,
    @Inject(LIVE_TOOL_RUNNERS) private readonly live: LiveToolRunners,
  ) {}

  /** Null when the job's tool is not offered to live keys here, or its pipeline is missing from this worker. */
  runnerFor(task: TypedToolTask): ToolRunner | null {
    if (task.sandbox) return this.sandbox;
    if (!this.availability.isAvailable(task.tool, false)) return null;
    return this.live.get(pipelineOf(task)) ?? null;
  }
}
