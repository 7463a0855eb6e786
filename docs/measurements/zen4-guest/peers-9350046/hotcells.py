# SPDX-License-Identifier: MIT
# hotcells.py FILE...: the hot fixed-size cells of `fastmem-bench replay`
# outputs whose median ratio to glibc over the files is below 0.95, for
# the fm_* and aocl columns, with each file's ratio.
import sys, re, statistics
cells = {}
for f in sys.argv[1:]:
    t = None; cols = None
    for line in open(f):
        if line.startswith('== '):
            t = line[3:].split(':')[0] if 'one size' in line else None
            cols = None
            continue
        if t and line.startswith('size'):
            cols = line.split()[1:]
            continue
        if t and cols and re.match(r'\s*\d+K?\s', line):
            parts = line.split()
            size = parts[0]
            rs = re.findall(r'([\d.]+)x', line)
            for c, r in zip(cols[1:], rs):
                cells.setdefault((t, size, c), []).append(float(r))
for (t, size, c), v in cells.items():
    m = statistics.median(v)
    if m < 0.95 and c.startswith(('fm_', 'aocl')):
        print('%-70s %5s %-10s %.2f (%s)' % (t, size, c, m, ' '.join('%.2f' % x for x in v)))
