import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validate } from 'class-validator';
import { DomainError } from '../core/errors/domain-error';
import { flattenValidationErrors } from '../core/http/validation.pipe';
import {
  CreateAccountDto,
  CreateApiKeyDto,
  CreditChangeDto,
  UpdateAccountDto,
  restrictedUntilChange,
} from '../modules/admin/admin.dto';
import { presentLedgerEntry } from '../modules/credits/ledger-entry.presenter';
import { presentAccount, presentApiKey } from '../modules/admin/admin.presenter';
import type { AdminService } from '../modules/admin/admin.service';

export type Options = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** The same DTO rules as the admin HTTP API, so the shell cannot do what the API refuses. */
async function validated<T extends object>(type: ClassConstructor<T>, plain: object): Promise<T> {
  const dto = plainToInstance(type, plain);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw DomainError.invalid(flattenValidationErrors(errors));
  return dto;
}

type OptionValue = Options[string];

const text = (value: OptionValue) => (typeof value === 'string' ? value : undefined);
const integer = (value: OptionValue) => (typeof value === 'string' ? Number(value) : undefined);
const flag = (value: OptionValue) =>
  value === undefined ? undefined : value === true || value === 'true' ? true : value === 'false' ? false : value;

function required(args: string[], index: number, name: string): string {
  const value = args[index];
  if (!value) throw DomainError.invalid([{ path: name, message: `${name} is required` }]);
  return value;
}

export interface AdminCommand {
  usage: string;
  run(admin: AdminService, args: string[], options: Options): Promise<unknown>;
}

export const ADMIN_COMMANDS: Record<string, AdminCommand> = {
  'accounts:create': {
    usage: 'accounts:create --name NAME [--credits N] [--api-access false]',
    async run(admin, _args, options) {
      const dto = await validated(CreateAccountDto, {
        name: text(options.name),
        credits: integer(options.credits),
        api_access: flag(options['api-access']),
      });
      const account = await admin.createAccount({
        name: dto.name,
        credits: dto.credits ?? 0,
        apiAccess: dto.api_access ?? true,
      });
      return { account: presentAccount(account) };
    },
  },
  'accounts:show': {
    usage: 'accounts:show ACCOUNT_ID',
    async run(admin, args) {
      return { account: presentAccount(await admin.getAccount(required(args, 0, 'ACCOUNT_ID'))) };
    },
  },
  'accounts:update': {
    usage: 'accounts:update ACCOUNT_ID [--api-access true|false] [--restricted-until ISO_DATE|none]',
    async run(admin, args, options) {
      const until = text(options['restricted-until']);
      const dto = await validated(UpdateAccountDto, {
        api_access: flag(options['api-access']),
        restricted_until: until === 'none' ? null : until,
      });
      const account = await admin.updateAccount(required(args, 0, 'ACCOUNT_ID'), {
        apiAccess: dto.api_access,
        restrictedUntil: restrictedUntilChange(dto.restricted_until),
      });
      return { account: presentAccount(account) };
    },
  },
  'keys:create': {
    usage: 'keys:create ACCOUNT_ID --environment live|sandbox [--name NAME]',
    async run(admin, args, options) {
      const dto = await validated(CreateApiKeyDto, {
        environment: text(options.environment),
        name: text(options.name),
      });
      const issued = await admin.issueKey(required(args, 0, 'ACCOUNT_ID'), dto.environment, dto.name ?? null);
      return { api_key: presentApiKey(issued.apiKey), secret: issued.secret };
    },
  },
  'keys:revoke': {
    usage: 'keys:revoke KEY_ID',
    async run(admin, args) {
      await admin.revokeKey(required(args, 0, 'KEY_ID'));
      return { revoked: args[0] };
    },
  },
  'credits:change': {
    usage: 'credits:change ACCOUNT_ID --amount N --reason TEXT',
    async run(admin, args, options) {
      const dto = await validated(CreditChangeDto, { amount: integer(options.amount), reason: text(options.reason) });
      return {
        account: presentAccount(await admin.changeCredits(required(args, 0, 'ACCOUNT_ID'), dto.amount, dto.reason)),
      };
    },
  },
  ledger: {
    usage: 'ledger ACCOUNT_ID [--limit N]',
    async run(admin, args, options) {
      const entries = await admin.ledger(required(args, 0, 'ACCOUNT_ID'), integer(options.limit) ?? 100);
      return { entries: entries.map(presentLedgerEntry) };
    },
  },
};
