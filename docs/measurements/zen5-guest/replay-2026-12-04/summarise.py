#!/usr/bin/env python3
"""Summaries of `fastmem-bench replay` outputs, as quoted in zen5-guest.md.

  summarise.py gmean FILE...             geometric mean of each column's
                                         ratio per table: median (range)
  summarise.py pair COL1 COL2 RE FILE... per file, the geometric mean over
                                         the rows of COL1's ratio / COL2's,
                                         for each table whose title matches RE
  summarise.py ab DIR [MIN]              build B over build A per cell, from
                                         DIR/A.* (own row A, --peer fm= B) and
                                         DIR/B.* (the reverse); MIN: print
                                         only cells that moved by more
"""
import glob, math, re, statistics as st, sys

UNIT = {'': 1.0, 'm': 1e6, 'u': 1e3}
CELL = re.compile(r'([\d.]+) ?([mu]?)s?\s+±\d+%(?:\s+([\d.]+)x)?')


def tables(fn):
    """{title: (columns, {row: [(ns, ratio or None), ...]})} in file order"""
    out, title, cols = {}, None, None
    for line in open(fn):
        if line.startswith('=='):
            title, cols = line[3:].split(': ns')[0].strip(), None
            continue
        if title is None:
            continue
        if cols is None and re.match(r'\s*(distribution|size)\s', line):
            cols = line.split()[1:]
            out[title] = (cols, {})
            continue
        if cols is None:
            continue
        name = line.split()[0] if line.split() else ''
        cells = CELL.findall(line)
        if len(cells) == len(cols) and name:
            out[title][1][name] = [
                (float(v) * UNIT[u], float(r) if r else None)
                for v, u, r in cells]
    return out


def gmean(files):
    res = {}
    for fn in files:
        for title, (cols, rows) in tables(fn).items():
            for i, c in enumerate(cols):
                rs = [v[i][1] for v in rows.values() if v[i][1]]
                if rs:
                    res.setdefault((title, c), []).append(
                        math.exp(st.mean(map(math.log, rs))))
    last = None
    for (title, c), v in res.items():
        if title != last:
            print('==', title)
            last = title
        print('   %-10s %.2f (%.2f-%.2f)' % (c, st.median(v), min(v), max(v)))


def pair(a, b, pat, files):
    for fn in files:
        out = []
        for title, (cols, rows) in tables(fn).items():
            if not re.search(pat, title) or a not in cols or b not in cols:
                continue
            i, j = cols.index(a), cols.index(b)
            out.append(math.exp(st.mean(
                math.log(v[i][1] / v[j][1]) for v in rows.values())))
        print('%-16s' % fn, ' '.join('%.3f' % x for x in out))


def ab(d, lo):
    def cells(fn):  # (title, row) -> (own ns, peer ns)
        return {(t, r): (v[1][0], v[2][0])
                for t, (cols, rows) in tables(fn).items()
                for r, v in rows.items() if len(v) >= 3}
    A = [cells(f) for f in sorted(glob.glob(d + '/A.*'))]
    B = [cells(f) for f in sorted(glob.glob(d + '/B.*'))]
    last = None
    for k in B[0]:
        rb = [c[k][1] / c[k][0] for c in B if k in c]  # A ns / B ns
        ra = [c[k][0] / c[k][1] for c in A if k in c]
        both = rb + ra
        if abs(st.median(both) - 1) < lo:
            continue
        if k[0] != last:
            print('==', k[0])
            last = k[0]
        print('%-18s B/A %.3f  (B files %.3f, A files %.3f)  range %.3f-%.3f'
              % (k[1], st.median(both), st.median(rb), st.median(ra),
                 min(both), max(both)))
    print('--- geometric mean of B/A per table: median (range) over files')
    for t in dict.fromkeys(k[0] for k in B[0]):
        per = [math.exp(st.mean(math.log(c[k][1] / c[k][0])
                                for k in c if k[0] == t)) for c in B]
        per += [math.exp(st.mean(math.log(c[k][0] / c[k][1])
                                 for k in c if k[0] == t)) for c in A]
        print('%-90s %.3f (%.3f-%.3f)' % (t, st.median(per), min(per),
                                         max(per)))


if __name__ == '__main__':
    cmd, args = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ('', [])
    if cmd == 'gmean' and args:
        gmean(args)
    elif cmd == 'pair' and len(args) > 3:
        pair(args[0], args[1], args[2], args[3:])
    elif cmd == 'ab' and args:
        ab(args[0], float(args[1]) if len(args) > 1 else 0.0)
    else:
        sys.exit(__doc__)
