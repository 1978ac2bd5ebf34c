import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import {
  AspectRatio,
  InputImageDto,
  InputImages,
  NestedObject,
  OptionalWithDefault,
  OutputOptionsDto,
  Prompt,
  RequiredNestedObject,
  SHADOWS,
  WebhookUrl,
} from './shared.dto';

export class SceneDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, example: 'On a wooden table beside a window, morning light' })
  @Prompt()
  prompt!: string;

  @ApiPropertyOptional({ enum: SHADOWS, default: 'natural' })
  @OptionalWithDefault()
  @IsIn(SHADOWS)
  shadow?: (typeof SHADOWS)[number];

  @AspectRatio()
  aspect_ratio?: string;
}

export class SceneCreateRequestDto {
  @ApiProperty({ type: [InputImageDto], minItems: 1, maxItems: 20 })
  @InputImages()
  input!: InputImageDto[];

  @ApiProperty({ type: SceneDto })
  @RequiredNestedObject(() => SceneDto)
  scene!: SceneDto;

  @ApiPropertyOptional({ type: OutputOptionsDto })
  @NestedObject(() => OutputOptionsDto)
  output?: OutputOptionsDto;

  @WebhookUrl()
  webhook_url?: string;
}
