/** A JSON POST to a service running as a child process: its status and parsed body. */
export async function postJson(
  url: string,
  body: object,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** An account (with `credits` when given) and one API key, made through the admin API of the service at `base`. */
export async function seedAccountOverHttp(
  base: string,
  adminToken: string,
  { name, credits, environment }: { name: string; credits?: number; environment: 'live' | 'sandbox' },
): Promise<{ accountId: string; key: string }> {
  const admin = { Authorization: `Bearer ${adminToken}` };
  const created = await postJson(`${base}/admin/v1/accounts`, { name, credits }, admin);
  const account = created.body.account as { id: string };
  const issued = await postJson(`${base}/admin/v1/accounts/${account.id}/api-keys`, { environment }, admin);
  const key = issued.body.secret as string;
  return { accountId: account.id, key };
}
