import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

/** The baseline: the same framework and adapter answering a constant JSON body, nothing else. */
@Controller()
class BareController {
  @Get('bare')
  bare(): { ok: boolean } {
    return { ok: true };
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(BareModule, { logger: false });
  await app.listen(Number(process.env.PORT));
  process.stdout.write('ready\n');
}

void main();
