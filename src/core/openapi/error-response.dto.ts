import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorCode } from '../errors/error-code';

class FieldErrorDto {
  @ApiProperty({ example: 'input[2].image_url' })
  path!: string;

  @ApiProperty({ example: 'image_url must be a URL address' })
  message!: string;
}

class ErrorDetailsDto {
  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Present on invalid_request.' })
  errors?: FieldErrorDto[];
}

class ErrorBodyDto {
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode' })
  code!: ErrorCode;

  @ApiProperty()
  message!: string;

  @ApiPropertyOptional({ type: ErrorDetailsDto })
  details?: ErrorDetailsDto;
}

/** The error envelope of spec 2.5, for the OpenAPI document. */
export class ErrorResponseDto {
  @ApiProperty({ type: ErrorBodyDto })
  error!: ErrorBodyDto;

  @ApiProperty({ example: '5f0c6a2e-3b1d-4c55-9a57-0d2b1c7e9f10' })
  request_id!: string;
}
