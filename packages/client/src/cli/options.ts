import { InvalidArgumentError } from 'commander';
import { MAX_IMAGES_PER_JOB } from './plan';

/** A commander parser for a whole number from `min` to `max`. */
export const integerFrom =
  (min: number, max: number) =>
  (value: string): number => {
    const parsed = Number(value);
    if (!/^\d+$/.test(value.trim()) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`a whole number from ${min} to ${max}`);
    }
    return parsed;
  };

export const hexColour = (value: string): string => {
  if (!/^#[0-9A-Fa-f]{6}$/.test(value)) throw new InvalidArgumentError('a colour as #RRGGBB');
  return value.toUpperCase();
};

/** Flags every command that runs jobs takes, as commander parses them. */
export interface RunFlags {
  out: string;
  dryRun?: boolean;
  batchSize: number;
  maxActiveJobs: number;
}

/** Flags of the program itself, before the command. */
export interface GlobalFlags {
  apiKey?: string;
  baseUrl: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const BATCH_SIZE_RANGE = { min: 1, max: MAX_IMAGES_PER_JOB } as const;
