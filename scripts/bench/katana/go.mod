module github.com/crawlutils/crawlutils/scripts/bench/katana

go 1.26.8

require github.com/projectdiscovery/katana v1.1.0
