import { Module } from '@nestjs/common';
import { ImageModule } from '../../core/image/image.module';
import { ImageProviderModule } from '../../core/image-provider/image-provider.module';
import { SegmentationModule } from '../../core/segmentation/segmentation.module';
import { ToolId } from '../catalog/tools';
import { AdCreativeRunner } from './ad-creative/ad-creative.runner';
import { CutoutRunner } from './background-removal/cutout.runner';
import { AiEditRunner } from './generative/ai-edit.runner';
import { GenerationRunner } from './generative/generation.runner';
import { SceneRunner } from './generative/scene.runner';
import { ImageEditingRunner } from './image-editing/image-editing.runner';
import { SandboxSimulator } from './sandbox/sandbox-simulator';
import { SourceLoader } from './sources/source-loader';
import { LIVE_TOOL_RUNNERS, ToolRunners, type LiveToolRunners } from './tool-runners';

@Module({
  imports: [ImageModule, SegmentationModule, ImageProviderModule],
  providers: [
    SandboxSimulator,
    SourceLoader,
    CutoutRunner,
    ImageEditingRunner,
    AiEditRunner,
    SceneRunner,
    GenerationRunner,
    AdCreativeRunner,
    ToolRunners,
    {
      provide: LIVE_TOOL_RUNNERS,
      inject: [ImageEditingRunner, CutoutRunner, AiEditRunner, SceneRunner, GenerationRunner, AdCreativeRunner],
      useFactory: (
        editing: ImageEditingRunner,
        cutouts: CutoutRunner,
        aiEdit: AiEditRunner,
        scenes: SceneRunner,
        generation: GenerationRunner,
        ads: AdCreativeRunner,
      ): LiveToolRunners =>
        new Map([
          [ToolId.ImageEditing, { runner: editing, availability: { available: true, mode: 'sharp pipelines on the worker' } }],
          [ToolId.RemoveBackground, { runner: cutouts, availability: cutouts.availability }],
          [ToolId.ImageAiEdit, { runner: aiEdit, availability: aiEdit.availability }],
          [ToolId.AiBackground, { runner: scenes, availability: scenes.availability }],
          [ToolId.ImageGeneration, { runner: generation, availability: generation.availability }],
          [ToolId.AdCreative, { runner: ads, availability: ads.availability }],
        ]),
    },
  ],
  exports: [ToolRunners],
})
export class ToolsModule {}
