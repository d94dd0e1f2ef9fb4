"""The demo site's link test bed (internal/demosite/linkbed.go: one page
per case under /linkbed/, each leading to its own target), and what each
link finder finds in it: cextract --links by default (navigation) and with
--kinds all --post-forms (through cfetch), Scrapy's LinkExtractor by
default and given every tag and attribute by hand, and katana when built.
The cases come from the site (GET /__demosite/linkbed). Prints the table of
docs/rules.md (Markdown).

    python3 scripts/bench/linkbed.py BINDIR SITE [KATANA]
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from urllib.parse import urlsplit

BIN = sys.argv[1]
BASE = sys.argv[2].rstrip("/")
KATANA = sys.argv[3] if len(sys.argv) > 3 else ""
with urllib.request.urlopen(BASE + "/__demosite/linkbed") as r:
    CASES = json.load(r)["cases"]
URLS = list(dict.fromkeys(BASE + c["page"] for c in CASES))


def path_of(url):
    """A found URL as the table compares them: path only (a form's values
    and a POST's method aside), on the site's host."""
    u = urlsplit(url)
    if u.netloc != urlsplit(BASE).netloc:
        return None
    return u.path


def cextract(*args):
    """Follow-ups of cextract --links ARGS over the bed's pages, fetched by
    cfetch: URL path -> (kind, source, URL with query, method)."""
    # Case 13's meta refresh (30 s) is a link here, not a redirect to follow.
    fetch = subprocess.run([os.path.join(BIN, "cfetch"), "-q", "--no-meta-refresh"], input="\n".join(URLS) + "\n",
                           capture_output=True, text=True, check=True)
    out = subprocess.run([os.path.join(BIN, "cextract"), "-q", "--links", *args], input=fetch.stdout,
                         capture_output=True, text=True, check=True)
    found = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        if r.get("kind") != "request":
            continue
        p = path_of(r["url"])
        if p is not None:
            u = urlsplit(r["url"])
            found.setdefault(p, (r.get("link_kind", ""), r.get("source", ""),
                                 u.path + ("?" + u.query if u.query else ""), r.get("method", "GET")))
    return found


SCRAPY = r'''
import json, sys
import scrapy
from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.http import HtmlResponse

TAGS = %(tags)r
ATTRS = %(attrs)r
default = LinkExtractor()
by_hand = LinkExtractor(tags=TAGS, attrs=ATTRS, deny_extensions=[])
found = {"default": [], "by_hand": []}

class Bed(scrapy.Spider):
    name = "bed"
    start_urls = %(urls)r
    custom_settings = {"ROBOTSTXT_OBEY": False, "LOG_ENABLED": False, "TELNETCONSOLE_ENABLED": False,
                       "METAREFRESH_ENABLED": False}
    def parse(self, response):
        if not isinstance(response, HtmlResponse):
            return
        found["default"] += [l.url for l in default.extract_links(response)]
        found["by_hand"] += [l.url for l in by_hand.extract_links(response)]

p = CrawlerProcess()
p.crawl(Bed)
p.start()
json.dump(found, sys.stdout)
'''
TAGS = ["a", "area", "frame", "iframe", "img", "link", "meta", "blockquote", "q", "del", "ins", "source", "video",
        "audio", "track", "embed", "object", "param", "script", "html", "body", "td", "input", "form", "button",
        "image", "use"]
ATTRS = ["href", "src", "srcset", "longdesc", "cite", "poster", "data", "value", "manifest", "background", "lowsrc",
         "action", "formaction", "content", "ping", "xlink:href", "imagesrcset", "data-url"]


def scrapy():
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(SCRAPY % {"tags": TAGS, "attrs": ATTRS, "urls": URLS})
    try:
        out = subprocess.run([sys.executable, f.name], capture_output=True, text=True, check=True)
    finally:
        os.unlink(f.name)
    found = json.loads(out.stdout)
    version = subprocess.run([sys.executable, "-c", "import scrapy; print(scrapy.__version__)"],
                             capture_output=True, text=True).stdout.strip()
    return ({path_of(u) for u in found["default"]}, {path_of(u) for u in found["by_hand"]}, version)


def katana():
    """katana's findings: it crawls the bed's pages (depth 2: each page and
    what it points at) with JavaScript parsing and form extraction on."""
    if not KATANA:
        return None, ""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "urls.txt"), "w") as f:
            f.write("\n".join(URLS) + "\n")
        out = os.path.join(d, "out.jsonl")
        subprocess.run([KATANA, "-list", os.path.join(d, "urls.txt"), "-d", "2", "-jc", "-fx", "-silent", "-j",
                        "-o", out, "-fs", "fqdn", "-c", "2", "-p", "1", "-disable-update-check"],
                       capture_output=True, text=True, check=True)
        found = set()
        with open(out) as f:
            for line in f:
                r = json.loads(line)
                if r.get("request", {}).get("source"):  # a link of a page, not a start URL
                    found.add(path_of(r["request"]["endpoint"]))
    version = subprocess.run([KATANA, "-version"], capture_output=True, text=True).stderr
    version = next((w for w in version.split() if w.startswith("v1.")), "")
    return found, version


def main():
    all_ = cextract("--kinds", "all", "--post-forms")
    default = cextract()
    sd, sh, sv = scrapy()
    kf, kv = katana()
    cols = ["default (`navigation`)", "`all`", "Scrapy default", "Scrapy by hand"] + (["katana"] if kf is not None else [])
    print("| case | target | kind, source (`all`) | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    totals = [0] * len(cols)
    for c in CASES:
        p = urlsplit(c["target"]).path
        target = ("POST " if c.get("method") == "POST" else "") + c["target"]
        if c.get("robots"):
            target += " (robots.txt: not fetched)"
        got = all_.get(p)
        if got is not None and (got[0], got[1]) != (c["kind"], c["source"]):
            sys.exit("linkbed: case %s: cextract --kinds all says %s %s, the site %s %s" % (
                c["case"], got[0], got[1], c["kind"], c["source"]))
        hits = [p in default, got is not None, p in sd, p in sh] + ([p in kf] if kf is not None else [])
        for i, h in enumerate(hits):
            totals[i] += h
        print("| %s | `%s` | %s `%s` | %s |" % (c["case"], target, c["kind"], c["source"],
                                              " | ".join("✓" if h else "" for h in hits)))
    print("| **%d cases** | | | %s |" % (len(CASES), " | ".join("**%d**" % t for t in totals)))
    print()
    print("Scrapy %s; by hand: `tags=%s` (%d), `attrs=%s` (%d), `deny_extensions=[]`." % (
        sv, ",".join(TAGS), len(TAGS), ",".join(ATTRS), len(ATTRS)))
    if kf is not None:
        print("katana %s: `-d 2 -jc -fx -fs fqdn`." % kv)


main()
