/** What one call of the sliding-window script does to the scopes it is given. */
export enum SlidingWindowMode {
  /** Adds the request to every scope, or to none when one of them is full. */
  Consume = 'consume',
  /** Removes the request's entries (a slot given back), then reports the scope with the least room. */
  Refund = 'refund',
}

/**
 * A sliding-window log per scope, consumed all-or-nothing across every scope in one round trip.
 *
 * KEYS: one sorted set per scope; on Redis Cluster they must share a hash tag (one slot), which
 * the caller's key names guarantee. ARGV: mode (SlidingWindowMode), window in ms, token, then one
 * limit per key. Returns { allowed (1|0), index of the reported scope (1-based), its remaining,
 * its reset ms }; in Refund mode `allowed` says whether a request would be admitted now.
 * Redis server time is used so API instances with skewed clocks agree; refused requests add
 * nothing, so a set never holds more than its limit.
 */
export const SLIDING_WINDOW_SCRIPT = `
local mode = ARGV[1]
local window = tonumber(ARGV[2])
local token = ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local counts = {}
for i, key in ipairs(KEYS) do
  if mode == 'refund' then redis.call('ZREM', key, token) end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  counts[i] = redis.call('ZCARD', key)
end
local function reset_ms(key)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] == nil then return window end
  return math.max(1, tonumber(oldest[2]) + window - now)
end
for i, key in ipairs(KEYS) do
  if counts[i] >= tonumber(ARGV[3 + i]) then
    return { 0, i, 0, reset_ms(key) }
  end
end
local added = 0
if mode == 'consume' then added = 1 end
local tightest, tightest_remaining = 1, nil
for i, key in ipairs(KEYS) do
  if added == 1 then
    redis.call('ZADD', key, now, token)
    redis.call('PEXPIRE', key, window)
  end
  local remaining = tonumber(ARGV[3 + i]) - counts[i] - added
  if tightest_remaining == nil or remaining < tightest_remaining then
    tightest, tightest_remaining = i, remaining
  end
end
return { 1, tightest, tightest_remaining, reset_ms(KEYS[tightest]) }
`;
