package frontier

import "github.com/redis/go-redis/v9"

// The Redis frontier is a set of Lua scripts; Redis runs each atomically.
// Every script gets the key prefix P as ARGV[1] and names its keys from
// it; it is called with one key, F counts, as KEYS[1], which tells a
// cluster client where to send it. On one server P is the prefix itself
// ("crawlutils:"); on a Redis Cluster it carries a hash tag
// ("{crawlutils:}"), so every key below, and the seen sets, hash to the
// slot of KEYS[1] and the script runs whole on the node serving it
// (Redis 7 lets a script touch keys it did not declare when they are in
// the declared key's slot; one in another slot is an error, never a
// silent write elsewhere). With F = P + "f:", the keys are:
//
//	F seq, F qseq, F turn           counters: entry ids, queue ids, round-robin turns
//	F raw     HASH id → request JSON (without lease)
//	F meta    HASH id → "qid:prio:member:expiries"
//	F lease   HASH id → nonce of the current or last lease (16 hex digits)
//	F inflight ZSET id, score = lease deadline (Unix ms)
//	F dead    ZSET id, score = time it was dead-lettered (Unix ms)
//	F reason  HASH id → reason, for the dead entries a fail dead-lettered
//	          (the others' reason follows from their counters)
//	F q:QID   ZSET of a queue's queued entries: member = 16 hex digits of
//	          the id (FIFO) or of 2^53 - id (LIFO), score = -priority, so
//	          ZPOPMIN takes the highest priority, then the lowest member
//	F qi:QID  HASH crawl, host, inflight, dead, turn, rm (its member in ready)
//	F qid     HASH "len(crawlid):crawlid" + host → QID
//	F ready   ZSET of the non-empty queues: member = 16 hex digits of the
//	          queue's turn, then 16 of its QID; score = -(head priority), so
//	          the first member is the next queue to serve: highest priority,
//	          lowest turn, lowest QID, exactly as SQLite orders them
//	F abandons HASH id → times a dead consumer held it (absent when 0)
//	F owner   HASH id → id of the consumer holding it, only while it is in
//	          flight and was popped by a consumer
//	F held:CID SET of the ids consumer CID holds (its F owner entries)
//	F consumers HASH consumer id → JSON {host, pid, boot}
//	F beats   ZSET consumer id, score = its last heartbeat (Unix ms); the
//	          same members as F consumers
//	F counts  HASH queued, inflight, dead
//	F stats   HASH the Stat counters
//	F crawls  SET of crawlids
//	F c:CRAWLID  HASH appid, expires, state (0 active, 1 stopped, 2 expired), purged, notified
//	F cq:CRAWLID SET of the crawl's QIDs
//	F expiring ZSET crawlid, score = expires (Unix s), active crawls only
//	F expired SET of crawls expired and not yet reported by Expire
//	F cm:CRAWLID HASH the crawl's metadata (CrawlMeta), key → value
//	F replay:TOKEN STRING the answer of one pop or push call, kept
//	          REPLAY_MS (two minutes): run again with the same arguments
//	          (a retry after its answer was lost, or a command that reached
//	          the server late), the call answers it again and changes
//	          nothing. A pop's token is its first nonce, and it keeps
//	          "id,qid,priority;" per request it leased; a push's, a random
//	          one, keeps its answer as JSON
//
// and the duplicate filter's sets, P + "seen:" + crawlid (see package
// dedupe). Every step that takes an entry out of flight (ack, fail,
// release, reclaim, abandon) clears its F owner and F held:CID
// membership; only queued entries are purged (stop, expiry). A script that
// fails midway is not rolled back by Redis, so the Go side validates
// everything a script could choke on first.
const luaLib = `
local P = ARGV[1]
local F = P .. 'f:'
local stats = {}
local touched = {}
local function num(x) return tonumber(x) or 0 end
-- How long a call's answer is kept to answer it again (the retry of a
-- call whose answer was lost), in ms.
local REPLAY_MS = 120000
local function stat(k, d) stats[k] = (stats[k] or 0) + d end
local function flush_stats()
	for k, d in pairs(stats) do
		if d ~= 0 then redis.call('HINCRBY', F .. 'stats', k, d) end
	end
end
local function count(k, d)
	if d ~= 0 then redis.call('HINCRBY', F .. 'counts', k, d) end
end

local TWO53 = 9007199254740992
local TWO52 = 4503599627370496
local function member_of(id, lifo)
	if lifo then return string.format('%016x', TWO53 - id) end
	return string.format('%016x', id)
end
local function id_of(m)
	local n = tonumber(m, 16)
	if n >= TWO52 then return TWO53 - n end
	return n
end
local function parse_meta(meta)
	local qid, prio, m, exp = string.match(meta, '^([^:]+):([^:]+):([^:]+):(%d+)$')
	return qid, tonumber(prio), m, tonumber(exp)
end

-- refresh_ready puts queue qid in the ready set at its head's priority,
-- keeping its turn, or takes it out when it is empty.
local function refresh_ready(qid)
	local qi = F .. 'qi:' .. qid
	local rm = redis.call('HGET', qi, 'rm')
	local head = redis.call('ZRANGE', F .. 'q:' .. qid, 0, 0, 'WITHSCORES')
	if #head == 0 then
		if rm then
			redis.call('ZREM', F .. 'ready', rm)
			redis.call('HDEL', qi, 'rm')
		end
		return
	end
	if not rm then
		rm = string.format('%016x%016x', num(redis.call('HGET', qi, 'turn')), tonumber(qid))
		redis.call('HSET', qi, 'rm', rm)
	end
	redis.call('ZADD', F .. 'ready', head[2], rm)
end
local function refresh_touched()
	for qid in pairs(touched) do refresh_ready(qid) end
	touched = {}
end

-- disown: entry id is no longer held by a consumer.
local function disown(id)
	local c = redis.call('HGET', F .. 'owner', id)
	if c then
		redis.call('HDEL', F .. 'owner', id)
		redis.call('SREM', F .. 'held:' .. c, id)
	end
end

-- forget deletes entry id.
local function forget(id)
	disown(id)
	redis.call('HDEL', F .. 'raw', id)
	redis.call('HDEL', F .. 'meta', id)
	redis.call('HDEL', F .. 'lease', id)
	redis.call('HDEL', F .. 'abandons', id)
end

-- forget_queued deletes the queued entries ids (held by no consumer).
local function forget_queued(ids)
	for _, h in ipairs({'raw', 'meta', 'lease', 'abandons'}) do
		redis.call('HDEL', F .. h, unpack(ids))
	end
end

-- purge_crawl deletes the queued entries of a crawl; returns how many.
local function purge_crawl(crawl)
	local n = 0
	for _, qid in ipairs(redis.call('SMEMBERS', F .. 'cq:' .. crawl)) do
		local qkey = F .. 'q:' .. qid
		while true do
			local ms = redis.call('ZRANGE', qkey, 0, 999)
			if #ms == 0 then break end
			local ids = {}
			for i, m in ipairs(ms) do ids[i] = id_of(m) end
			forget_queued(ids)
			redis.call('ZREMRANGEBYRANK', qkey, 0, #ms - 1)
			n = n + #ms
		end
		refresh_ready(qid)
	end
	count('queued', -n)
	return n
end

-- purge_expired purges the active crawls whose expires has passed.
local function purge_expired(nows)
	for _, crawl in ipairs(redis.call('ZRANGEBYSCORE', F .. 'expiring', '-inf', nows)) do
		local ckey = F .. 'c:' .. crawl
		if num(redis.call('HGET', ckey, 'state')) == 0 then
			local n = purge_crawl(crawl)
			redis.call('HSET', ckey, 'state', 2, 'purged', n, 'notified', 0)
			redis.call('SADD', F .. 'expired', crawl)
			stat('purged_expired', n)
		end
		redis.call('ZREM', F .. 'expiring', crawl)
	end
end

-- reclaim handles the leases expired at nowms.
local function reclaim(nowms, maxexp)
	local req, dead, dropped = 0, 0, 0
	while true do
		local ids = redis.call('ZRANGEBYSCORE', F .. 'inflight', '-inf', nowms, 'LIMIT', 0, 500)
		if #ids == 0 then break end
		for _, id in ipairs(ids) do
			redis.call('ZREM', F .. 'inflight', id)
			local qid, prio, m, exp = parse_meta(redis.call('HGET', F .. 'meta', id))
			exp = exp + 1
			local qi = F .. 'qi:' .. qid
			redis.call('HINCRBY', qi, 'inflight', -1)
			local crawl = redis.call('HGET', qi, 'crawl')
			if num(redis.call('HGET', F .. 'c:' .. crawl, 'state')) ~= 0 then
				forget(id)
				dropped = dropped + 1
			elseif maxexp > 0 and exp >= maxexp then
				disown(id)
				redis.call('ZADD', F .. 'dead', nowms, id)
				redis.call('HINCRBY', qi, 'dead', 1)
				redis.call('HSET', F .. 'meta', id, qid .. ':' .. prio .. ':' .. m .. ':' .. exp)
				dead = dead + 1
			else
				disown(id)
				redis.call('ZADD', F .. 'q:' .. qid, -prio, m)
				redis.call('HSET', F .. 'meta', id, qid .. ':' .. prio .. ':' .. m .. ':' .. exp)
				touched[qid] = true
				req = req + 1
			end
		end
	end
	count('inflight', -(req + dead + dropped))
	count('queued', req)
	count('dead', dead)
	stat('requeued', req)
	stat('dead_lettered', dead)
	stat('dropped', dropped)
	refresh_touched()
	return {req, dead, dropped}
end

-- abandon returns the entries consumer cid holds to their queue with
-- abandons + 1 and no retry counted, keeping the lease nonce (a late ack
-- is honoured until the entry is handed out again); one abandoned maxab
-- times is dead-lettered, one of a stopped or expired crawl dropped.
-- Returns abandoned, dead-lettered, dropped.
local function abandon(cid, nowms, maxab)
	local ab, dead, dropped = 0, 0, 0
	local hk = F .. 'held:' .. cid
	for _, id in ipairs(redis.call('SMEMBERS', hk)) do
		redis.call('HDEL', F .. 'owner', id)
		if redis.call('ZREM', F .. 'inflight', id) == 1 then
			local qid, prio, m = parse_meta(redis.call('HGET', F .. 'meta', id))
			local qi = F .. 'qi:' .. qid
			redis.call('HINCRBY', qi, 'inflight', -1)
			if num(redis.call('HGET', F .. 'c:' .. redis.call('HGET', qi, 'crawl'), 'state')) ~= 0 then
				forget(id)
				dropped = dropped + 1
			else
				local n = redis.call('HINCRBY', F .. 'abandons', id, 1)
				if maxab > 0 and n >= maxab then
					redis.call('ZADD', F .. 'dead', nowms, id)
					redis.call('HINCRBY', qi, 'dead', 1)
					dead = dead + 1
				else
					redis.call('ZADD', F .. 'q:' .. qid, -prio, m)
					touched[qid] = true
					ab = ab + 1
				end
			end
		end
	end
	redis.call('DEL', hk)
	count('inflight', -(ab + dead + dropped))
	count('queued', ab)
	count('dead', dead)
	stat('abandoned', ab)
	stat('dead_lettered', dead)
	stat('dropped', dropped)
	refresh_touched()
	return ab, dead, dropped
end

-- abandon_dead declares dead the consumers whose last beat is before
-- cutoff (Unix ms, a string) and those in gone (whose process Go found
-- gone), never self; abandons their leases and unregisters them. Returns
-- abandoned, dead-lettered, dropped.
local function abandon_dead(cutoff, gone, self, nowms, maxab)
	local list, seen = {}, {}
	local function add(cid)
		if cid ~= self and not seen[cid] then
			seen[cid] = true
			list[#list + 1] = cid
		end
	end
	for _, cid in ipairs(redis.call('ZRANGEBYSCORE', F .. 'beats', '-inf', '(' .. cutoff)) do add(cid) end
	for _, cid in ipairs(gone) do
		if redis.call('ZSCORE', F .. 'beats', cid) then add(cid) end
	end
	local ab, dead, dropped = 0, 0, 0
	for _, cid in ipairs(list) do
		local a, d, x = abandon(cid, nowms, maxab)
		ab, dead, dropped = ab + a, dead + d, dropped + x
		redis.call('HDEL', F .. 'consumers', cid)
		redis.call('ZREM', F .. 'beats', cid)
	end
	stat('consumers_died', #list)
	return ab, dead, dropped
end

-- beat registers consumer cid (info: its JSON) or records its heartbeat.
local function beat(cid, info, nowms)
	redis.call('HSETNX', F .. 'consumers', cid, info)
	redis.call('ZADD', F .. 'beats', nowms, cid)
end
`

// applyScript pushes entries, acks leases, fails leases, then releases
// leases. ARGV: P, now ms, now s, seen-set expiry (Unix ms, 0 none), lifo
// (0/1), number of entries, number of acks, seen-set key prefix, number of
// releases, number of fails; then 8 per entry: crawlid, appid, host,
// priority, expires, dont_filter (0/1), seen member, raw; then the acks,
// then 2 per fail: lease, reason; then the releases. Returns {reasons (""
// = queued), acked, ack unknown, released, release unknown, failed, fail
// unknown}.
var applyScript = redis.NewScript(luaLib + `
local nowms, nows, seenexp, lifo = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1'
local n, na, seenp, nr, nf = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
-- A call run a second time (a retry after the answer was lost, or a
-- command that reached the server late) answers what the first run did,
-- changing nothing: ARGV[11] names the call.
local rkey = F .. 'replay:' .. ARGV[11]
local prev = redis.call('GET', rkey)
if prev then return cjson.decode(prev) end
local base = 11
local results, seen_touched, pushed = {}, {}, 0
for i = 1, n do
	local o = base + (i - 1) * 8
	local crawl, appid, host = ARGV[o + 1], ARGV[o + 2], ARGV[o + 3]
	local prio, expires, dontf = tonumber(ARGV[o + 4]), tonumber(ARGV[o + 5]), ARGV[o + 6] == '1'
	local ckey = F .. 'c:' .. crawl
	local state = num(redis.call('HGET', ckey, 'state'))
	local r = ''
	if state == 1 then
		r = 'stopped'
	elseif expires > 0 and expires <= nows then
		r = 'expired'
	elseif not dontf then
		local sk = seenp .. crawl
		seen_touched[sk] = true
		if redis.call('SADD', sk, ARGV[o + 7]) == 0 then r = 'duplicate' end
	end
	results[i] = r
	if r ~= '' then
		stat('refused_' .. r, 1)
	else
		if redis.call('SADD', F .. 'crawls', crawl) == 1 then
			redis.call('HSET', ckey, 'appid', appid, 'expires', 0, 'state', 0)
		elseif state == 2 then
			redis.call('HSET', ckey, 'state', 0, 'purged', 0, 'notified', 0, 'expires', 0)
			redis.call('SREM', F .. 'expired', crawl)
		end
		if appid ~= '' and (redis.call('HGET', ckey, 'appid') or '') == '' then
			redis.call('HSET', ckey, 'appid', appid)
		end
		if expires > num(redis.call('HGET', ckey, 'expires')) then
			redis.call('HSET', ckey, 'expires', expires)
			redis.call('ZADD', F .. 'expiring', expires, crawl)
		end
		local qname = string.len(crawl) .. ':' .. crawl .. host
		local qid = redis.call('HGET', F .. 'qid', qname)
		if not qid then
			qid = tostring(redis.call('INCR', F .. 'qseq'))
			redis.call('HSET', F .. 'qid', qname, qid)
			redis.call('HSET', F .. 'qi:' .. qid, 'crawl', crawl, 'host', host, 'inflight', 0, 'dead', 0,
				'turn', num(redis.call('GET', F .. 'turn')))
			redis.call('SADD', F .. 'cq:' .. crawl, qid)
		end
		local id = redis.call('INCR', F .. 'seq')
		local m = member_of(id, lifo)
		redis.call('ZADD', F .. 'q:' .. qid, -prio, m)
		redis.call('HSET', F .. 'raw', id, ARGV[o + 8])
		redis.call('HSET', F .. 'meta', id, qid .. ':' .. prio .. ':' .. m .. ':0')
		touched[qid] = true
		pushed = pushed + 1
	end
end
if seenexp > 0 then
	for sk in pairs(seen_touched) do redis.call('PEXPIREAT', sk, seenexp) end
end
count('queued', pushed)
stat('pushed', pushed)

local acked, unknown = 0, 0
for j = 1, na do
	local id, nonce = string.match(ARGV[base + n * 8 + j], '^(%d+)%.(%x+)$')
	local meta = nil
	if id and redis.call('HGET', F .. 'lease', id) == nonce then
		meta = redis.call('HGET', F .. 'meta', id)
	end
	if meta then
		local qid, prio, m = parse_meta(meta)
		local qi = F .. 'qi:' .. qid
		if redis.call('ZREM', F .. 'inflight', id) == 1 then
			redis.call('HINCRBY', qi, 'inflight', -1)
			count('inflight', -1)
		elseif redis.call('ZREM', F .. 'dead', id) == 1 then
			redis.call('HINCRBY', qi, 'dead', -1)
			redis.call('HDEL', F .. 'reason', id)
			count('dead', -1)
		elseif redis.call('ZREM', F .. 'q:' .. qid, m) == 1 then
			count('queued', -1)
			touched[qid] = true
		end
		forget(id)
		acked = acked + 1
	else
		unknown = unknown + 1
	end
end
stat('acked', acked)
stat('ack_unknown', unknown)

-- A fail dead-letters what an ack would finish, unless it is dead already.
local failed, funknown = 0, 0
for j = 1, nf do
	local o = base + n * 8 + na + (j - 1) * 2
	local id, nonce = string.match(ARGV[o + 1], '^(%d+)%.(%x+)$')
	local meta = nil
	if id and redis.call('HGET', F .. 'lease', id) == nonce and not redis.call('ZSCORE', F .. 'dead', id) then
		meta = redis.call('HGET', F .. 'meta', id)
	end
	if meta then
		local qid, prio, m = parse_meta(meta)
		local qi = F .. 'qi:' .. qid
		if redis.call('ZREM', F .. 'inflight', id) == 1 then
			redis.call('HINCRBY', qi, 'inflight', -1)
			count('inflight', -1)
		elseif redis.call('ZREM', F .. 'q:' .. qid, m) == 1 then
			count('queued', -1)
			touched[qid] = true
		end
		disown(id)
		redis.call('ZADD', F .. 'dead', nowms, id)
		redis.call('HINCRBY', qi, 'dead', 1)
		redis.call('HSET', F .. 'reason', id, ARGV[o + 2])
		count('dead', 1)
		failed = failed + 1
	else
		funknown = funknown + 1
	end
end
stat('failed', failed)
stat('fail_unknown', funknown)

local released, runknown = 0, 0
for j = 1, nr do
	local id, nonce = string.match(ARGV[base + n * 8 + na + nf * 2 + j], '^(%d+)%.(%x+)$')
	if id and redis.call('HGET', F .. 'lease', id) == nonce and redis.call('ZREM', F .. 'inflight', id) == 1 then
		disown(id)
		local qid, prio, m = parse_meta(redis.call('HGET', F .. 'meta', id))
		local qi = F .. 'qi:' .. qid
		redis.call('HINCRBY', qi, 'inflight', -1)
		count('inflight', -1)
		if num(redis.call('HGET', F .. 'c:' .. redis.call('HGET', qi, 'crawl'), 'state')) ~= 0 then
			forget(id) -- its crawl was stopped or expired meanwhile
			stat('dropped', 1)
		else
			redis.call('ZADD', F .. 'q:' .. qid, -prio, m)
			redis.call('HDEL', F .. 'lease', id)
			count('queued', 1)
			touched[qid] = true
		end
		released = released + 1
	else
		runknown = runknown + 1
	end
end
stat('released', released)
refresh_touched()
flush_stats()
local answer = {results, acked, unknown, released, runknown, failed, funknown}
redis.call('SET', rkey, cjson.encode(answer), 'PX', REPLAY_MS)
return answer
`)

// popScript purges expired crawls, abandons the leases of dead consumers,
// reclaims expired leases, records the consumer's heartbeat, then pops up
// to max, or fewer to keep the consumer within its window.
// ARGV: P, now ms, now s, lease deadline ms, max, max expiries, max
// abandons, beat cutoff ms (a consumer whose last beat is before it is
// dead), consumer id ("" none), consumer JSON, window (0 none), number of
// gone consumers; then the ids of the consumers Go found gone; then max
// nonces. Returns {{{id, nonce, raw, expiries, crawlid, host, priority}...},
// held, done (0/1)}.
var popScript = redis.NewScript(luaLib + `
local nowms, nows, deadline, max, maxexp = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local maxab, cutoff, cid, cinfo = tonumber(ARGV[7]), ARGV[8], ARGV[9], ARGV[10]
local window, ngone = tonumber(ARGV[11]), tonumber(ARGV[12])
local gone = {}
for i = 1, ngone do gone[i] = ARGV[12 + i] end
local nonces = 12 + ngone
-- A call run a second time (a retry after the answer was lost, or a
-- command that reached the server late) answers what the first run
-- leased, changing nothing: the call's first nonce names it (see replay).
local rkey = F .. 'replay:' .. ARGV[nonces + 1]
local prev = redis.call('GET', rkey)
if prev then
	local out = {}
	local i = 0
	for id, qid, prio in string.gmatch(prev, '(%d+),([^,;]+),([^;]+);') do
		i = i + 1
		local nonce = ARGV[nonces + i]
		if redis.call('HGET', F .. 'lease', id) == nonce then
			local _, _, _, exp = parse_meta(redis.call('HGET', F .. 'meta', id))
			local where = redis.call('HMGET', F .. 'qi:' .. qid, 'crawl', 'host')
			out[#out + 1] = {tonumber(id), nonce, redis.call('HGET', F .. 'raw', id), exp, where[1], where[2], tonumber(prio)}
		end
	end
	local held = 0
	if cid ~= '' then held = redis.call('SCARD', F .. 'held:' .. cid) end
	return {out, held, 0}
end
purge_expired(nows)
-- Dead consumers first: their leases are abandoned, not expired.
abandon_dead(cutoff, gone, cid, nowms, maxab)
reclaim(nowms, maxexp)
local held = 0
if cid ~= '' then
	beat(cid, cinfo, nowms)
	held = redis.call('SCARD', F .. 'held:' .. cid)
	if window > 0 then max = math.min(max, window - held) end
end
local out, served = {}, {}
-- serve hands out the head of the queue whose ready member is rm.
local function serve(rm)
	local qid = tostring(tonumber(string.sub(rm, 17), 16))
	local qi = F .. 'qi:' .. qid
	local h = redis.call('ZPOPMIN', F .. 'q:' .. qid)
	redis.call('ZREM', F .. 'ready', rm)
	redis.call('HDEL', qi, 'rm')
	if #h == 0 then return end -- cannot happen (refresh_ready keeps ready exact); never loop on it
	local id = id_of(h[1])
	local nonce = ARGV[nonces + #out + 1]
	redis.call('HSET', F .. 'lease', id, nonce)
	redis.call('ZADD', F .. 'inflight', deadline, id)
	if cid ~= '' then
		redis.call('HSET', F .. 'owner', id, cid)
		redis.call('SADD', F .. 'held:' .. cid, id)
	end
	redis.call('HINCRBY', qi, 'inflight', 1)
	redis.call('HSET', qi, 'turn', redis.call('INCR', F .. 'turn'))
	refresh_ready(qid)
	local _, _, _, exp = parse_meta(redis.call('HGET', F .. 'meta', id))
	local where = redis.call('HMGET', qi, 'crawl', 'host')
	out[#out + 1] = {id, nonce, redis.call('HGET', F .. 'raw', id), exp, where[1], where[2], -tonumber(h[2])}
	served[#served + 1] = string.format('%d,%s,%d;', id, qid, -tonumber(h[2]))
end
while #out < max do
	local r = redis.call('ZRANGE', F .. 'ready', 0, 0)
	if #r == 0 then break end
	serve(r[1])
end
if cid ~= '' then held = held + #out end
local done = 0
if #out == 0 then
	local c = redis.call('HMGET', F .. 'counts', 'queued', 'inflight')
	if num(c[1]) == 0 and num(c[2]) == 0 then done = 1 end
end
count('queued', -#out)
count('inflight', #out)
stat('popped', #out)
flush_stats()
if #out > 0 then redis.call('SET', rkey, table.concat(served), 'PX', REPLAY_MS) end
return {out, held, done}
`)

// reclaimScript abandons the leases of dead consumers, then reclaims
// expired leases. ARGV: P, now ms, max expiries, max abandons, beat cutoff
// ms; then the ids of the consumers Go found gone. Returns {requeued,
// dead-lettered, dropped, abandoned}.
var reclaimScript = redis.NewScript(luaLib + `
local nowms, maxexp, maxab, cutoff = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local gone = {}
for i = 6, #ARGV do gone[#gone + 1] = ARGV[i] end
local ab, dead, dropped = abandon_dead(cutoff, gone, '', nowms, maxab)
local r = reclaim(nowms, maxexp)
flush_stats()
return {r[1], r[2] + dead, r[3] + dropped, ab}
`)

// joinScript registers a consumer. ARGV: P, now ms, consumer id, consumer
// JSON.
var joinScript = redis.NewScript(luaLib + `
redis.call('HSET', F .. 'consumers', ARGV[3], ARGV[4])
redis.call('ZADD', F .. 'beats', tonumber(ARGV[2]), ARGV[3])
return 0
`)

// beatScript records a consumer's heartbeat (registering it again if it
// was declared dead) and moves the deadlines of the leases it holds.
// ARGV: P, now ms, consumer id, consumer JSON, lease deadline ms. Returns
// how many requests it holds.
var beatScript = redis.NewScript(luaLib + `
local cid = ARGV[3]
beat(cid, ARGV[4], tonumber(ARGV[2]))
local ids = redis.call('SMEMBERS', F .. 'held:' .. cid)
for _, id in ipairs(ids) do redis.call('ZADD', F .. 'inflight', 'XX', ARGV[5], id) end
return #ids
`)

// leaveScript abandons the leases of a consumer and unregisters it. ARGV:
// P, now ms, consumer id, max abandons.
var leaveScript = redis.NewScript(luaLib + `
local cid = ARGV[3]
abandon(cid, tonumber(ARGV[2]), tonumber(ARGV[4]))
redis.call('HDEL', F .. 'consumers', cid)
redis.call('ZREM', F .. 'beats', cid)
flush_stats()
return 0
`)

// expireScript: ARGV P, now s. Returns {crawlid, appid, expires, purged}
// per crawl expired since the last call.
var expireScript = redis.NewScript(luaLib + `
purge_expired(tonumber(ARGV[2]))
local out = {}
for _, crawl in ipairs(redis.call('SMEMBERS', F .. 'expired')) do
	local ckey = F .. 'c:' .. crawl
	local c = redis.call('HMGET', ckey, 'appid', 'expires', 'purged')
	out[#out + 1] = {crawl, c[1] or '', num(c[2]), num(c[3])}
	redis.call('HSET', ckey, 'notified', 1)
end
redis.call('DEL', F .. 'expired')
flush_stats()
return out
`)

// stopScript: ARGV P, crawlid. Returns how many requests it purged.
var stopScript = redis.NewScript(luaLib + `
local crawl = ARGV[2]
local ckey = F .. 'c:' .. crawl
local n = 0
if redis.call('SADD', F .. 'crawls', crawl) == 1 then
	redis.call('HSET', ckey, 'appid', '', 'expires', 0, 'state', 1)
else
	n = purge_crawl(crawl)
	redis.call('HSET', ckey, 'state', 1)
	redis.call('ZREM', F .. 'expiring', crawl)
	redis.call('SREM', F .. 'expired', crawl)
end
stat('purged_stopped', n)
flush_stats()
return n
`)

// infoScript: ARGV P, appid filter, crawlid filter ("" = all). Returns per
// crawl {crawlid, appid, expires, state, {{host, pending, in flight, dead,
// high, low}...}}.
var infoScript = redis.NewScript(luaLib + `
local appf, crawlf = ARGV[2], ARGV[3]
local list
if crawlf ~= '' then list = {crawlf} else list = redis.call('SMEMBERS', F .. 'crawls') end
local out = {}
for _, crawl in ipairs(list) do
	local c = redis.call('HMGET', F .. 'c:' .. crawl, 'appid', 'expires', 'state')
	if c[3] and (appf == '' or c[1] == appf) then
		local hosts = {}
		for _, qid in ipairs(redis.call('SMEMBERS', F .. 'cq:' .. crawl)) do
			local qkey = F .. 'q:' .. qid
			local qi = redis.call('HMGET', F .. 'qi:' .. qid, 'host', 'inflight', 'dead')
			local pending = redis.call('ZCARD', qkey)
			if pending + num(qi[2]) + num(qi[3]) > 0 then
				local high, low = 0, 0
				if pending > 0 then
					high = -tonumber(redis.call('ZRANGE', qkey, 0, 0, 'WITHSCORES')[2])
					low = -tonumber(redis.call('ZRANGE', qkey, -1, -1, 'WITHSCORES')[2])
				end
				hosts[#hosts + 1] = {qi[1], pending, num(qi[2]), num(qi[3]), high, low}
			end
		end
		out[#out + 1] = {crawl, c[1] or '', num(c[2]), num(c[3]), hosts}
	end
end
return out
`)
