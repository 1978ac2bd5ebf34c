import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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

export class AiEditOptionsDto {
  @ApiProperty({ minLength: 1, maxLength: 4000, example: 'Place the bottle on a marble counter in soft morning light' })
  @Prompt()
  prompt!: string;

  @AspectRatio()
  aspect_ratio?: string;
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
