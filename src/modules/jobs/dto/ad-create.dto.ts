import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
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

export const AD_PLATFORMS = [
  'instagram_feed',
  'instagram_story',
  'facebook_feed',
  'pinterest',
  'tiktok',
  'google_display',
] as const;
export const AD_GOALS = ['awareness', 'consideration', 'conversion'] as const;
export const AD_STYLES = ['minimal', 'bold', 'luxury', 'playful'] as const;
/**
 * The brand colour when a request gives none: a clear mid blue. Blue ties an ad to no one
 * industry, and this one carries white text (5.2:1) and still reads on the luxury style's
 * near-black (3.6:1), so every style works with it.
 */
export const DEFAULT_BRAND_COLOUR = '#2563EB';

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
