/**
 * The Lua scripts behind the store's atomic operations. Each touches only the keys it declares,
 * all in one Redis Cluster slot: a record's scripts its one key, the grant scripts the two keys of
 * one grant, which share a hash tag. ioredis sends them with EVALSHA
 * and falls back to EVAL when the server does not know the script (after a restart or SCRIPT
 * FLUSH). Numbers cross the Lua boundary as strings: Lua numbers are doubles and Redis would
 * format large ones in exponent notation.
 */

/** A revision equal to the current one becomes another (`% (2^53 - 1) + 1` stays exact). */
const NEXT_REVISION = `
local function next_revision(current, wanted)
  if current == wanted then
    return string.format('%.0f', tonumber(wanted) % 9007199254740991 + 1)
  end
  return wanted
end`;

/**
 * ARGV: json, revision, pttl ('' for none), grant id (absent for none). Replaces the whole hash,
 * so a previous `u`, `g` and expiry do not survive.
 */
const WRITE = `
local function write(key, revision)
  redis.call('DEL', key)
  if ARGV[4] then
    redis.call('HSET', key, 'v', ARGV[1], 'r', revision, 'g', ARGV[4])
  else
    redis.call('HSET', key, 'v', ARGV[1], 'r', revision)
  end
  if ARGV[3] ~= '' then redis.call('PEXPIRE', key, ARGV[3]) end
end`;

export const SET_SCRIPT = `${NEXT_REVISION}${WRITE}
write(KEYS[1], next_revision(redis.call('HGET', KEYS[1], 'r'), ARGV[2]))
return 1`;

/** Like SET, only when the key does not exist (Redis hides expired keys from EXISTS). */
export const ADD_SCRIPT = `${WRITE}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
write(KEYS[1], ARGV[2])
return 1`;

/** [json, 1 on first use | 0], or nil when absent. HSETNX keeps the key's expiry. */
export const CONSUME_SCRIPT = `
local value = redis.call('HGET', KEYS[1], 'v')
if not value then return false end
return {value, redis.call('HSETNX', KEYS[1], 'u', '1')}`;

/** ARGV: json, expected revision, new revision. Keeps expiry, grant and the used mark. */
export const REPLACE_SCRIPT = `${NEXT_REVISION}
local current = redis.call('HGET', KEYS[1], 'r')
if current ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', next_revision(current, ARGV[3]))
return 1`;

/** Expires a grant's sorted set (KEYS[n]) with its last member: never if one has no expiry. */
const EXPIRE_WITH_LAST_MEMBER = `
local function expire_with_last_member(key)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] == nil then return end
  if last[2] == 'inf' then
    redis.call('PERSIST', key)
  else
    redis.call('PEXPIREAT', key, last[2])
  end
end`;

/**
 * Adds a member to a grant's index (KEYS[1]). ARGV: member, pttl ('' for none). The score is when
 * the member's record expires at the latest (the server's clock, plus a margin for the clocks of
 * other Cluster nodes), never lowered; members past their score are dropped, and the index
 * expires with its last member, so a long-lived grant does not grow without bound.
 */
export const INDEX_SCRIPT = `${EXPIRE_WITH_LAST_MEMBER}
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local score = '+inf'
if ARGV[2] ~= '' then score = string.format('%.0f', now + tonumber(ARGV[2]) + 60000) end
local current = redis.call('ZSCORE', key, ARGV[1])
if not current or (current ~= 'inf' and (score == '+inf' or tonumber(current) < tonumber(score))) then
  redis.call('ZADD', key, score, ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now))
expire_with_last_member(key)
return 1`;

/**
 * The first step of revokeGrant: moves the members of a grant's index (KEYS[1]) to its revoking
 * set (KEYS[2], the same Cluster slot through the hash tag) and returns them all, with any left
 * there by a revocation that failed half-way. Records written to the grant from now on go to a
 * fresh index. The store removes members from the revoking set only once their records are gone.
 */
export const CLAIM_GRANT_SCRIPT = `${EXPIRE_WITH_LAST_MEMBER}
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('ZUNIONSTORE', KEYS[2], 2, KEYS[2], KEYS[1], 'AGGREGATE', 'MAX')
  redis.call('DEL', KEYS[1])
  expire_with_last_member(KEYS[2])
end
return redis.call('ZRANGE', KEYS[2], 0, -1)`;

/** Deletes a record (KEYS[1]) if it is live and still in grant ARGV[1]; 1 when it did. */
export const REVOKE_RECORD_SCRIPT = `
if redis.call('HGET', KEYS[1], 'g') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`;
