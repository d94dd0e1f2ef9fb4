package frontier

import "github.com/redis/go-redis/v9"

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

// unstopScript: ARGV P, crawlid. Makes a stopped crawl active again (and
// expiring again, when it has an expiry).
var unstopScript = redis.NewScript(luaLib + `
local crawl = ARGV[2]
local ckey = F .. 'c:' .. crawl
if num(redis.call('HGET', ckey, 'state')) == 1 then
	redis.call('HSET', ckey, 'state', 0)
	local exp = num(redis.call('HGET', ckey, 'expires'))
	if exp > 0 then redis.call('ZADD', F .. 'expiring', exp, crawl) end
end
return 0
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
