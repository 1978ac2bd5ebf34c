import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { DomainError } from '../errors/domain-error';

/** Path ids must be UUIDs; anything else is a 400 naming the parameter. */
@Injectable()
export class UuidParamPipe implements PipeTransform<string, string> {
  transform(value: string, metadata: ArgumentMetadata): string {
    if (!isUUID(value))
      throw DomainError.invalid([{ path: `path.${metadata.data ?? 'id'}`, message: 'must be a UUID' }]);
    return value.toLowerCase();
  }
}
