import { Module } from '@nestjs/common';
import { EngineModule } from '../../core/engine/engine.module';
import { ImageModule } from '../../core/image/image.module';
import { ImageProviderModule } from '../../core/image-provider/image-provider.module';
import { SegmentationModule } from '../../core/segmentation/segmentation.module';
import { SuperResolutionModule } from '../../core/super-resolution/super-resolution.module';
import { ToolId } from '../catalog/tools';
import { AdCreativeRunner } from './ad-creative/ad-creative.runner';
import { CutoutRunner } from './background-removal/cutout.runner';
import { AiEditRunner } from './generative/ai-edit.runner';
import { GenerationRunner } from './generative/generation.runner';
import { SceneRunner } from './generative/scene.runner';
import { ImageEditingRunner } from './image-editing/image-editing.runner';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import { ResultFrame } from './shared/result-frame';
import { SourceLoader } from './shared/source-loader';
import { ToolAvailabilityModule } from '../catalog/tool-availability';
import type { ToolRunner } from './tool-runner';
import { LIVE_TOOL_RUNNERS, SANDBOX_RUNNER, ToolRunners, type LiveToolRunners } from './tool-runners';

/**
 * The worker's pipelines: only the worker role imports this, so an API process never creates a segmenter, an upscaler
 * or a provider client.
 */
@Module({
  imports: [
    ImageModule,
    EngineModule,
    SegmentationModule,
    SuperResolutionModule,
    ImageProviderModule,
    ToolAvailabilityModule,
  ],
  providers: [
    { provide: SANDBOX_RUNNER, useClass: SandboxSimulator },
    SourceLoader,
    ResultFrame,
    CutoutRunner,
    ImageEditingRunner,
    AiEditRunner,
    SceneRunner,
    GenerationRunner,
    AdCreativeRunner,
    ToolRunners,
    {
      provide: LIVE_TOOL_RUNNERS,
      inject: [
        ResultFrame,
        ImageEditingRunner,
        CutoutRunner,
        AiEditRunner,
        SceneRunner,
        GenerationRunner,
        AdCreativeRunner,
      ],
      useFactory: (
        frame: ResultFrame,
        editing: ImageEditingRunner,
        cutouts: CutoutRunner,
        aiEdit: AiEditRunner,
        scenes: SceneRunner,
        generation: GenerationRunner,
        ads: AdCreativeRunner,
      ): LiveToolRunners =>
        new Map<ToolId, ToolRunner>([
          [ToolId.ImageEditing, frame.runnerOf(editing)],
          [ToolId.RemoveBackground, frame.runnerOf(cutouts)],
          [ToolId.ImageAiEdit, frame.runnerOf(aiEdit)],
          [ToolId.AiBackground, frame.runnerOf(scenes)],
          [ToolId.ImageGeneration, frame.runnerWithOptionalSourceOf(generation)],
          [ToolId.AdCreative, frame.runnerOf(ads)],
        ]),
    },
  ],
  exports: [ToolRunners],
})
export class ToolsModule {}
