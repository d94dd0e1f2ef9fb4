"""treerss.py PID: samples, every 50 ms until PID is gone, the resident
memory of PID and all its descendants, summed, and prints the peak in KB
(the "tree peak RSS" of scripts/bench/broad.sh: the loop's six processes
together, against one colly or Scrapy process)."""

import os
import sys
import time


def tree_rss(root):
    children = {}
    rss = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            with open(f"/proc/{d}/statm") as f:
                pages = int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(d))
        rss[int(d)] = pages
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total * os.sysconf("SC_PAGE_SIZE") // 1024


def main():
    pid = int(sys.argv[1])
    peak = 0
    while os.path.exists(f"/proc/{pid}"):
        peak = max(peak, tree_rss(pid))
        time.sleep(0.05)
    print(peak)


main()
