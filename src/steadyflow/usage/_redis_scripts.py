"""The Lua scripts behind ``RedisSpendStore``: one atomic step per reservation and charge.

Keys (one Redis hash tag per app, so a cluster keeps them on one shard):
``KEYS[1]`` the app's entries (a hash: id -> JSON, numbers as strings, so
nothing is rounded by Lua's doubles or cjson), ``KEYS[2..4]`` the app's,
the user's and the session's sorted sets of entry ids by time. Redis runs a
script without interleaving other commands: the sums a reservation checks
and the entry it adds are one step for the whole fleet.
"""

from __future__ import annotations

__all__ = ["RESERVE", "SETTLE"]

_COMMON = """
local function chunks(list, size)
  local out, i = {}, 1
  while i <= #list do
    local part = {}
    for j = i, math.min(i + size - 1, #list) do part[#part + 1] = list[j] end
    out[#out + 1] = part
    i = i + size
  end
  return out
end
"""

RESERVE = (
    _COMMON
    + """
-- ARGV: now, id, entry JSON, est cost, est tokens, retention, n checks,
-- then per check: set index (2 app, 3 user, 4 session), seconds, max cost, max tokens.
local now = tonumber(ARGV[1])
local cutoff = now - tonumber(ARGV[6])
for k = 2, 4 do
  local old = redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', cutoff)
  for _, part in ipairs(chunks(old, 500)) do
    redis.call('ZREM', KEYS[k], unpack(part))
    if k == 2 then redis.call('HDEL', KEYS[1], unpack(part)) end
  end
end
local est_cost, est_tokens = tonumber(ARGV[4]), tonumber(ARGV[5])
for i = 0, tonumber(ARGV[7]) - 1 do
  local base = 8 + i * 4
  local since = now - tonumber(ARGV[base + 1])
  local ids = redis.call('ZRANGEBYSCORE', KEYS[tonumber(ARGV[base])], '(' .. since, '+inf')
  local cost, tokens = 0, 0
  for _, part in ipairs(chunks(ids, 500)) do
    for _, text in ipairs(redis.call('HMGET', KEYS[1], unpack(part))) do
      if text then
        local e = cjson.decode(text)
        if e.state == 'charged' or tonumber(e.expires_at) > now then
          cost = cost + tonumber(e.cost_nano)
          tokens = tokens + tonumber(e.tokens)
        end
      end
    end
  end
  local max_cost, max_tokens = ARGV[base + 2], ARGV[base + 3]
  if (max_cost ~= '' and cost + est_cost > tonumber(max_cost))
      or (max_tokens ~= '' and tokens + est_tokens > tonumber(max_tokens)) then
    return {i, string.format('%.0f', cost), string.format('%.0f', tokens)}
  end
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
local ttl = math.ceil(tonumber(ARGV[6]))
for k = 1, 4 do
  if k > 1 then redis.call('ZADD', KEYS[k], now, ARGV[2]) end
  redis.call('EXPIRE', KEYS[k], ttl)
end
return {-1}
"""
)

SETTLE = """
-- ARGV: id, cost, tokens ('' cost: nothing was used, drop the entry).
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  for k = 2, 4 do redis.call('ZREM', KEYS[k], ARGV[1]) end
  return 1
end
local e = cjson.decode(text)
e.cost_nano, e.tokens, e.state, e.expires_at = ARGV[2], ARGV[3], 'charged', '0'
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
return 1
"""
