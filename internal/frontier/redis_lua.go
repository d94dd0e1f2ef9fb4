package frontier

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
//	F heldq:CID HASH QID → how many of them are of queue QID (absent
//	          when none), for the host window (PopOptions.HostWindow)
//	F consumers HASH consumer id → JSON {host, pid, boot}
//	F beats   ZSET consumer id, score = its last heartbeat (Unix ms); the
//	          same members as F consumers
//	F lastpop HASH consumer id → token of its last pop, which its next
//	          pop names: one Redis no longer has tells the consumer that
//	          Redis lost writes (see popScript)
//	F counts  HASH queued, inflight, dead
//	F stats   HASH the Stat counters
//	F crawls  SET of crawlids
//	F c:CRAWLID  HASH appid, expires, state (0 active, 1 stopped, 2 expired), purged, notified
//	F cq:CRAWLID SET of the crawl's QIDs
//	F expiring ZSET crawlid, score = expires (Unix s), active crawls only
//	F expired SET of crawls expired and not yet reported by Expire
//	F cm:CRAWLID HASH the crawl's metadata (CrawlMeta), key → value
//	F cc:TOKEN STRING one AddCrawlCounts call done, kept REPLAY_MS
//	F replay:TOKEN STRING the answer of one pop or push call, kept
//	          REPLAY_MS (two minutes): run again with the same arguments
//	          (a retry after its answer was lost, or a command that reached
//	          the server late), the call answers it again and changes
//	          nothing. A pop's token is its first nonce, and it keeps
//	          "id,qid,priority;" per request it leased; a push's, a random
//	          one, keeps its answer as JSON
//
// and the duplicate filter's sets, P + "seen:" + crawlid (see package
// dedupe), and the tools' stats, F tools and F tools:ID (see package
// toolstats). Every step that takes an entry out of flight (ack, fail,
// release, reclaim, abandon) clears its F owner and F held:CID
// membership, and counts it out of F heldq:CID; only queued entries are purged (stop, expiry). A script that
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

-- disown: entry id (of queue qid; nil: read from its meta) is no longer
-- held by a consumer.
local function disown(id, qid)
	local c = redis.call('HGET', F .. 'owner', id)
	if c then
		redis.call('HDEL', F .. 'owner', id)
		redis.call('SREM', F .. 'held:' .. c, id)
		if not qid then qid = parse_meta(redis.call('HGET', F .. 'meta', id)) end
		local hq = F .. 'heldq:' .. c
		if redis.call('HINCRBY', hq, qid, -1) <= 0 then redis.call('HDEL', hq, qid) end
	end
end

-- forget deletes entry id (of queue qid; nil: read from its meta).
local function forget(id, qid)
	disown(id, qid)
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
				forget(id, qid)
				dropped = dropped + 1
			elseif maxexp > 0 and exp >= maxexp then
				disown(id, qid)
				redis.call('ZADD', F .. 'dead', nowms, id)
				redis.call('HINCRBY', qi, 'dead', 1)
				redis.call('HSET', F .. 'meta', id, qid .. ':' .. prio .. ':' .. m .. ':' .. exp)
				dead = dead + 1
			else
				disown(id, qid)
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
				forget(id, qid)
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
	redis.call('DEL', hk, F .. 'heldq:' .. cid)
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
		redis.call('HDEL', F .. 'lastpop', cid)
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
