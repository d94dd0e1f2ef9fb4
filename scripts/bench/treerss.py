"""treerss.py PID: samples, every 50 ms until PID is gone, the resident
memory of PID and all its descendants, summed, and prints the peak in KB
(the "tree peak RSS" of scripts/bench/broad.sh: the loop's four processes
together, against one colly or Scrapy process). treepss.py uses its
descendants()."""

import os
import sys
import time


def descendants(root, each=None):
    """The pids of root and all its descendants, read from /proc; each(pid),
    when given, is called for every process as /proc is read."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            if each:
                each(int(d))
        except (OSError, ValueError, IndexError):
            continue
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def tree_rss(root):
    rss = {}

    def pages(pid):
        with open(f"/proc/{pid}/statm") as f:
            rss[pid] = int(f.read().split()[1])

    total = sum(rss.get(p, 0) for p in descendants(root, pages))
    return total * os.sysconf("SC_PAGE_SIZE") // 1024


def main():
    pid = int(sys.argv[1])
    peak = 0
    while os.path.exists(f"/proc/{pid}"):
        peak = max(peak, tree_rss(pid))
        time.sleep(0.05)
    print(peak)


if __name__ == "__main__":
    main()
