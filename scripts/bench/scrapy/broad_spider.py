"""The Scrapy side of the broad-crawl benchmark (scripts/bench/broad.sh).

Crawls the broad-crawl shape of the demo site (demosite -broad-hosts N)
from the home pages in a seeds file, as scripts/bench/broad.yml does: each
home page to its pages, each page to its neighbours and to pages on other
hosts; one item (url, title, price) per page. Every host name resolves to
127.0.0.1 (LoopbackResolver). Settings: 64 requests at once, 2 per host
(CONCURRENT_REQUESTS_PER_DOMAIN), robots.txt obeyed, no retries, no
throttling. Scrapy's RobotsTxtMiddleware does not read Crawl-delay.

    PYTHONPATH=scripts/bench/scrapy python3 -m scrapy runspider broad_spider.py \\
        -s DNS_RESOLVER=broad_spider.LoopbackResolver \\
        -a seeds=seeds.txt -a stats=stats.json -O items.csv

(DNS_RESOLVER is read when the crawler process starts, before the spider's
custom_settings: it must be given on the command line.)
"""

import json
import re

import scrapy
from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer

PAGE = re.compile(r"/page/\d+\.html$")


class LoopbackResolver(CachingThreadedResolver):
    """Resolves every name to 127.0.0.1, as cfetch --resolve '*:PORT:127.0.0.1' does."""

    def getHostByName(self, name, timeout=None):
        return defer.succeed("127.0.0.1")


class BroadSpider(scrapy.Spider):
    name = "broad"
    custom_settings = {
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 2,
        "ROBOTSTXT_OBEY": True,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "RETRY_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "USER_AGENT": "crawlutils-bench-scrapy (+https://github.com/crawlutils/crawlutils)",
        "FEED_EXPORT_FIELDS": ["url", "title", "price"],
    }

    def __init__(self, seeds=None, stats=None, **kwargs):
        if not seeds:
            raise ValueError("give the seeds file with -a seeds=FILE")
        with open(seeds) as f:
            self.start_urls = [line.strip() for line in f if line.strip()]
        self.stats_file = stats
        super().__init__(**kwargs)

    def parse(self, response):
        if PAGE.search(response.url):
            yield {
                "url": response.url,
                "title": response.css("div.item h1::text").get("").strip(),
                "price": response.css("div.item p.price::text").get("").strip(),
            }
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            if PAGE.search(url):
                yield scrapy.Request(url, callback=self.parse)

    def closed(self, reason):
        if self.stats_file:
            with open(self.stats_file, "w") as f:
                json.dump(self.crawler.stats.get_stats(), f, default=str)
