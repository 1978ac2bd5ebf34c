export default async function globalTeardown(): Promise<void> {
  for (const service of (globalThis.startedTestServices ?? []).reverse()) await service.stop();
}
