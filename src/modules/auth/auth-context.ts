import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { KeyEnvironment } from './api-key.entity';

/** Who is calling: set by the access guard on every API-key route. */
export interface AuthContext {
  keyId: string;
  accountId: string;
  environment: KeyEnvironment;
}

declare module 'express-serve-static-core' {
  interface Request {
    auth?: AuthContext;
  }
}

/** Hands the caller's AuthContext to a controller method. */
export const Auth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthContext => {
  const auth = context.switchToHttp().getRequest<Request>().auth;
  if (!auth) throw new Error('Auth() used on a route the access guard does not authenticate with an API key');
  return auth;
});
