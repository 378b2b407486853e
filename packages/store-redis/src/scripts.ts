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
 * so a previous `u`, `g` and expiry do not survive; `existed` false spares the DEL of a key the
 * caller has just seen absent (a new token's record, the usual case).
 */
const WRITE = `
local function write(key, revision, existed)
  if existed then redis.call('DEL', key) end
  if ARGV[4] then
    redis.call('HSET', key, 'v', ARGV[1], 'r', revision, 'g', ARGV[4])
  else
    redis.call('HSET', key, 'v', ARGV[1], 'r', revision)
  end
  if ARGV[3] ~= '' then redis.call('PEXPIRE', key, ARGV[3]) end
end`;

export const SET_SCRIPT = `${NEXT_REVISION}${WRITE}
local current = redis.call('HGET', KEYS[1], 'r')
write(KEYS[1], next_revision(current, ARGV[2]), current ~= false)
return 1`;

/** Like SET, only when the key does not exist (Redis hides expired keys from EXISTS). */
export const ADD_SCRIPT = `${WRITE}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
write(KEYS[1], ARGV[2], false)
return 1`;

/**
 * ARGV: the note as JSON (absent for none). [json, 1 on first use | 0, the first use's note or
 * nil], or nil when absent. HSETNX and HSET keep the key's expiry. A note is only ever written
 * with the used mark (writes replace the whole hash, replace keeps both), so on first use the
 * note is this call's own.
 */
export const CONSUME_SCRIPT = `
local value = redis.call('HGET', KEYS[1], 'v')
if not value then return false end
if redis.call('HSETNX', KEYS[1], 'u', '1') == 0 then
  return {value, 0, redis.call('HGET', KEYS[1], 'n')}
end
if ARGV[1] then redis.call('HSET', KEYS[1], 'n', ARGV[1]) end
return {value, 1, ARGV[1] or false}`;

/**
 * ARGV: the conditions as JSON, each field's allowed values (strings, null for a field absent or
 * null). [json, 1 on first use | 0, 1 when the record met them | 0 | -1 when cjson cannot read
 * the record or the conditions (a lone surrogate)], or nil when absent; a record that does not
 * meet them, or cannot be read, is left as it was. The used mark is the one CONSUME_SCRIPT sets.
 */
export const CONSUME_IF_SCRIPT = `
local value = redis.call('HGET', KEYS[1], 'v')
if not value then return false end
local read_record, record = pcall(cjson.decode, value)
local read_fields, fields = pcall(cjson.decode, ARGV[1])
if not (read_record and read_fields) then return {value, 0, -1} end
for field, allowed in pairs(fields) do
  local held = record[field]
  if held == nil then held = cjson.null end
  local found = false
  for _, candidate in ipairs(allowed) do
    if candidate == held then found = true end
  end
  if not found then return {value, 0, 0} end
end
if redis.call('HSETNX', KEYS[1], 'u', '1') == 0 then return {value, 0, 1} end
return {value, 1, 1}`;

/**
 * ARGV: json, expected revision, new revision, pttl ('' to keep the expiry). Keeps grant and the
 * used mark; a pttl of 0 (a TTL of zero or less) deletes the record. 0 when the revision was not
 * the current one; else 1, or the record's grant when its expiry was restarted (the caller then
 * raises the record's score in the grant's index, a key of another Cluster slot).
 */
export const REPLACE_SCRIPT = `${NEXT_REVISION}
local current = redis.call('HGET', KEYS[1], 'r')
if current ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', next_revision(current, ARGV[3]))
if ARGV[4] == '0' then
  redis.call('DEL', KEYS[1])
elseif ARGV[4] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return redis.call('HGET', KEYS[1], 'g') or 1
end
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
 * Adds members to a grant's index (KEYS[1]) unless the grant is closed (KEYS[2] exists): 1 when
 * added, 0 when closed. ARGV: pairs of member and pttl ('' for none). Each member's score is when
 * its record expires at the latest (the server's clock, plus a margin for the clocks of other
 * Cluster nodes), never lowered (GT; +inf is greater than any); members past their score are
 * dropped, and the index expires with its last member, so a long-lived grant does not grow
 * without bound.
 */
export const INDEX_SCRIPT = `${EXPIRE_WITH_LAST_MEMBER}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
local key = KEYS[1]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local scored = {}
for i = 1, #ARGV, 2 do
  local score = '+inf'
  if ARGV[i + 1] ~= '' then score = string.format('%.0f', now + tonumber(ARGV[i + 1]) + 60000) end
  scored[#scored + 1] = score
  scored[#scored + 1] = ARGV[i]
end
redis.call('ZADD', key, 'GT', unpack(scored))
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now))
expire_with_last_member(key)
return 1`;

/**
 * The first step of revokeGrant: closes the grant (KEYS[3] for ARGV[1] milliseconds), so the index
 * takes no new member, moves the members of its index (KEYS[1]) to its revoking set (KEYS[2]; the
 * three keys share a Cluster slot through the hash tag) and returns them all, with any left there
 * by a revocation that failed half-way. The store removes members from the revoking set only once
 * their records are gone.
 */
export const CLAIM_GRANT_SCRIPT = `${EXPIRE_WITH_LAST_MEMBER}
redis.call('SET', KEYS[3], '1', 'PX', ARGV[1])
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

/**
 * A record of setCapped (KEYS[1]). ARGV: json, revision, pttl, caps (each cap key URI-encoded
 * between newlines). Replaces the whole hash, so a previous grant or used mark does not survive.
 */
export const SET_CAPPED_SCRIPT = `${NEXT_REVISION}
local revision = next_revision(redis.call('HGET', KEYS[1], 'r'), ARGV[2])
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', revision, 'k', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * Puts a member last in a cap (KEYS[1], a sorted set scored by the server's clock in
 * microseconds) and pops the oldest beyond ARGV[2]; returns the members popped. ARGV: member,
 * max, pttl of the member's record: the set lives as long as its newest record.
 */
export const CAP_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
local popped = {}
if excess > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[1], excess)
  for i = 1, #oldest, 2 do popped[#popped + 1] = oldest[i] end
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return popped`;

/**
 * Deletes a record (KEYS[1]) popped from a cap if it still counts in that cap (ARGV[1], the cap's
 * encoded key between newlines): it may have been written again under other caps since. Returns
 * the caps the deleted record counted in (its field `k`), so the caller can take it out of the
 * others; false when no live record went.
 */
export const DROP_CAPPED_SCRIPT = `
local caps = redis.call('HGET', KEYS[1], 'k')
if not caps or not string.find(caps, ARGV[1], 1, true) then return false end
redis.call('DEL', KEYS[1])
return caps`;
