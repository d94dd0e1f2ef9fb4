#!/usr/bin/python3
"""Regenerate requests.seen and requests-2.6.seen: what Scrapy 2.8's
RFPDupeFilter writes in a JOBDIR for the requests in seen_urls.txt (one
"METHOD URL" per line), with REQUEST_FINGERPRINTER_IMPLEMENTATION "2.7"
(the only one since Scrapy 2.12) and "2.6" (the default of 2.7 to 2.11).
Debian: apt-get install python3-scrapy.

    cd internal/dedupe/testdata && /usr/bin/python3 gen_seen.py
"""
import os
import shutil
import tempfile
import warnings

from scrapy import Request
from scrapy.dupefilters import RFPDupeFilter
from scrapy.utils.test import get_crawler

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "seen_urls.txt"), encoding="utf-8") as f:
    requests = [line.rstrip("\n").split(" ", 1) for line in f if line.strip()]

warnings.simplefilter("ignore")
for impl, name in (("2.7", "requests.seen"), ("2.6", "requests-2.6.seen")):
    jobdir = tempfile.mkdtemp()
    crawler = get_crawler(settings_dict={"JOBDIR": jobdir, "REQUEST_FINGERPRINTER_IMPLEMENTATION": impl})
    df = RFPDupeFilter.from_crawler(crawler)
    for method, url in requests:
        df.request_seen(Request(url, method=method))
    df.close("finished")
    shutil.copy(os.path.join(jobdir, "requests.seen"), os.path.join(here, name))
    shutil.rmtree(jobdir)
