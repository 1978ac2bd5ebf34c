/**
 * A sliding-window log per scope, consumed all-or-nothing across every scope in one round trip.
 *
 * KEYS: one sorted set per scope. ARGV: window in ms, token, then one limit per key.
 * Returns { allowed (1|0), index of the reported scope (1-based), its remaining, its reset ms }.
 * Redis server time is used so API instances with skewed clocks agree; refused requests add
 * nothing, so a set never holds more than its limit.
 */
export const SLIDING_WINDOW_SCRIPT = `
local window = tonumber(ARGV[1])
local token = ARGV[2]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  counts[i] = redis.call('ZCARD', key)
end
local function reset_ms(key)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] == nil then return window end
  return math.max(1, tonumber(oldest[2]) + window - now)
end
for i, key in ipairs(KEYS) do
  if counts[i] >= tonumber(ARGV[2 + i]) then
    return { 0, i, 0, reset_ms(key) }
  end
end
local tightest, tightest_remaining = 1, nil
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, token)
  redis.call('PEXPIRE', key, window)
  local remaining = tonumber(ARGV[2 + i]) - counts[i] - 1
  if tightest_remaining == nil or remaining < tightest_remaining then
    tightest, tightest_remaining = i, remaining
  end
end
return { 1, tightest, tightest_remaining, reset_ms(KEYS[tightest]) }
`;
