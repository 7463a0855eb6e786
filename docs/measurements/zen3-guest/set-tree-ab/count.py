#!/usr/bin/env python3
# count.py [REPO]: mispredictions per set, by the order of the size tests
# (zen3-guest.md, "Sets: other orders of the size tests").  At each test, the
# smaller of the two shares of calls that it separates: a predictor that
# learns only the likelier side.  Prints each order's count over the old
# order's, per fleet distribution, best orders first.
import glob, math, sys

CLASSES = [(0, 0), (1, 3), (4, 16), (17, 31), (32, 64), (65, 128),
           (129, 256), (257, 1 << 40)]
NAMES = ["0", "1-3", "4-16", "17-31", "32-64", "65-128", "129-256", ">256"]


def shares(path):
    p = [float(x) for x in open(path).read().strip().split(",")]
    t = sum(p)
    return [sum(p[a:min(b, len(p) - 1) + 1]) / t for a, b in CLASSES]


def count(tree, s):
    """(mispredictions, share) of a tree: a class index or (left, right)"""
    if isinstance(tree, int):
        return 0.0, s[tree]
    a, pa = count(tree[0], s)
    b, pb = count(tree[1], s)
    return a + b + min(pa, pb), pa + pb


def trees(lo, hi):
    if lo == hi:
        yield lo
        return
    for k in range(lo, hi):
        for left in trees(lo, k):
            for right in trees(k + 1, hi):
                yield (left, right)


def show(t):
    return NAMES[t] if isinstance(t, int) else \
        "[" + show(t[0]) + " | " + show(t[1]) + "]"


repo = sys.argv[1] if len(sys.argv) > 1 else "."
dist = {f.split("/")[-1][:-4]: shares(f) for f in
        sorted(glob.glob(repo + "/docs/distributions/fleet/Memset*.csv"))}
# fc9c697: below 32 B [above 16 | 4 and up | 0 or not], else 64, 256, 128
old = ((((0, 1), 2), 3), (4, ((5, 6), 7)))
base = [count(old, s)[0] for s in dist.values()]
print("old order:", show(old))
print("distributions:", " ".join(dist))
print("mispredictions per call, old order:",
      " ".join("%.2f" % b for b in base))
rows = []
for t in trees(0, len(CLASSES) - 1):
    r = [count(t, s)[0] / b for s, b in zip(dist.values(), base)]
    rows.append((max(r), math.exp(sum(map(math.log, r)) / len(r)), t, r))
for worst, gmean, t, r in sorted(rows, key=lambda x: x[:2])[:10]:
    print("worst %.3f gmean %.3f %s  %s" % (worst, gmean, show(t),
                                             " ".join("%.2f" % x for x in r)))
