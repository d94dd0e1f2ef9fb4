"""The Scrapy side of cfetch's benchmark (scripts/bench/fetch.sh).

Fetches every URL of a file, one per line, and yields each response's URL
and status: no parsing, so that only Scrapy's downloader is measured. The
settings mirror cfetch's run: 16 requests at once, all on one host, robots.txt
obeyed, cookies kept, redirects and retries as Scrapy's defaults.

    python3 -m scrapy runspider urls_spider.py -a urls=urls.txt -O out.jsonl
"""

import scrapy


class URLsSpider(scrapy.Spider):
    name = "urls"
    custom_settings = {
        "CONCURRENT_REQUESTS": 16,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 16,
        "ROBOTSTXT_OBEY": True,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "HTTPERROR_ALLOW_ALL": True,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "USER_AGENT": "crawlutils-bench-scrapy (+https://github.com/crawlutils/crawlutils)",
    }

    def __init__(self, urls=None, **kwargs):
        super().__init__(**kwargs)
        if not urls:
            raise ValueError("give the URL file with -a urls=FILE")
        self.urls_file = urls

    def start_requests(self):
        with open(self.urls_file) as f:
            for line in f:
                url = line.strip()
                if url:
                    yield scrapy.Request(url, callback=self.parse, errback=self.failed, dont_filter=True)

    def parse(self, response):
        yield {"url": response.url, "status": response.status}

    def failed(self, failure):
        yield {"url": failure.request.url, "error": repr(failure.value)}
