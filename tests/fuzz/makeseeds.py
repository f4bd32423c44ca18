#!/usr/bin/env python3
"""Makes small fuzz seeds from real traces: a sample of each trace's events (every phase,
flows with both ends, metadata) in the trace's own layout, a few KB each, some gzipped.
Usage: makeseeds.py OUTDIR TRACE..."""
import gzip
import json
import os
import sys

MAX_BYTES = 12000


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        return json.load(f)


def sample(events):
    picked, seen = [], {}
    for ev in events:
        if not isinstance(ev, dict):
            continue
        ph = ev.get("ph", "")
        # Metadata first, then the first few events of every phase.
        limit = 40 if ph == "M" else 6
        if seen.get(ph, 0) < limit:
            seen[ph] = seen.get(ph, 0) + 1
            picked.append(ev)
    return picked


def shrink(doc_events, wrap, meta):
    events = list(doc_events)
    while events:
        doc = dict(meta, traceEvents=events) if wrap else events
        text = json.dumps(doc, separators=(",", ":"))
        if len(text) <= MAX_BYTES:
            return text
        events = events[: len(events) * 3 // 4]
    return "[]"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for i, path in enumerate(sys.argv[2:]):
        doc = load(path)
        wrap = isinstance(doc, dict)
        events = doc.get("traceEvents", []) if wrap else doc
        # Small top-level metadata only (distributedInfo, schemaVersion, ...).
        meta = {}
        if wrap:
            for k, v in doc.items():
                if k != "traceEvents" and len(json.dumps(v)) < 2000:
                    meta[k] = v
        text = shrink(sample(events), wrap, meta)
        base = os.path.join(out, "real%02d_%s" % (i, os.path.basename(os.path.dirname(path)) or "x"))
        with open(base + ".json", "w") as f:
            f.write(text)
        if path.endswith(".gz"):
            with gzip.open(base + ".json.gz", "wb") as f:
                f.write(text.encode())


if __name__ == "__main__":
    main()
