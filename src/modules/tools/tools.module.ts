import { Module } from '@nestjs/common';
import { ImageModule } from '../../core/image/image.module';
import { ToolId } from '../catalog/tools';
import { ImageEditingRunner } from './image-editing/image-editing.runner';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import { SourceLoader } from './sources/source-loader';
import { LIVE_TOOL_RUNNERS, ToolRunners, type LiveToolRunners } from './tool-runners';

@Module({
  imports: [ImageModule],
  providers: [
    SandboxSimulator,
    SourceLoader,
    ImageEditingRunner,
    ToolRunners,
    {
      provide: LIVE_TOOL_RUNNERS,
      inject: [ImageEditingRunner],
      useFactory: (editing: ImageEditingRunner): LiveToolRunners => new Map([[ToolId.ImageEditing, editing]]),
    },
  ],
  exports: [ToolRunners],
})
export class ToolsModule {}
