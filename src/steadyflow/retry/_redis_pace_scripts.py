"""The Lua scripts behind ``RedisProviderPacer``: ``KeyState``'s three steps, atomic in Redis.

Each script is the twin of a method of ``_pace_state.KeyState`` (``admit``,
``release``, and the learning ``ProviderPacer.observe`` does), with the same
arithmetic, so a fleet is paced as one process would be: every worker's
reservation lowers the same level, every answer's headers correct it. One
hash per key holds the state: per dimension ``r:`` rate (absent: unknown),
``c:`` capacity (absent: unbounded), ``l:`` level, ``u:`` updated, ``s:``
spent; and ``admitted``, ``cut_at``, ``learned``, ``slope``, ``grown_at``,
``latency``, ``exhausted``; ``t:<n>`` fields are the send times of the last
second, kept only while the request rate is unknown (AIMD's measured rate).
Numbers leave Lua as strings (``fmt``), since Redis truncates Lua numbers.
"""

from __future__ import annotations

from ._redis_scripts import COMMON

__all__ = ["PACE_SCRIPTS"]

_PACE_COMMON = """
local DIMS = {'requests', 'tokens', 'input_tokens', 'output_tokens'}
local INF = math.huge
local function opt(x)
  if x == nil or x == false or x == '' then return nil end
  return tonumber(x)
end
local function load(key)
  local raw = redis.call('HGETALL', key)
  local st = {}
  for i = 1, #raw, 2 do st[raw[i]] = raw[i + 1] end
  return st
end
local function get(st, f, default)
  local v = opt(st[f])
  if v == nil then return default end
  return v
end
local function save(key, st, ttl)
  local flat = {}
  for k, v in pairs(st) do
    flat[#flat + 1] = k
    flat[#flat + 1] = type(v) == 'number' and fmt(v) or v
  end
  redis.call('DEL', key)
  if #flat > 0 then redis.call('HSET', key, unpack(flat)) end
  redis.call('EXPIRE', key, ttl)
end
local function init(st, now, headroom, rpm, tpm)
  if st['admitted'] then return end
  for _, d in ipairs(DIMS) do st['u:' .. d] = now; st['l:' .. d] = 0; st['s:' .. d] = 0 end
  st['admitted'] = 0; st['cut_at'] = 0; st['learned'] = 0; st['slope'] = 0; st['grown_at'] = now
  for d, per_minute in pairs({requests = opt(rpm), tokens = opt(tpm)}) do
    local r = per_minute / 60 * (1 - headroom)
    st['r:' .. d] = r; st['c:' .. d] = math.max(1, r); st['l:' .. d] = math.max(1, r)
  end
end
local function refill(st, d, now)
  local r, u = opt(st['r:' .. d]), get(st, 'u:' .. d, now)
  if r and now > u then
    st['l:' .. d] = math.min(get(st, 'c:' .. d, INF), get(st, 'l:' .. d, 0) + r * (now - u))
  end
  st['u:' .. d] = math.max(u, now)
end
local function wait_for(st, d, cost, earliest)
  local r = opt(st['r:' .. d])
  if r == nil or cost <= 0 then return earliest end
  local level = math.min(get(st, 'c:' .. d, INF), get(st, 'l:' .. d, 0) + r * earliest)
  if level >= cost then return earliest end
  return earliest + (cost - level) / r
end
local function charge(st, d, cost)
  st['s:' .. d] = get(st, 's:' .. d, 0) + cost
  if opt(st['r:' .. d]) then
    st['l:' .. d] = math.min(get(st, 'c:' .. d, INF), get(st, 'l:' .. d, 0) - cost)
  end
end
local function expire_sends(st, now)
  local n = 0
  for f, v in pairs(st) do
    if string.sub(f, 1, 2) == 't:' then
      if tonumber(v) <= now - 1 then st[f] = nil else n = n + 1 end
    end
  end
  return n
end
"""

# KEYS[1] state; ARGV: now, headroom, rpm, tpm, earliest, latest, ttl, cost x4.
# Returns {'ok', wait, number, sent_at, spent x4} | {'late', wait} | {'quota', left}.
_PACE_ADMIT = """
local now, headroom = clock(ARGV[1]), tonumber(ARGV[2])
local earliest, latest = tonumber(ARGV[5]), tonumber(ARGV[6])
local st = load(KEYS[1])
init(st, now, headroom, ARGV[3], ARGV[4])
local exhausted = opt(st['exhausted'])
if exhausted and now < exhausted then return {'quota', fmt(exhausted - now)} end
local wait = earliest
for i, d in ipairs(DIMS) do
  refill(st, d, now)
  wait = math.max(wait, wait_for(st, d, tonumber(ARGV[7 + i]), earliest))
end
if wait + get(st, 'latency', 0) > latest then
  save(KEYS[1], st, ARGV[7])
  return {'late', fmt(wait)}
end
local reply = {'ok', fmt(wait)}
for i, d in ipairs(DIMS) do charge(st, d, tonumber(ARGV[7 + i])) end
st['admitted'] = get(st, 'admitted', 0) + 1
if opt(st['r:requests']) == nil then st['t:' .. fmt(st['admitted'])] = now + wait end
expire_sends(st, now)
reply[3] = fmt(st['admitted'])
reply[4] = fmt(now + wait)
for i, d in ipairs(DIMS) do reply[4 + i] = fmt(st['s:' .. d]) end
save(KEYS[1], st, ARGV[7])
return reply
"""

# KEYS[1] state; ARGV: now, ttl, cost x4.
_PACE_RELEASE = """
local now = clock(ARGV[1])
local st = load(KEYS[1])
if not st['admitted'] then return 0 end
for i, d in ipairs(DIMS) do
  refill(st, d, now)
  charge(st, d, -tonumber(ARGV[2 + i]))
end
save(KEYS[1], st, ARGV[2])
return 1
"""

# KEYS[1] state; ARGV: now, headroom, decrease, recovery, ttl, number, sent_at,
# mark x4, quota hold, throttled, answered, (limit, remaining, reset) x4, used x4, cost x4.
_PACE_OBSERVE = """
local now, headroom = clock(ARGV[1]), tonumber(ARGV[2])
local decrease, recovery = tonumber(ARGV[3]), tonumber(ARGV[4])
local number, sent_at = tonumber(ARGV[6]), tonumber(ARGV[7])
local st = load(KEYS[1])
if not st['admitted'] then return 0 end
local hold = opt(ARGV[12])
if hold then st['exhausted'] = now + hold end
for i, d in ipairs(DIMS) do
  local limit = opt(ARGV[15 + 3 * (i - 1)])
  if limit and limit > 0 then
    local remaining, reset = tonumber(ARGV[16 + 3 * (i - 1)]), opt(ARGV[17 + 3 * (i - 1)])
    local per_second = limit / 60
    local known = opt(st['r:' .. d]) ~= nil
    refill(st, d, now)
    st['r:' .. d] = math.max(per_second * (1 - headroom), 1e-9)
    if reset then
      st['c:' .. d] = math.min(math.max(1, remaining + reset * per_second), limit)
    elseif not known then
      st['c:' .. d] = math.max(1, per_second)
    end
    local spent_since = get(st, 's:' .. d, 0) - tonumber(ARGV[7 + i])
    local implied = remaining + per_second * math.max(0, now - sent_at) - spent_since
    if known then implied = math.min(get(st, 'l:' .. d, 0), implied) end
    st['l:' .. d] = math.min(get(st, 'c:' .. d, INF), implied)
    if d == 'requests' then st['learned'] = 1 end
  end
end
if ARGV[13] == '1' then
  refill(st, 'requests', now)
  if get(st, 'learned', 0) == 1 then
    st['l:requests'] = math.min(get(st, 'l:requests', 0), 0)
  elseif number > get(st, 'cut_at', 0) then
    local measured = math.max(expire_sends(st, now), 1)
    local rate = opt(st['r:requests'])
    local refused = rate and math.min(rate, measured) or measured
    local cut = math.max(1 / 60, decrease * refused)
    st['r:requests'] = cut; st['c:requests'] = math.max(1, cut)
    st['l:requests'] = math.min(get(st, 'l:requests', 0), 0)
    st['slope'] = (refused - cut) / recovery
    st['cut_at'] = get(st, 'admitted', 0); st['grown_at'] = now
  end
elseif ARGV[14] == '1' then
  local sample = math.max(0, now - sent_at)
  local latency = opt(st['latency'])
  st['latency'] = latency and (0.8 * latency + 0.2 * sample) or sample
  local rate, grown = opt(st['r:requests']), get(st, 'grown_at', now)
  if get(st, 'learned', 0) == 0 and rate and now > grown then
    refill(st, 'requests', now)
    rate = rate + get(st, 'slope', 0) * (now - grown)
    st['r:requests'] = rate; st['c:requests'] = math.max(1, rate); st['grown_at'] = now
  end
end
for i, d in ipairs(DIMS) do
  local used = opt(ARGV[26 + i])
  if used and d ~= 'requests' then
    refill(st, d, now)
    charge(st, d, used - tonumber(ARGV[30 + i]))
  end
end
save(KEYS[1], st, ARGV[5])
return 1
"""

PACE_SCRIPTS = {
    "pace_admit": COMMON + _PACE_COMMON + _PACE_ADMIT,
    "pace_release": COMMON + _PACE_COMMON + _PACE_RELEASE,
    "pace_observe": COMMON + _PACE_COMMON + _PACE_OBSERVE,
}
