"""The Lua scripts behind the Redis budget and breaker: one atomic step each.

Each script is the Redis twin of a method of ``TokenBucketRetryBudget``,
``AdaptiveThrottle`` or ``CircuitBreaker``, with the same arithmetic and the
same 12-bucket windows, so a fleet behaves as one process would. Redis runs
a script without interleaving other commands, which is what makes a
read-modify-write on shared state safe across hosts.

Time is ``ARGV[1]``: the caller's clock reading, or ``""`` for the Redis
server's own ``TIME`` (one clock for every host). Numbers leave Lua as
strings, because Redis truncates Lua numbers to integers in replies.
"""

from __future__ import annotations

__all__ = ["COMMON", "SCRIPTS"]

_COMMON = """
local function clock(arg)
  if arg ~= '' then return tonumber(arg) end
  local t = redis.call('TIME')
  return tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local function fmt(x) return string.format('%.17g', x) end
-- Sums the 12-bucket window ending at bucket `cur`, deleting buckets that left it.
local function totals(key, total_tag, hit_tag, cur, n)
  local total, hits = 0, 0
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local tag, idx = string.match(fields[i], '^(%a):(-?%d+)$')
    if tag then
      if tonumber(idx) <= cur - n then
        redis.call('HDEL', key, fields[i])
      elseif tag == total_tag then
        total = total + tonumber(fields[i + 1])
      elseif tag == hit_tag then
        hits = hits + tonumber(fields[i + 1])
      end
    end
  end
  return total, hits
end
"""

COMMON = _COMMON
"""The helpers every script starts with (``clock``, ``fmt``, ``totals``)."""

# KEYS[1] bucket; ARGV: max milli-tokens. Returns the milli-tokens held.
_BUCKET_TOKENS = """
return redis.call('GET', KEYS[1]) or ARGV[1]
"""

# KEYS[1] bucket; ARGV: max milli, ratio milli, failed (1/0), ttl.
_BUCKET_RECORD = """
local max = tonumber(ARGV[1])
local tokens = tonumber(redis.call('GET', KEYS[1]) or max)
if ARGV[3] == '1' then
  tokens = math.max(tokens - 1000, 0)
else
  tokens = math.min(tokens + tonumber(ARGV[2]), max)
end
redis.call('SET', KEYS[1], string.format('%d', tokens), 'EX', ARGV[4])
return string.format('%d', tokens)
"""

# KEYS[1] throttle hash; ARGV: now, window, buckets, failed (1/0), ttl.
_THROTTLE_RECORD = """
local now, window, n = clock(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cur = math.floor(now * n / window)
redis.call('HINCRBY', KEYS[1], 'r:' .. cur, 1)
if ARGV[4] ~= '1' then redis.call('HINCRBY', KEYS[1], 'a:' .. cur, 1) end
totals(KEYS[1], 'r', 'a', cur, n)
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""

# KEYS[1] throttle hash; ARGV: now, window, buckets, k, draw, ttl.
# Returns {allowed (1/0), requests, accepts}.
_THROTTLE_ALLOW = """
local now, window, n = clock(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local cur = math.floor(now * n / window)
local requests, accepts = totals(KEYS[1], 'r', 'a', cur, n)
local p = math.max(0, (requests - tonumber(ARGV[4]) * accepts) / (requests + 1))
if tonumber(ARGV[5]) >= p then return {1, requests, accepts} end
redis.call('HINCRBY', KEYS[1], 'r:' .. cur, 1)
redis.call('EXPIRE', KEYS[1], ARGV[6])
return {0, requests + 1, accepts}
"""

_BREAKER_COMMON = """
local function load(key)
  local s = redis.call('HMGET', key, 'state', 'since', 'issued', 'passed')
  return s[1] or 'closed', tonumber(s[2] or 0), tonumber(s[3] or 0), tonumber(s[4] or 0)
end
local function enter(key, state, now)
  for _, f in ipairs(redis.call('HKEYS', key)) do
    if string.find(f, ':', 1, true) then redis.call('HDEL', key, f) end
  end
  redis.call('HSET', key, 'state', state, 'since', fmt(now), 'issued', 0, 'passed', 0)
end
-- The transitions time alone makes: open -> half-open, stale probes replaced.
local function advance(key, now, open_for)
  local state, since, issued, passed = load(key)
  if now >= since + open_for then
    if state == 'open' then
      enter(key, 'half_open', now)
      return 'half_open', now, 0, 0
    elseif state == 'half_open' then
      redis.call('HSET', key, 'issued', passed, 'since', fmt(now))
      return state, now, passed, passed
    end
  end
  return state, since, issued, passed
end
"""

# KEYS[1] breaker hash; ARGV: now, open_for. Returns the state.
_BREAKER_STATE = """
local state = advance(KEYS[1], clock(ARGV[1]), tonumber(ARGV[2]))
return state
"""

# KEYS[1] breaker hash; ARGV: now, open_for, probes, ttl.
# Returns {1} to let the call through, else {0, seconds left or ''}.
_BREAKER_ACQUIRE = """
local now, open_for = clock(ARGV[1]), tonumber(ARGV[2])
local state, since, issued = advance(KEYS[1], now, open_for)
redis.call('EXPIRE', KEYS[1], ARGV[4])
if state == 'closed' then return {1} end
if state == 'half_open' then
  if issued < tonumber(ARGV[3]) then
    redis.call('HINCRBY', KEYS[1], 'issued', 1)
    return {1}
  end
  return {0, ''}
end
return {0, fmt(since + open_for - now)}
"""

# KEYS[1] breaker hash; ARGV: now, open_for, probes, window, buckets,
# threshold, minimum calls, failed (1/0), ttl. Returns the new state.
_BREAKER_RECORD = """
local key, now, open_for = KEYS[1], clock(ARGV[1]), tonumber(ARGV[2])
local failed = ARGV[8] == '1'
local state, since, issued, passed = advance(key, now, open_for)
if state == 'half_open' then
  if failed then
    enter(key, 'open', now)
  elseif passed + 1 >= tonumber(ARGV[3]) then
    enter(key, 'closed', now)
  else
    redis.call('HSET', key, 'passed', passed + 1)
  end
elseif state == 'closed' then
  local n = tonumber(ARGV[5])
  local cur = math.floor(now * n / tonumber(ARGV[4]))
  redis.call('HINCRBY', key, 'c:' .. cur, 1)
  if failed then redis.call('HINCRBY', key, 'f:' .. cur, 1) end
  local calls, failures = totals(key, 'c', 'f', cur, n)
  if calls >= tonumber(ARGV[7]) and failures / calls >= tonumber(ARGV[6]) then
    enter(key, 'open', now)
  end
end
redis.call('EXPIRE', key, ARGV[9])
return redis.call('HGET', key, 'state') or 'closed'
"""

SCRIPTS: dict[str, str] = {
    "bucket_tokens": _BUCKET_TOKENS,
    "bucket_record": _BUCKET_RECORD,
    "throttle_record": _COMMON + _THROTTLE_RECORD,
    "throttle_allow": _COMMON + _THROTTLE_ALLOW,
    "breaker_state": _COMMON + _BREAKER_COMMON + _BREAKER_STATE,
    "breaker_acquire": _COMMON + _BREAKER_COMMON + _BREAKER_ACQUIRE,
    "breaker_record": _COMMON + _BREAKER_COMMON + _BREAKER_RECORD,
}
"""Script name -> Lua source."""
