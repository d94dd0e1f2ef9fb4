"""The link test bed (internal/cextract/testdata/linkbed) served on
127.0.0.1, and what each link finder finds in it: cextract --links with
--kinds navigation and --kinds all --post-forms (through cfetch), Scrapy's
LinkExtractor by default and given every tag and attribute by hand, and
katana when built. Prints the table of docs/rules.md (Markdown).

    python3 scripts/bench/linkbed.py BINDIR [KATANA]
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
from urllib.parse import urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BED = os.path.join(ROOT, "internal", "cextract", "testdata", "linkbed")
BIN = sys.argv[1]
KATANA = sys.argv[2] if len(sys.argv) > 2 else ""
PAGES = {
    "/dir/page.html": ("page.html", {"Content-Type": "text/html; charset=utf-8",
                                     "Link": '</t/18>; rel="next", </t/51>; rel=preload; as=image',
                                     "Refresh": "60; url=/t/19", "Content-Location": "/t/20"}),
    "/dir/frames.html": ("frames.html", {"Content-Type": "text/html"}),
    "/dir/style.css": ("style.css", {"Content-Type": "text/css"}),
}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = urlsplit(self.path).path
        if path in PAGES:
            name, headers = PAGES[path]
            with open(os.path.join(BED, name), "rb") as f:
                body = f.read()
            self.send_response(200)
            for k, v in headers.items():
                self.send_header(k, v)
        else:
            body = b"<html><body>target</body></html>"
            self.send_response(404 if path == "/robots.txt" else 200)
            self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
BASE = "http://127.0.0.1:%d" % srv.server_address[1]
URLS = [BASE + p for p in PAGES]


def path_of(url):
    """A found URL as the table compares them: path only (a form's values
    and a POST's method aside), on the bed's host."""
    u = urlsplit(url)
    if u.netloc != urlsplit(BASE).netloc:
        return None
    return u.path


def cextract(*args):
    """Follow-ups of cextract --links ARGS over the bed, fetched by cfetch:
    URL path -> (kind, source, URL with query, method)."""
    # The page's meta refresh (30 s) is a link here, not a redirect to follow.
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
    """katana's findings: it crawls the three pages (depth 2: each page and
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
    nav = cextract("--kinds", "navigation")
    default = cextract()
    sd, sh, sv = scrapy()
    kf, kv = katana()
    cols = ["`--links`", "`navigation`", "`all`", "Scrapy default", "Scrapy by hand"] + (["katana"] if kf is not None else [])
    print("| case | kind, source (`all`) | " + " | ".join(cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    totals = [0] * len(cols)
    for p in sorted(all_, key=lambda p: (p.replace("/base", ""), p)):
        kind, source, full, method = all_[p]
        case = ("POST " if method == "POST" else "") + full
        hits = [p in default, p in nav, True, p in sd, p in sh] + ([p in kf] if kf is not None else [])
        for i, h in enumerate(hits):
            totals[i] += h
        print("| `%s` | %s `%s` | %s |" % (case, kind, source, " | ".join("✓" if h else "" for h in hits)))
    print("| **%d cases** | | %s |" % (len(all_), " | ".join("**%d**" % t for t in totals)))
    print()
    print("Scrapy %s; by hand: `tags=%s` (%d), `attrs=%s` (%d), `deny_extensions=[]`." % (
        sv, ",".join(TAGS), len(TAGS), ",".join(ATTRS), len(ATTRS)))
    if kf is not None:
        print("katana %s: `-d 2 -jc -fx -fs fqdn`." % kv)
    srv.shutdown()


main()
