// Copies the console's static files (its page and stylesheet) beside its compiled modules.
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'console', 'static'), join(root, 'dist', 'console'), { recursive: true });
