import { createHash } from 'node:crypto';

/**
 * The Lua scripts of the Redis store. Each one runs atomically on the Redis server, so every
 * check-then-write (the live-task limit, the terminal guard, the reaping of expired tasks and of
 * lost workers) holds across any number of replicas, and each change publishes its event in the
 * same step, so no replica can change a task without the others hearing of it.
 *
 * Keys, under a prefix P (default "mcp-tasks:"):
 * - P t:<id>          hash: base (JSON of the immutable fields, never re-encoded in Lua), status, msg,
 *                     updated, ext, outcome (JSON), seq, client, worker (the lease holder), parent,
 *                     ttl, member; PEXPIRE = ttl, set at create and restarted on the terminal transition
 * - P seq             counter: creation order, the position a list cursor carries
 * - P all             zset seq → id: every task (the owner's view)
 * - P c:<clientKey>   zset seq → id: one client's tasks
 * - P p:<parentId>    zset seq → id: one parent's sub-tasks
 * - P live:<client>   zset expiry-ms → id: a client's live tasks (the --max-tasks-per-client count)
 * - P held:<client>   integer: what the client's tasks hold, in characters of JSON (--max-retained-bytes-per-client)
 * - P sizes:<client>  hash id → that task's share of held; both freed by the reaper with the task
 * - P exp             zset expiry-ms → member "id\nclient\nparent\nworker": what the reaper unindexes
 * - P workers         hash worker → lease ms: replicas that run tasks
 * - P hb:<worker>     string with PEXPIRE = lease: the replica's heartbeat, holding the incarnation
 *                     (one per process) that renews it, so a new process under the same worker id is
 *                     told from the old one
 * - P run:<worker>    set of ids: live tasks whose work runs on that replica
 * - P orphans         zset seq → member (as in P exp): tasks of clients whose HTTP session ended, oldest first
 * - P orphan-sizes    hash id → the bytes that task added to P orphan-held when it was orphaned
 * - P orphan-held     integer: what the orphans hold together (held to one retention budget, see ORPHAN)
 * Scripts build key names from the prefix (single Redis or a primary with replicas; not Redis Cluster).
 */

const LIBRARY = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function is_terminal(s)
  return s == 'completed' or s == 'failed' or s == 'cancelled'
end

local function jstr(v)
  if v == false or v == nil then return 'null' end
  return cjson.encode(v)
end

local FIELDS = {'base', 'status', 'msg', 'updated', 'ext', 'seq', 'client', 'worker', 'parent', 'ttl', 'member'}

local function load(key)
  local v = redis.call('HMGET', key, unpack(FIELDS))
  if not v[1] then return nil end
  local h = {}
  for i, f in ipairs(FIELDS) do h[f] = v[i] end
  return h
end

-- A status event; base goes in verbatim so the tool's arguments keep their exact JSON.
local function status_event(origin, h, created)
  return '{"t":"s","o":' .. cjson.encode(origin) .. ',"c":' .. (created and 'true' or 'false') ..
    ',"b":' .. h.base .. ',"s":' .. cjson.encode(h.status) .. ',"m":' .. jstr(h.msg) ..
    ',"u":' .. cjson.encode(h.updated) .. ',"x":' .. jstr(h.ext) .. ',"q":' .. h.seq .. '}'
end

-- Writes a status change to the hash and to h (for the event); no message clears the old one.
local function set_status(key, h, status, msg, now)
  h.status = status
  h.updated = now
  redis.call('HSET', key, 'status', status, 'updated', now)
  if msg then
    h.msg = msg
    redis.call('HSET', key, 'msg', msg)
  else
    h.msg = false
    redis.call('HDEL', key, 'msg')
  end
end

-- The terminal guard: false when the task is gone or already terminal. The outcome, kept
-- whatever its size (losing a result is worse), adds its size to what the client holds.
local function finish_task(p, channel, origin, id, status, msg, now, outcome, size)
  local key = p .. 't:' .. id
  local h = load(key)
  if not h or is_terminal(h.status) then return false end
  set_status(key, h, status, msg, now)
  redis.call('HSET', key, 'outcome', outcome)
  if redis.call('HINCRBY', p .. 'sizes:' .. h.client, id, size) > size then
    redis.call('INCRBY', p .. 'held:' .. h.client, size)
  else
    -- A task from before byte accounting: nothing to add to.
    redis.call('HDEL', p .. 'sizes:' .. h.client, id)
  end
  local ttl = tonumber(h.ttl)
  redis.call('PEXPIRE', key, ttl)
  redis.call('ZADD', p .. 'exp', now_ms() + ttl, h.member)
  redis.call('ZREM', p .. 'live:' .. h.client, id)
  if h.worker ~= '' then redis.call('SREM', p .. 'run:' .. h.worker, id) end
  local event = status_event(origin, h, false)
  redis.call('PUBLISH', channel, event)
  return event
end

-- Deletes a task and unindexes it (member: "id\\nclient\\nparent\\nworker", as in P exp), frees its
-- share of its client's bytes and of the orphans' budget, and publishes 'deleted'.
local function drop_task(p, channel, member)
  local id, ck, parent, worker = string.match(member, '^([^\\n]*)\\n([^\\n]*)\\n([^\\n]*)\\n([^\\n]*)$')
  redis.call('DEL', p .. 't:' .. id)
  redis.call('ZREM', p .. 'exp', member)
  redis.call('ZREM', p .. 'all', id)
  redis.call('ZREM', p .. 'c:' .. ck, id)
  if parent ~= '' then redis.call('ZREM', p .. 'p:' .. parent, id) end
  redis.call('ZREM', p .. 'live:' .. ck, id)
  if worker ~= '' then redis.call('SREM', p .. 'run:' .. worker, id) end
  local sizes = p .. 'sizes:' .. ck
  local size = redis.call('HGET', sizes, id)
  if size then
    redis.call('HDEL', sizes, id)
    if redis.call('HLEN', sizes) == 0 then
      redis.call('DEL', sizes, p .. 'held:' .. ck)
    else
      redis.call('DECRBY', p .. 'held:' .. ck, size)
    end
  end
  if redis.call('ZREM', p .. 'orphans', member) == 1 then
    local share = redis.call('HGET', p .. 'orphan-sizes', id) or '0'
    redis.call('HDEL', p .. 'orphan-sizes', id)
    if redis.call('ZCARD', p .. 'orphans') == 0 then
      redis.call('DEL', p .. 'orphan-sizes', p .. 'orphan-held')
    else
      redis.call('DECRBY', p .. 'orphan-held', share)
    end
  end
  redis.call('PUBLISH', channel, '{"t":"d","o":"","id":' .. cjson.encode(id) .. ',"ck":' .. cjson.encode(ck) .. '}')
end
`;

/**
 * ARGV: prefix, channel, origin, id, clientKey, maxLive, ttl, base, now, parent, worker,
 * maxRetainedTasks ('' = none), maxRetainedBytes ('' = none), size (the task's share of the bytes)
 * → 0 at the live limit, -1 at the retained-task limit, -2 at the retained-bytes limit (finished
 * tasks count, with their outcomes, until the reaper unindexes them), else the event.
 */
const CREATE = `
local p, channel, origin, id, ck = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local max, ttl, base, now, parent, worker = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9], ARGV[10], ARGV[11]
local ms = now_ms()
local live = p .. 'live:' .. ck
redis.call('ZREMRANGEBYSCORE', live, '-inf', ms)
if redis.call('ZCARD', live) >= max then return 0 end
if ARGV[12] ~= '' and redis.call('ZCARD', p .. 'c:' .. ck) >= tonumber(ARGV[12]) then return -1 end
local held, size = p .. 'held:' .. ck, tonumber(ARGV[14])
if ARGV[13] ~= '' and tonumber(redis.call('GET', held) or '0') + size > tonumber(ARGV[13]) then return -2 end
redis.call('INCRBY', held, size)
redis.call('HSET', p .. 'sizes:' .. ck, id, size)
local seq = redis.call('INCR', p .. 'seq')
local key = p .. 't:' .. id
local member = id .. '\\n' .. ck .. '\\n' .. parent .. '\\n' .. worker
redis.call('HSET', key, 'base', base, 'status', 'working', 'updated', now, 'seq', seq, 'client', ck,
  'worker', worker, 'parent', parent, 'ttl', ttl, 'member', member)
redis.call('PEXPIRE', key, ttl)
redis.call('ZADD', live, ms + ttl, id)
redis.call('ZADD', p .. 'exp', ms + ttl, member)
redis.call('ZADD', p .. 'all', seq, id)
redis.call('ZADD', p .. 'c:' .. ck, seq, id)
if parent ~= '' then redis.call('ZADD', p .. 'p:' .. parent, seq, id) end
if worker ~= '' then redis.call('SADD', p .. 'run:' .. worker, id) end
local event = status_event(origin, {base = base, status = 'working', msg = false, updated = now, ext = false, seq = seq}, true)
redis.call('PUBLISH', channel, event)
return event
`;

/**
 * ARGV: prefix, channel, origin, id, status, hasMessage ('1'|'0'), message, now, quiet ('1': not
 * published) → the event, or nil.
 */
const SET_STATUS = `
local p, channel, origin, id, status, has_msg, msg, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local key = p .. 't:' .. id
local h = load(key)
if not h or is_terminal(h.status) then return false end
set_status(key, h, status, has_msg == '1' and msg or nil, now)
local event = status_event(origin, h, false)
if ARGV[9] ~= '1' then redis.call('PUBLISH', channel, event) end
return event
`;

/** ARGV: prefix, channel, origin, id, status, hasMessage, message, now, outcome, outcome size → the event, or nil. */
const FINISH = `
local msg = false
if ARGV[6] == '1' then msg = ARGV[7] end
return finish_task(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], msg, ARGV[8], ARGV[9], tonumber(ARGV[10]))
`;

/** ARGV: prefix, id, ref. Never creates a task that is gone. */
const SET_EXTERNAL_REF = `
local key = ARGV[1] .. 't:' .. ARGV[2]
if redis.call('EXISTS', key) == 1 then redis.call('HSET', key, 'ext', ARGV[3]) end
return 1
`;

/**
 * ARGV: prefix, index key (after the prefix), after (a seq), limit, clientKey filter or ''.
 * Returns up to limit + 1 events in creation order; ids of expired tasks met on the way are
 * dropped from the index, so a list never shows a task that is gone.
 */
const LIST = `
local p, idx, after, limit, filter = ARGV[1], ARGV[1] .. ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local out = {}
local start = '(' .. after
while #out <= limit do
  local batch = redis.call('ZRANGEBYSCORE', idx, start, '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1 - #out)
  if #batch == 0 then break end
  for i = 1, #batch, 2 do
    local id = batch[i]
    start = '(' .. batch[i + 1]
    local h = load(p .. 't:' .. id)
    if not h then
      redis.call('ZREM', idx, id)
    elseif filter == '' or h.client == filter then
      out[#out + 1] = status_event('', h, false)
      if #out > limit then break end
    end
  end
end
return out
`;

/**
 * ARGV: prefix, channel, now, batch. Unindexes tasks whose key expired (publishing 'deleted'), and
 * fails the live tasks of every worker whose heartbeat lapsed. Returns {expired, failed, {worker, count, …}}.
 */
const REAP = `
local p, channel, now, batch = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local ms = now_ms()
local expired, failed, lapsed = 0, 0, {}
for _, member in ipairs(redis.call('ZRANGEBYSCORE', p .. 'exp', '-inf', ms, 'LIMIT', 0, batch)) do
  local key = p .. 't:' .. string.match(member, '^([^\\n]*)')
  local pttl = redis.call('PTTL', key)
  if pttl > 0 then
    redis.call('ZADD', p .. 'exp', ms + pttl, member)
  else
    drop_task(p, channel, member)
    expired = expired + 1
  end
end
local workers = redis.call('HGETALL', p .. 'workers')
for i = 1, #workers, 2 do
  local w, lease = workers[i], workers[i + 1]
  if redis.call('EXISTS', p .. 'hb:' .. w) == 0 then
    local msg = 'Worker ' .. w .. ' stopped responding (no heartbeat within its ' .. lease .. ' ms lease); the work of this task was lost'
    local outcome = '{"result":{"content":[{"type":"text","text":' .. cjson.encode('Task failed: ' .. msg) .. '}],"isError":true}}'
    local lost = 0
    for _, id in ipairs(redis.call('SMEMBERS', p .. 'run:' .. w)) do
      if finish_task(p, channel, '', id, 'failed', msg, now, outcome, #outcome) then lost = lost + 1 end
    end
    failed = failed + lost
    redis.call('DEL', p .. 'run:' .. w)
    redis.call('HDEL', p .. 'workers', w)
    if lost > 0 then
      table.insert(lapsed, w)
      table.insert(lapsed, lost)
    end
  end
end
return {expired, failed, lapsed}
`;

/**
 * ARGV: prefix, channel, origin, clientKey, maxTasks ('' = none), maxBytes ('' = none). The client's
 * HTTP session ended for good: its tasks join the orphans (once each, with their share of the
 * bytes as it stands), and while all orphans together are over the budget the oldest (by
 * creation) are deleted as if expired. Returns how many were deleted.
 */
const ORPHAN = `
local p, channel, ck = ARGV[1], ARGV[2], ARGV[4]
local orphans, shares, held = p .. 'orphans', p .. 'orphan-sizes', p .. 'orphan-held'
local ids = redis.call('ZRANGE', p .. 'c:' .. ck, 0, -1, 'WITHSCORES')
for i = 1, #ids, 2 do
  local id = ids[i]
  local member = redis.call('HGET', p .. 't:' .. id, 'member')
  if member and redis.call('ZADD', orphans, 'NX', ids[i + 1], member) == 1 then
    local size = redis.call('HGET', p .. 'sizes:' .. ck, id) or '0'
    redis.call('HSET', shares, id, size)
    redis.call('INCRBY', held, size)
  end
end
local max_tasks, max_bytes = math.huge, math.huge
if ARGV[5] ~= '' then max_tasks = tonumber(ARGV[5]) end
if ARGV[6] ~= '' then max_bytes = tonumber(ARGV[6]) end
local dropped = 0
while redis.call('ZCARD', orphans) > max_tasks or tonumber(redis.call('GET', held) or '0') > max_bytes do
  local oldest = redis.call('ZRANGE', orphans, 0, 0)[1]
  if not oldest then break end
  drop_task(p, channel, oldest)
  dropped = dropped + 1
end
return dropped
`;

/**
 * ARGV: prefix, worker, lease ms, incarnation. Renews the heartbeat in one step. Returns 1, or 0 when
 * another process has since claimed the worker id (its heartbeat is then kept alive, not taken back:
 * two processes under one id is a misconfiguration this process reports, not one it fights over).
 */
const HEARTBEAT = `
local hb = ARGV[1] .. 'hb:' .. ARGV[2]
local holder = redis.call('GET', hb)
redis.call('HSET', ARGV[1] .. 'workers', ARGV[2], ARGV[3])
if holder and holder ~= ARGV[4] then
  redis.call('PEXPIRE', hb, ARGV[3])
  return 0
end
redis.call('SET', hb, ARGV[4], 'PX', ARGV[3])
return 1
`;

/**
 * ARGV: prefix, channel, now, worker, lease ms, incarnation. A process starts under a worker id:
 * tasks still live under that id ran in an earlier process (this one has run nothing yet), which
 * is gone or going, so their work is lost: they fail now, not when a lease the new process keeps
 * renewing would lapse (never). Then the id's heartbeat holds this incarnation.
 * Returns {the ids failed, the incarnation that held the heartbeat, or false}.
 */
const CLAIM = `
local p, channel, now, w, lease, me = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local hb = p .. 'hb:' .. w
local before = redis.call('GET', hb)
local msg = 'Replica ' .. w .. ' restarted; the work of this task was lost with its previous process'
local outcome = '{"result":{"content":[{"type":"text","text":' .. cjson.encode('Task failed: ' .. msg) .. '}],"isError":true}}'
local failed = {}
for _, id in ipairs(redis.call('SMEMBERS', p .. 'run:' .. w)) do
  if finish_task(p, channel, '', id, 'failed', msg, now, outcome, #outcome) then table.insert(failed, id) end
end
redis.call('DEL', p .. 'run:' .. w)
redis.call('SET', hb, me, 'PX', lease)
redis.call('HSET', p .. 'workers', w, lease)
return {failed, before}
`;

/** ARGV: prefix, worker. A clean stop: with nothing left running the worker leaves at once; else the reaper fails what is left. */
const RETIRE = `
redis.call('DEL', ARGV[1] .. 'hb:' .. ARGV[2])
if redis.call('SCARD', ARGV[1] .. 'run:' .. ARGV[2]) == 0 then redis.call('HDEL', ARGV[1] .. 'workers', ARGV[2]) end
return 1
`;

export interface LuaScript {
    name: string;
    source: string;
    sha: string;
}

function script(name: string, body: string, withLibrary = true): LuaScript {
    const source = withLibrary ? LIBRARY + body : body;
    return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

export const SCRIPTS = {
    create: script('create', CREATE),
    setStatus: script('setStatus', SET_STATUS),
    finish: script('finish', FINISH),
    setExternalRef: script('setExternalRef', SET_EXTERNAL_REF, false),
    list: script('list', LIST),
    reap: script('reap', REAP),
    orphan: script('orphan', ORPHAN),
    heartbeat: script('heartbeat', HEARTBEAT, false),
    claim: script('claim', CLAIM),
    retire: script('retire', RETIRE, false),
} as const;
