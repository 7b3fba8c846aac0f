#!/usr/bin/env python3
"""Summary of a ferry bench run (bench/ferry-speed.sh, bench/ferry-many-files.sh).

    ferry-bench-summary.py ROUNDS.tsv SUMMARY.md "HEADING" [--per TOOL]... [--vs TOOL]

ROUNDS.tsv has the columns round, tool, MiB_s, seconds. Writes SUMMARY.md (a Markdown table of each tool's median
and spread, a column "/ TOOL" per --per, i.e. this tool's median over TOOL's, and with --vs a column "TOOL / this")
and SUMMARY.json (medians and rounds), and prints the table. A ratio to a tool that was left out is nan.
"""
import argparse, csv, json, statistics

p = argparse.ArgumentParser()
p.add_argument('rounds')
p.add_argument('summary')
p.add_argument('heading')
p.add_argument('--per', action='append', default=[])
p.add_argument('--vs')
a = p.parse_args()

rows = list(csv.DictReader(open(a.rounds), delimiter='\t'))
tools = list(dict.fromkeys(r['tool'] for r in rows))
rates = {t: [float(r['MiB_s']) for r in rows if r['tool'] == t] for t in tools}
med = {t: statistics.median(v) for t, v in rates.items()}
ratio = lambda x, y: med[x] / med[y] if x in med and y in med else float('nan')

head = ['median MiB/s', 'spread (min–max)'] + [f'/ {b}' for b in a.per] + ([f'{a.vs.replace("-", " ")} / this'] if a.vs else [])
lines = [a.heading, '', '| | ' + ' | '.join(head) + ' |', '|---|' + '---:|' * len(head)]
for t in tools:
    cells = [t, f'{med[t]:.0f}', f'{min(rates[t]):.0f}–{max(rates[t]):.0f}'] + [f'{ratio(t, b):.2f}' for b in a.per]
    if a.vs:
        cells.append(f'{ratio(a.vs, t):.2f}')
    lines.append('| ' + ' | '.join(cells) + ' |')
text = '\n'.join(lines) + '\n'
open(a.summary, 'w').write(text)
json.dump({'medians': med, 'rounds': rows}, open(a.summary.replace('.md', '.json'), 'w'), indent=1)
print(text)
