import { Module } from '@nestjs/common';
import { ImageModule } from '../../core/image/image.module';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import { LIVE_TOOL_RUNNERS, ToolRunners, type LiveToolRunners } from './tool-runners';

const NO_LIVE_PIPELINES: LiveToolRunners = new Map();

@Module({
  imports: [ImageModule],
  providers: [SandboxSimulator, ToolRunners, { provide: LIVE_TOOL_RUNNERS, useValue: NO_LIVE_PIPELINES }],
  exports: [ToolRunners],
})
export class ToolsModule {}
