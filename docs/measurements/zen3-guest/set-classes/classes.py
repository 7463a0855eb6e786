#!/usr/bin/env python3
# classes.py [--memcpy] FLEET_DIR OUT_DIR [DIST...]: each fleet memset
# distribution (with --memcpy, memcpy distribution) restricted to one size
# class at a time (renormalised), as MemsetGoogleX_LO_HI.csv (or
# MemcpyGoogleX_LO_HI.csv) files that fastmem-bench replay reads: which
# classes a change wins or loses, one replay table per class.
import os
import sys

args = sys.argv[1:]
copies = args[:1] == ['--memcpy']
if copies:
    args = args[1:]
    op, default = 'Memcpy', ['A', 'M', 'Q']
    # copy_lt32's classes, and the whole of it
    classes = [(1, 3), (4, 7), (8, 15), (16, 31), (1, 31)]
else:
    op, default = 'Memset', ['A', 'S', 'U', 'W']
    classes = [(1, 3), (4, 16), (17, 31), (32, 64), (65, 256), (257, 512),
               (513, 4096)]

fleet, out = args[0], args[1]
names = args[2:] or default
os.makedirs(out, exist_ok=True)
for name in names:
    text = open(os.path.join(fleet, '%sGoogle%s.csv' % (op, name))).read()
    p = [float(x) for x in text.replace('\n', ',').split(',') if x.strip()]
    for lo, hi in classes:
        q = [x if lo <= i <= hi else 0.0 for i, x in enumerate(p)]
        total = sum(q)
        if total == 0:
            continue
        with open(os.path.join(out, '%sGoogle%s_%d_%d.csv'
                               % (op, name, lo, hi)), 'w') as f:
            f.write(','.join(repr(x / total) for x in q) + '\n')
