"""treepss.py PID: samples, every 100 ms until PID is gone, the memory of
PID and all its descendants and prints two peaks in KB: the summed RSS
(which counts the pages a browser's processes share once per process) and
the summed PSS (each shared page split between the processes sharing it:
the memory the tree really takes)."""

import os
import sys
import time

from treerss import descendants


def memory(pid):
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def main():
    pid = int(sys.argv[1])
    peak_rss = peak_pss = 0
    while os.path.exists(f"/proc/{pid}"):
        rss = pss = 0
        for p in descendants(pid):
            r, s = memory(p)
            rss += r
            pss += s
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        time.sleep(0.1)
    print(peak_rss, peak_pss)


if __name__ == "__main__":
    main()
