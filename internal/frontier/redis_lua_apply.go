package frontier

import "github.com/redis/go-redis/v9"

// applyScript pushes entries, acks leases, fails leases, then releases
// leases. ARGV: P, now ms, now s, seen-set expiry (Unix ms, 0 none), lifo
// (0/1), number of entries, number of acks, seen-set key prefix, number of
// releases, number of fails; then 10 per entry: crawlid, appid, host,
// priority, expires, dont_filter (0/1), seen member, raw, seen-set name
// (SeenNamespace), the seen-set names that make it fresh (newline
// separated, see Entry.Fresh); then the acks,
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
	local o = base + (i - 1) * 10
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
		local sk = seenp .. ARGV[o + 9]
		if redis.call('SISMEMBER', sk, ARGV[o + 7]) == 1 then r = 'duplicate' end
		if r == '' then
			for fns in string.gmatch(ARGV[o + 10], '[^\n]+') do
				if redis.call('SISMEMBER', seenp .. fns, ARGV[o + 7]) == 1 then r = 'fresh' break end
			end
		end
		if r == '' then
			seen_touched[sk] = true
			redis.call('SADD', sk, ARGV[o + 7])
		end
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
	local id, nonce = string.match(ARGV[base + n * 10 + j], '^(%d+)%.(%x+)$')
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
		forget(id, qid)
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
	local o = base + n * 10 + na + (j - 1) * 2
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
		disown(id, qid)
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
	local id, nonce = string.match(ARGV[base + n * 10 + na + nf * 2 + j], '^(%d+)%.(%x+)$')
	if id and redis.call('HGET', F .. 'lease', id) == nonce and redis.call('ZREM', F .. 'inflight', id) == 1 then
		local qid, prio, m = parse_meta(redis.call('HGET', F .. 'meta', id))
		disown(id, qid)
		local qi = F .. 'qi:' .. qid
		redis.call('HINCRBY', qi, 'inflight', -1)
		count('inflight', -1)
		if num(redis.call('HGET', F .. 'c:' .. redis.call('HGET', qi, 'crawl'), 'state')) ~= 0 then
			forget(id, qid) -- its crawl was stopped or expired meanwhile
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
