"""The protograf side of ``bench_counters.py``'s ``pdf`` case: a counter
sheet of the same counters laid out with protograf's own API, run with the
Python of protograf's virtual environment (this file imports nothing of
vmodtool).

``python protograf_counters.py SPEC.json OUT.pdf``

``SPEC.json`` lists the counters ``bench_counters.py`` lays out (label,
factors, side colour).  Each counter is 5/8" (1.5875 cm), two-sided, on A4
with grid marks: a front with the side's colour, a unit box with the
infantry cross, the designation above it and the factors below; a back with
the side's colour, the designation and the factors.  protograf writes a
vector PDF (fronts, then backs) where ``vmodtool sheets`` writes 300-dpi
images; both are what each tool makes of a counter sheet.

Prints ``seconds pages``: seconds from after the imports to the saved PDF.
"""

from __future__ import annotations

import json
import sys
import time

spec_path, out = sys.argv[1], sys.argv[2]
del sys.argv[1:]            # protograf's Create() reads the command line itself

from protograf import (  # noqa: E402
    Counter,
    CounterBack,
    CounterSheet,
    Create,
    Data,
    Save,
    T,
    line,
    rectangle,
    text,
)

with open(spec_path, encoding="utf-8") as handle:
    counters = json.load(handle)["counters"]
start = time.perf_counter()
Create(filename=out, paper="A4", margin=1, units="cm")
rows = [["label", "factors", "fill"]] + [[c["label"], c["factors"], c["fill"]] for c in counters]
Data(data_list=rows)
CounterSheet(width=1.5875, height=1.5875, counters=len(counters), grid_marks=True)
Counter("all", rectangle(x=0.1, y=0.1, width=1.3875, height=1.3875, fill=T("{{ fill }}"), stroke="black"))
Counter("all", rectangle(x=0.45, y=0.45, width=0.7, height=0.45, fill="white", stroke="black"))
Counter("all", line(x=0.45, y=0.45, x1=1.15, y1=0.9, stroke="black"))
Counter("all", line(x=0.45, y=0.9, x1=1.15, y1=0.45, stroke="black"))
Counter("all", text(text=T("{{ label }}"), x=0.79, y=0.35, font_size=5))
Counter("all", text(text=T("{{ factors }}"), x=0.79, y=1.3, font_size=7))
CounterBack("all", rectangle(x=0.1, y=0.1, width=1.3875, height=1.3875, fill=T("{{ fill }}"), stroke="red"))
CounterBack("all", text(text=T("{{ label }}"), x=0.79, y=0.35, font_size=5))
CounterBack("all", text(text=T("{{ factors }}"), x=0.79, y=1.3, font_size=7))
Save()
seconds = time.perf_counter() - start
import pymupdf  # noqa: E402  (protograf's own PDF library: count the pages written)

print(seconds, pymupdf.open(out).page_count)
