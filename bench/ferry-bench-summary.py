#!/usr/bin/env python3
"""Summary of a ferry bench run (bench/ferry-speed.sh, bench/ferry-many-files.sh).

    ferry-bench-summary.py ROUNDS.tsv SUMMARY.md "HEADING" [--per TOOL]... [--vs TOOL] [--bytes N] [--wall] [--wall-only TOOL]...

ROUNDS.tsv has the columns round, tool, MiB_s, seconds and, where measured, wall_s, cpu_send_s, cpu_recv_s.
Writes SUMMARY.md (a Markdown table of each tool's median rate and spread, a column "/ TOOL" per --per, i.e. this
tool's median over TOOL's, with --vs a column "TOOL / this", and where measured the median wall time of the
command with its spread and, with --bytes, the median CPU seconds per GiB of each end) and SUMMARY.json (medians
and rounds), and prints the table. With --wall the table is of wall times instead of rates (a ratio below 1 is
faster); a --wall-only tool (one whose rate means nothing, e.g. a 1-byte send) appears only there. A ratio to a
tool that was left out is nan.
"""
import argparse, csv, json, statistics

p = argparse.ArgumentParser()
p.add_argument('rounds')
p.add_argument('summary')
p.add_argument('heading')
p.add_argument('--per', action='append', default=[])
p.add_argument('--vs')
p.add_argument('--bytes', type=float)
p.add_argument('--wall', action='store_true', help='the table of wall times: medians and ratios of wall_s (lower is faster)')
p.add_argument('--wall-only', action='append', default=[], help='a tool shown only in the table of wall times')
a = p.parse_args()

rows = list(csv.DictReader(open(a.rounds), delimiter='\t'))
tools = [t for t in dict.fromkeys(r['tool'] for r in rows) if a.wall or t not in a.wall_only]
rates = {t: [float(r['wall_s' if a.wall else 'MiB_s']) for r in rows if r['tool'] == t] for t in tools}
med = {t: statistics.median(v) for t, v in rates.items()}
col = lambda t, c: [float(r[c]) for r in rows if r['tool'] == t and r.get(c)]
timed = not a.wall and any(r.get('wall_s') for r in rows)
fmt = (lambda v: f'{v:.2f}') if a.wall else (lambda v: f'{v:.0f}')
ratio = lambda x, y: med[x] / med[y] if x in med and y in med else float('nan')

head = ['median wall s' if a.wall else 'median MiB/s', 'spread (min–max)'] + [f'/ {b}' for b in a.per] + ([f'{a.vs.replace("-", " ")} / this'] if a.vs else [])
if timed:
    head += ['wall s, median (min–max)'] + (['CPU s/GiB sender', 'CPU s/GiB receiver'] if a.bytes else [])
lines = [a.heading, '', '| | ' + ' | '.join(head) + ' |', '|---|' + '---:|' * len(head)]
for t in tools:
    cells = [t, fmt(med[t]), f'{fmt(min(rates[t]))}–{fmt(max(rates[t]))}'] + [f'{ratio(t, b):.2f}' for b in a.per]
    if a.vs:
        cells.append(f'{ratio(a.vs, t):.2f}')
    if timed:
        w = col(t, 'wall_s')
        cells.append(f'{statistics.median(w):.2f} ({min(w):.2f}–{max(w):.2f})' if w else '')
        if a.bytes:
            gib = a.bytes / 2 ** 30
            cells += [f'{statistics.median(v) / gib:.2f}' if v else '' for v in (col(t, 'cpu_send_s'), col(t, 'cpu_recv_s'))]
    lines.append('| ' + ' | '.join(cells) + ' |')
text = '\n'.join(lines) + '\n'
open(a.summary, 'w').write(text)
json.dump({'medians': med, 'rounds': rows}, open(a.summary.replace('.md', '.json'), 'w'), indent=1)
print(text)
