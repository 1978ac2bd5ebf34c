import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { AD_GOALS } from '../../../engine/ad/ad-layout';
import { AD_PLATFORMS } from '../../../engine/ad/ad-platforms';
import { AD_STYLES, DEFAULT_BRAND_COLOUR } from '../../../engine/ad/ad-styles';
import {
  HexColor,
  InputImageDto,
  InputImages,
  NestedObject,
  OptionalWithDefault,
  OutputOptionsDto,
  RequiredNestedObject,
  WebhookUrl,
} from './shared.dto';

export class CreativeDto {
  @ApiProperty({ enum: AD_PLATFORMS })
  @IsIn(AD_PLATFORMS)
  platform!: (typeof AD_PLATFORMS)[number];

  @ApiPropertyOptional({ enum: AD_GOALS, default: 'conversion' })
  @OptionalWithDefault()
  @IsIn(AD_GOALS)
  goal?: (typeof AD_GOALS)[number];

  @ApiPropertyOptional({ enum: AD_STYLES, default: 'minimal' })
  @OptionalWithDefault()
  @IsIn(AD_STYLES)
  style?: (typeof AD_STYLES)[number];

  @ApiPropertyOptional({ minLength: 1, maxLength: 60 })
  @IsOptional()
  @IsString()
  @Length(1, 60)
  headline?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 25 })
  @IsOptional()
  @IsString()
  @Length(1, 25)
  call_to_action?: string;

  @HexColor(DEFAULT_BRAND_COLOUR)
  brand_color?: string;
}

export class AdCreateRequestDto {
  @ApiProperty({ type: [InputImageDto], minItems: 1, maxItems: 20 })
  @InputImages()
  input!: InputImageDto[];

  @ApiProperty({ type: CreativeDto })
  @RequiredNestedObject(() => CreativeDto)
  creative!: CreativeDto;

  @ApiPropertyOptional({ type: OutputOptionsDto })
  @NestedObject(() => OutputOptionsDto)
  output?: OutputOptionsDto;

  @WebhookUrl()
  webhook_url?: string;
}
