package frontier

import "github.com/redis/go-redis/v9"

// popScript purges expired crawls, abandons the leases of dead consumers,
// reclaims expired leases, records the consumer's heartbeat, then pops up
// to max, or fewer to keep the consumer within its window.
// ARGV: P, now ms, now s, lease deadline ms, max, max expiries, max
// abandons, beat cutoff ms (a consumer whose last beat is before it is
// dead), consumer id ("" none), consumer JSON, window (0 none, -1
// full: hand out nothing), host window (0 none), number of gone
// consumers, floor (the lowest priority to hand out, "" none); then the
// ids of the consumers Go found gone; then max
// nonces; then the token of the consumer's last pop ("" unknown). Returns
// {{{id, nonce, raw, expiries, crawlid, host, priority}...}, held, done
// (0/1), given back (PopResult.GaveBack), the priority at the head of the
// ready queues after the pop ("-" none, "" unknown: a replay)}.
var popScript = redis.NewScript(luaLib + `
local nowms, nows, deadline, max, maxexp = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local maxab, cutoff, cid, cinfo = tonumber(ARGV[7]), ARGV[8], ARGV[9], ARGV[10]
local window, hostwin, ngone = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13])
local floor = tonumber(ARGV[14]) -- nil: none
local gone = {}
for i = 1, ngone do gone[i] = ARGV[14 + i] end
local nonces = 14 + ngone
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
	return {out, held, 0, 0, ''}
end
-- A consumer whose last pop Redis no longer has finds that Redis lost
-- writes: a server restarted from an append-only file without its tail
-- (an everysec fsync that a machine crash beat), a replica promoted
-- before it had them. The acks lost with them will never come again, and
-- the consumer's beats would keep their leases alive: it gives back what
-- it holds, leases kept (an ack still on its way is honoured until the
-- request is handed out again), and what was done since is done again.
-- A call's token is its first nonce; a retry of a call that ran finds
-- its own.
local gaveback = 0
if cid ~= '' then
	local prevpop, last = ARGV[#ARGV], redis.call('HGET', F .. 'lastpop', cid)
	if prevpop ~= '' and last ~= prevpop and last ~= ARGV[nonces + 1] then
		local a, d, x = abandon(cid, nowms, maxab)
		gaveback = a + d + x
	end
	redis.call('HSET', F .. 'lastpop', cid, ARGV[nonces + 1])
end
purge_expired(nows)
-- Dead consumers first: their leases are abandoned, not expired.
abandon_dead(cutoff, gone, cid, nowms, maxab)
reclaim(nowms, maxexp)
local held = 0
if cid ~= '' then
	beat(cid, cinfo, nowms)
	held = redis.call('SCARD', F .. 'held:' .. cid)
	if window ~= 0 then max = math.min(max, window - held) end
end
if window < 0 then max = 0 end -- full: hand out nothing (a shard of a split frontier)
local out, served, where = {}, {}, {}
-- serve hands out the head of queue qid, just taken out of ready, and
-- puts the queue back in ready behind every queue of its priority (a new
-- turn), at its new head's priority, if it has one: refresh_ready's work,
-- in fewer commands.
local function serve(qid)
	local qi = F .. 'qi:' .. qid
	local q = F .. 'q:' .. qid
	local h = redis.call('ZPOPMIN', q)
	if #h == 0 then -- cannot happen (ready holds non-empty queues only); never loop on it
		redis.call('HDEL', qi, 'rm')
		return
	end
	local id = id_of(h[1])
	local nonce = ARGV[nonces + #out + 1]
	redis.call('HSET', F .. 'lease', id, nonce)
	redis.call('ZADD', F .. 'inflight', deadline, id)
	if cid ~= '' then
		redis.call('HSET', F .. 'owner', id, cid)
		redis.call('SADD', F .. 'held:' .. cid, id)
		redis.call('HINCRBY', F .. 'heldq:' .. cid, qid, 1)
	end
	redis.call('HINCRBY', qi, 'inflight', 1)
	local turn = redis.call('INCR', F .. 'turn')
	local head = redis.call('ZRANGE', q, 0, 0, 'WITHSCORES')
	if #head == 0 then
		redis.call('HSET', qi, 'turn', turn)
		redis.call('HDEL', qi, 'rm')
	else
		local rm = string.format('%016x%016x', turn, tonumber(qid))
		redis.call('HSET', qi, 'turn', turn, 'rm', rm)
		redis.call('ZADD', F .. 'ready', head[2], rm)
	end
	local _, _, _, exp = parse_meta(redis.call('HGET', F .. 'meta', id))
	local w = where[qid]
	if not w then
		w = redis.call('HMGET', qi, 'crawl', 'host')
		where[qid] = w
	end
	out[#out + 1] = {id, nonce, redis.call('HGET', F .. 'raw', id), exp, w[1], w[2], -tonumber(h[2])}
	served[#served + 1] = string.format('%d,%s,%d;', id, qid, -tonumber(h[2]))
end
-- With a host window, a queue the consumer holds hostwin of is passed
-- over (it keeps its place in line): the next queue served is the first
-- ready one not passed over, among the first nskip + 1.
local capped = hostwin > 0 and cid ~= ''
local hq = F .. 'heldq:' .. cid
local skip, nskip = {}, 0
while #out < max do
	if not capped or nskip == 0 then
		-- The first of ready: highest priority, then lowest turn, then lowest QID.
		local r = redis.call('ZPOPMIN', F .. 'ready')
		if #r == 0 then break end
		if floor and -tonumber(r[2]) < floor then
			-- Below the floor: back in its place, and so is every later one.
			redis.call('ZADD', F .. 'ready', r[2], r[1])
			break
		end
		local qid = tostring(tonumber(string.sub(r[1], 17), 16))
		if capped and num(redis.call('HGET', hq, qid)) >= hostwin then
			-- At its window: back in its place, passed over from now on.
			redis.call('ZADD', F .. 'ready', r[2], r[1])
			skip[r[1]] = true
			nskip = 1
		else
			serve(qid)
		end
	else
		local r = redis.call('ZRANGE', F .. 'ready', 0, nskip)
		local pick, passed = nil, false
		for _, rm in ipairs(r) do
			if not skip[rm] then
				if num(redis.call('HGET', hq, tostring(tonumber(string.sub(rm, 17), 16)))) >= hostwin then
					skip[rm] = true
					nskip = nskip + 1
					passed = true
				else
					pick = rm
					break
				end
			end
		end
		if pick and floor and -tonumber(redis.call('ZSCORE', F .. 'ready', pick)) < floor then
			break -- below the floor, and so is every later one
		end
		if pick then
			redis.call('ZREM', F .. 'ready', pick)
			serve(tostring(tonumber(string.sub(pick, 17), 16)))
		elseif not passed then
			break
		end
	end
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
-- The priority now at the head of the ready queues ("-": none), which
-- a split frontier weighs its shards by (see Redis.popSplit).
local head = '-'
local hp = redis.call('ZRANGE', F .. 'ready', 0, 0, 'WITHSCORES')
if #hp > 0 then head = tostring(-tonumber(hp[2])) end
return {out, held, done, gaveback, head}
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
redis.call('HDEL', F .. 'lastpop', cid)
redis.call('ZREM', F .. 'beats', cid)
flush_stats()
return 0
`)
