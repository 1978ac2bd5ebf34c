import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import {
  AspectRatio,
  InputImageDto,
  InputImages,
  NestedObject,
  OutputOptionsDto,
  Prompt,
  RequiredNestedObject,
  WebhookUrl,
} from './shared.dto';
import { PRESERVATION_LEVELS } from './product-photo-job.dto';

export class AiEditOptionsDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, example: 'Place the bottle on a marble counter in soft morning light' })
  @Prompt()
  prompt!: string;

  @AspectRatio()
  aspect_ratio?: string;

  @ApiPropertyOptional({
    enum: PRESERVATION_LEVELS,
    default: 'balanced',
    description:
      'How much of the product the edit may change, found by background removal: `strict` keeps its pixels exactly ' +
      '(generated content only around it), `balanced` keeps its body and lets the edit blend its edges and light, ' +
      '`creative` lets the edit change anything.',
  })
  @IsOptional()
  @IsIn(PRESERVATION_LEVELS)
  preservation_level?: (typeof PRESERVATION_LEVELS)[number];
}

export class ImageAiEditRequestDto {
  @ApiProperty({ type: [InputImageDto], minItems: 1, maxItems: 20 })
  @InputImages()
  input!: InputImageDto[];

  @ApiProperty({ type: AiEditOptionsDto })
  @RequiredNestedObject(() => AiEditOptionsDto)
  options!: AiEditOptionsDto;

  @ApiPropertyOptional({ type: OutputOptionsDto })
  @NestedObject(() => OutputOptionsDto)
  output?: OutputOptionsDto;

  @WebhookUrl()
  webhook_url?: string;
}
