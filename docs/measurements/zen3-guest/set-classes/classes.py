#!/usr/bin/env python3
# classes.py FLEET_DIR OUT_DIR [DIST...]: each fleet memset distribution
# restricted to one size class at a time (renormalised), as
# MemsetGoogleX_LO_HI.csv files that fastmem-bench replay reads: which
# classes a change wins or loses, one replay table per class.
import os
import sys

CLASSES = [(1, 3), (4, 16), (17, 31), (32, 64), (65, 256), (257, 512),
           (513, 4096)]

fleet, out = sys.argv[1], sys.argv[2]
names = sys.argv[3:] or ['A', 'S', 'U', 'W']
os.makedirs(out, exist_ok=True)
for name in names:
    text = open(os.path.join(fleet, 'MemsetGoogle%s.csv' % name)).read()
    p = [float(x) for x in text.replace('\n', ',').split(',') if x.strip()]
    for lo, hi in CLASSES:
        q = [x if lo <= i <= hi else 0.0 for i, x in enumerate(p)]
        total = sum(q)
        if total == 0:
            continue
        with open(os.path.join(out, 'MemsetGoogle%s_%d_%d.csv'
                               % (name, lo, hi)), 'w') as f:
            f.write(','.join(repr(x / total) for x in q) + '\n')
