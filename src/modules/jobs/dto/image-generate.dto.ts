import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import {
  AspectRatio,
  InputImageDto,
  InputImages,
  NestedObject,
  OutputOptionsDto,
  Prompt,
  WebhookUrl,
} from './shared.dto';

export class GenerateOptionsDto {
  @AspectRatio()
  aspect_ratio?: string;
}

export class ImageGenerateRequestDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, example: 'A ceramic mug on a linen tablecloth, studio light' })
  @Prompt()
  prompt!: string;

  @ApiPropertyOptional({ type: [InputImageDto], minItems: 0, maxItems: 4, description: 'Reference images.' })
  @IsOptional()
  @InputImages(0, 4)
  input?: InputImageDto[];

  @ApiPropertyOptional({ type: GenerateOptionsDto })
  @NestedObject(() => GenerateOptionsDto)
  options?: GenerateOptionsDto;

  @ApiPropertyOptional({ type: OutputOptionsDto })
  @NestedObject(() => OutputOptionsDto)
  output?: OutputOptionsDto;

  @WebhookUrl()
  webhook_url?: string;
}
