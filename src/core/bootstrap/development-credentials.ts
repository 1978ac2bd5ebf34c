import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * The admin token of a development run without ADMIN_TOKEN: generated once, kept in
 * `<dataDir>/admin-token` (mode 600) and reused by later starts.
 */
export async function developmentAdminToken(dataDir: string): Promise<{ token: string; generated: boolean }> {
  const file = join(dataDir, 'admin-token');
  try {
    return { token: (await readFile(file, 'utf8')).trim(), generated: false };
  } catch {
    const token = `adm_${randomBytes(24).toString('base64url')}`;
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    return { token, generated: true };
  }
}

/** The demo account a development run seeds on an empty database, with its keys shown once. */
export interface DemoCredentials {
  accountId: string;
  liveKey: string;
  sandboxKey: string;
}

/** Printed to stdout, not the JSON log: secrets are shown to the person at the terminal once. */
export function printDevelopmentCredentials(
  baseUrl: string,
  admin: { token: string; generated: boolean } | null,
  demo: DemoCredentials | null,
): void {
  const lines = [
    '',
    '=== Image Job Service: development credentials ===',
    `API:           ${baseUrl}/api/v1`,
    `Docs:          ${baseUrl}/docs`,
  ];
  if (admin?.generated) lines.push(`Admin token:   ${admin.token}`);
  else if (admin) lines.push('Admin token:   (generated earlier; stored in the data folder as admin-token)');
  if (demo) {
    lines.push(
      `Demo account:  ${demo.accountId}`,
      `Live key:      ${demo.liveKey}`,
      `Sandbox key:   ${demo.sandboxKey}`,
    );
    lines.push('The keys are shown only now; only their hashes are stored.');
  }
  lines.push('');
  process.stdout.write(`${lines.join('\n')}\n`);
}
