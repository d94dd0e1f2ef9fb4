#!/usr/bin/python3
"""Regenerate w3lib.jsonl: canonical URLs and Scrapy request fingerprints
computed by the real w3lib and Scrapy (Debian: apt-get install python3-scrapy
python3-w3lib), so the Go tests need no Python.

    /usr/bin/python3 internal/fingerprint/testdata/gen_w3lib.py > internal/fingerprint/testdata/w3lib.jsonl

Each line: {"url", "method", "body", "canonical" | "canonical_error",
"safe" | "safe_error", "request_url", "fingerprint" | "fingerprint_error",
"fingerprint_2_6"}: "fingerprint" is Scrapy's fingerprint() (setting
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7", the only one since Scrapy
2.12), "fingerprint_2_6" the deprecated request_fingerprint() ("2.6", the
default of Scrapy 2.7 to 2.11 when the setting is absent).
"""
import json
import random
import sys
import warnings

import scrapy
import w3lib
from scrapy import Request
from scrapy.utils.request import fingerprint, request_fingerprint
from w3lib.url import canonicalize_url, safe_url_string

URLS = [
    # basics and case
    "http://www.example.com",
    "http://www.example.com/",
    "HTTP://WWW.EXAMPLE.COM/",
    "http://www.Example.com/Path/To?Q=V",
    "HtTpS://ExAmPlE.CoM/A/b/C",
    "http://example.com/a/b/../c/./d",
    "http://example.com//double//slash",
    "http://example.com/a b",
    "  http://example.com/leading-and-trailing-space  ",
    "\thttp://exa\nmple.com/ta\rb",
    "http://example.com/\x01ctl",
    # query ordering and blank values
    "http://www.example.com/do?c=3&b=5&b=2&a=50",
    "http://www.example.com/do?b=&a=2",
    "http://www.example.com/do?a&b",
    "http://www.example.com/do?a=1&a=1&a=",
    "http://www.example.com/do?",
    "http://www.example.com/do?&&",
    "http://www.example.com/do?=x",
    "http://www.example.com/do?a=1;b=2",
    "http://www.example.com/do?a=1&b=2;c=3&a=0",
    "http://www.example.com/do?q=a+b",
    "http://www.example.com/do?q=a%20b",
    "http://www.example.com/do?q=a b",
    "http://www.example.com/do?q=a%2Bb",
    "http://www.example.com/do?q=%2b",
    "http://www.example.com/do?x=1=2=3",
    "http://www.example.com/do?Z=1&z=2&_=3&-=4&.=5&~=6",
    "http://www.example.com/do?k=%e2%82%ac",
    "http://www.example.com/do?k=\u20ac",
    "http://www.example.com/do?k=%a3",
    "http://www.example.com/do?k=%zz&j=%",
    "http://www.example.com/do?k=%2",
    "http://www.example.com/do?url=http://a/b?c=d",
    "http://www.example.com/do?a[]=1&a[]=2",
    "http://www.example.com/do?q='quote'&r=\"dq\"",
    "http://www.example.com/do?q=<tag>&r={x}|y^`",
    "http://www.example.com/do?q=%3C%3e",
    "http://www.example.com/do?q=\u00e9&\u00e9=q",
    "http://www.example.com/do?q=%C3%A9&%c3%a9=q",
    "http://www.example.com/do?b=2&a=1#frag",
    "http://www.example.com/do?a=%00",
    "http://www.example.com/do?a=%25&b=%2525",
    "http://www.example.com/do?a=1&A=1&a=0",
    "http://www.example.com/do?%61=1",
    "http://www.example.com/do?a=/path/&b=?q",
    # percent-encoding in the path
    "http://www.example.com/a%2fb",
    "http://www.example.com/a%2Fb",
    "http://www.example.com/a%3fb",
    "http://www.example.com/a%3Fb",
    "http://www.example.com/a%3db",
    "http://www.example.com/%7euser",
    "http://www.example.com/%7Euser",
    "http://www.example.com/~user",
    "http://www.example.com/%41%42%43",
    "http://www.example.com/%e2%82%ac",
    "http://www.example.com/%a3",
    "http://www.example.com/%A3%a3",
    "http://www.example.com/100%",
    "http://www.example.com/100%25",
    "http://www.example.com/100%2525",
    "http://www.example.com/%zz",
    "http://www.example.com/%2",
    "http://www.example.com/%",
    "http://www.example.com/a%20b",
    "http://www.example.com/a+b",
    "http://www.example.com/a%2Bb",
    "http://www.example.com/%5B%5D%7C",
    "http://www.example.com/[]|",
    "http://www.example.com/<>\"{}^`\\",
    "http://www.example.com/!$&'()*+,;=:@",
    "http://www.example.com/%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%40",
    "http://www.example.com/%2D%2E%5F%7E",
    "http://www.example.com/%00",
    "http://www.example.com/%0a",
    "http://www.example.com/a#b%20c",
    # unicode paths
    "http://www.example.com/r\u00e9sum\u00e9",
    "http://www.example.com/r%C3%A9sum%C3%A9",
    "http://www.example.com/r%c3%a9sum%c3%a9",
    "http://www.example.com/\u4e2d\u6587/\u30c6\u30b9\u30c8",
    "http://www.example.com/\U0001F600",
    "http://www.example.com/%F0%9F%98%80",
    "http://www.example.com/\u00a0nbsp",
    "http://www.example.com/\u2028ls",
    "http://www.example.com/\ufeffbom",
    "http://www.example.com/caf\u0065\u0301",
    # ;params
    "http://www.example.com/a;b",
    "http://www.example.com/a;b/c",
    "http://www.example.com/a/b;c=d;e",
    "http://www.example.com/a;jsessionid=ABC123?x=1",
    "http://www.example.com/a;p%2fq",
    "http://www.example.com/a;p[x]|y",
    "http://www.example.com/a;p\u00e9",
    "http://www.example.com/;x",
    "http://www.example.com;x/y",
    "ftp://ftp.example.com/a;type=i",
    # fragments and ajax
    "http://www.example.com/a#",
    "http://www.example.com/a#frag",
    "http://www.example.com/a#frag#more",
    "http://www.example.com/a?b#c?d",
    "http://www.example.com/ajax.html#!key=value",
    "http://www.example.com/ajax.html?k1=v1&k2=v2#!key=value",
    "http://www.example.com/ajax.html?#!key=value",
    "http://www.example.com/ajax.html#!",
    "http://www.example.com/ajax.html?_escaped_fragment_=old&a=1#!new",
    "http://www.example.com/ajax.html#!a%20b+c&d=\u00e9",
    "http://www.example.com/ajax.html?q=%a3#!x",
    # ports
    "http://www.example.com:80/",
    "https://www.example.com:443/",
    "http://www.example.com:8080/",
    "http://www.example.com:/",
    "http://www.example.com:080/",
    "http://www.example.com:0/",
    "http://www.example.com:65535/",
    "http://www.example.com:65536/",
    "http://www.example.com:port/",
    "http://www.example.com:-1/",
    "http://www.example.com:\u0661/",
    "http://www.example.com:8080",
    # userinfo
    "http://user:pass@www.example.com/",
    "http://User:Pass@WWW.Example.com/",
    "http://user@www.example.com:8080/",
    "http://us er:p@ss@www.example.com/",
    "http://user%3A:p%40ss@www.example.com/",
    "http://@www.example.com/",
    "http://user:@www.example.com/",
    "http://:pass@www.example.com/",
    "http://\u00fcser:p\u00e4ss@www.example.com/",
    "http://us%e9r@www.example.com/",
    # unicode and odd hosts
    "http://m\u00fcnchen.de/",
    "http://M\u00dcNCHEN.DE/",
    "http://xn--mnchen-3ya.de/",
    "http://\u4f8b\u3048.\u30c6\u30b9\u30c8/",
    "http://\u0440\u043e\u0441\u0441\u0438\u044f.\u0440\u0444/path",
    "http://b\u00fccher.example/b\u00fccher?b\u00fccher=b\u00fccher",
    "http://stra\u00dfe.de/",
    "http://\u0444.example\u3002com/",
    "http://\uff21\uff22\uff23.com/",
    "http://caf\u00e9.fr:8080/",
    "http://user@caf\u00e9.fr/",
    "http://\u2665.example/",
    "http://.example.com/",
    "http://example..com/",
    "http://example.com./",
    "http://" + "a" * 64 + ".com/",
    "http://" + "\u00e9" * 64 + ".com/",
    "http://xn--zz.com/",
    "http://example.com\u3002/",
    "http://\u05d0\u05d1.example/",
    "http://a\u05d0.example/",
    "http://ex%41mple.com/",
    "http://ex_ample.com/",
    "http://EXAMPLE.com%2F/",
    # IP addresses
    "http://127.0.0.1/",
    "http://127.0.0.1:8080/a?b=c",
    "http://[::1]/",
    "http://[::1]:8080/",
    "http://[2001:DB8::1]/x",
    "http://[::1/",
    "http://::1]/",
    "http://[fe80::1%25eth0]/",
    "http://[1.2.3.4]/",
    "http://0x7f.1/",
    # schemes and shapes
    "https://example.com",
    "ftp://example.com/file.txt",
    "file:///etc/passwd",
    "file://localhost/etc/passwd",
    "mailto:someone@example.com",
    "data:text/plain,hello",
    "about:blank",
    "javascript:alert(1)",
    "ws://example.com/socket",
    "git+ssh://git@example.com/repo.git",
    "example.com/no-scheme",
    "//example.com/scheme-relative",
    "/relative/path?x=1",
    "",
    "http:",
    "http://",
    "http:///path",
    "http:/example.com/one-slash",
    "http:example.com/no-slash",
    "h\u00e9tp://example.com/",
    "1http://example.com/",
    "http+unix://example/",
    "HTTP://example.com/?A=B#C",
    "http://example.com/?",
    "http://example.com/#",
    "http://example.com/?#",
    "http://example.com/path/?a=1&a=2&a=1",
    "http://example.com/index.html?",
    "http://example.com/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p?q=1",
    "http://example.com/?" + "&".join("k%d=v%d" % (i, 50 - i) for i in range(50)),
    "http://example.com/%E2%82%AC?%E2%82%AC=%E2%82%AC#%E2%82%AC",
    "https://books.toscrape.com/catalogue/page-2.html",
    "https://quotes.toscrape.com/tag/love/page/1/",
    "https://www.google.com/search?q=scrapy&hl=en&start=10",
    "https://en.wikipedia.org/wiki/Caf%C3%A9",
    "https://en.wikipedia.org/wiki/Caf\u00e9",
    "https://en.wikipedia.org/wiki/C%2B%2B",
    "https://example.com/search?q=C%2B%2B&q=c++",
]

# (method, body) variants applied to a few URLs.
VARIANTS = [
    ("GET", ""),
    ("post", "a=1&b=2"),
    ("POST", "{\"json\": true}"),
    ("PUT", "caf\u00e9"),
    ("HEAD", ""),
    ("GET", "body-on-get"),
]


# Seeded random URLs with exotic hosts: they pin the IDNA 2003 details
# (Unicode 3.2 nameprep tables, bidi, NFKC) that hand-written cases miss.
RANDOM_CASES = 200
SPECIAL = [0x130, 0x3A3, 0xDF, 0x2121, 0x338, 0x1E9E, 0xFB01, 0x200D, 0xAD, 0x3002, 0xFF0E,
           0x5D0, 0x627, 0x661, 0x2488, 0x2100, 0xFE0F, 0x1F600, 0x10000, 0xE000, 0x1DD1, 0x13B1]


def random_urls(n):
    rnd = random.Random(20240501)

    def char():
        r = rnd.random()
        if r < 0.3:
            return chr(rnd.randint(0x20, 0x7E))
        if r < 0.6:
            return chr(rnd.randint(0xA0, 0x3000))
        if r < 0.8:
            return chr(rnd.choice(SPECIAL))
        return rnd.choice(["%", "%2f", "%25", "%e9", ".", "..", ":", "@", "[", "]", "/", "?", "#", "&", "=", ";"])

    out = []
    while len(out) < n:
        host = "".join(char() for _ in range(rnd.randint(1, 10)))
        out.append(rnd.choice(["http://", "https://", "ftp://", "//"]) + host
                   + rnd.choice(["", "/", ":80/", "/p?q=1#!x"])
                   + "".join(char() for _ in range(rnd.randint(0, 6))))
    return out


def row(url, method="GET", body=""):
    out = {"url": url, "method": method, "body": body}
    try:
        out["canonical"] = canonicalize_url(url)
    except Exception as e:  # noqa: BLE001 (the golden file records any failure)
        out["canonical_error"] = "%s: %s" % (type(e).__name__, e)
    try:
        out["safe"] = safe_url_string(url)
    except Exception as e:  # noqa: BLE001
        out["safe_error"] = "%s: %s" % (type(e).__name__, e)
    try:
        req = Request(url, method=method, body=body)
        out["request_url"] = req.url
        out["fingerprint"] = fingerprint(req).hex()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["fingerprint_2_6"] = request_fingerprint(req)
    except Exception as e:  # noqa: BLE001
        out["fingerprint_error"] = "%s: %s" % (type(e).__name__, e)
    return out


def main():
    w = sys.stdout
    w.write(json.dumps({"generator": "gen_w3lib.py", "w3lib": w3lib.__version__,
                        "scrapy": scrapy.__version__,
                        "python": sys.version.split()[0]}) + "\n")
    for u in URLS + random_urls(RANDOM_CASES):
        w.write(json.dumps(row(u), ensure_ascii=False) + "\n")
    for u in URLS[:8] + ["https://example.com/api?b=2&a=1", "http://m\u00fcnchen.de/x?y=\u00e9"]:
        for method, body in VARIANTS[1:]:
            w.write(json.dumps(row(u, method, body), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
