/** Where the suite finds PostgreSQL and Redis; set by the global setup for every test file. */
export interface TestServices {
  databaseUrl: string;
  redisUrl: string;
}

export function testServices(): TestServices {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  if (!databaseUrl || !redisUrl) throw new Error('The jest global setup did not run (TEST_DATABASE_URL is unset)');
  return { databaseUrl, redisUrl };
}
