import { CommanderError } from 'commander';
import { clientJobsApi } from './client-api';
import { RequestFailedError } from './jobs-api';
import { buildProgram } from './program';
import { clientReviewsApi } from './review-command';
import { StateFileError } from './state-file';
import { UsageError } from './tool-requests';

/** Exit codes: 0 all written, 1 something failed, 2 the command line itself was wrong. */
const USAGE_EXIT_CODE = 2;

async function main(argv: string[]): Promise<void> {
  const program = buildProgram({
    createApi: clientJobsApi,
    createReviewsApi: clientReviewsApi,
    print: (line) => process.stdout.write(`${line}\n`),
    printError: (line) => process.stderr.write(`${line}\n`),
    interactive: process.stdout.isTTY === true,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; a bad flag or a missing argument is a usage error.
      process.exitCode = error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
      return;
    }
    if (error instanceof UsageError || error instanceof StateFileError) {
      process.stderr.write(`error: ${error.message}\n`);
      process.exitCode = USAGE_EXIT_CODE;
      return;
    }
    const message = error instanceof RequestFailedError ? error.failure.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  }
}

void main(process.argv);
