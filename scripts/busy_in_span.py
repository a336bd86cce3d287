#!/usr/bin/env python3
"""A batch's files' span and each GPU's busy share within it (issue 18).

Usage: busy_in_span.py SAMPLES GPUS REPORT...

Each REPORT is a batch's --report (JSON Lines: each file's "started", Unix
time, and "seconds"); several are one run (a process a GPU, each with its
report). The files' span runs from the first file's start to the last
file's end over every report. SAMPLES is nvidia-smi's
--query-gpu=timestamp,index,utilization.gpu --format=csv,noheader,nounits
output run with TZ=UTC0, so that its timestamps ("YYYY/MM/DD HH:MM:SS.mmm")
are UTC, free of the local zone and its summer hour. Prints the mean
utilization of GPUs 0..GPUS-1 over the samples taken within the span,
space-separated ("?" for a GPU with no sample there), then "/" and the
span's length in seconds ("?" when no report gives a time)."""
import calendar
import json
import sys
import time


def unix_time(stamp):
    whole, _, fraction = stamp.strip().partition(".")
    seconds = calendar.timegm(time.strptime(whole, "%Y/%m/%d %H:%M:%S"))
    return seconds + (float("0." + fraction) if fraction else 0.0)


def files_span(reports):
    first, last = None, None
    for report in reports:
        with open(report) as lines:
            for line in lines:
                entry = json.loads(line) if line.strip() else {}
                start = entry.get("started")
                if start is None:
                    continue
                end = start + entry.get("seconds", 0.0)
                first = start if first is None else min(first, start)
                last = end if last is None else max(last, end)
    return first, last


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    samples, gpus, reports = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    first, last = files_span(reports)
    if first is None:
        print("%s / ?" % " ".join("?" * gpus))
        return
    total = [0.0] * gpus
    count = [0] * gpus
    parsed = 0
    with open(samples) as lines:
        for line in lines:
            fields = [f.strip() for f in line.split(",")]
            if len(fields) != 3:
                continue
            try:
                when, gpu, busy = unix_time(fields[0]), int(fields[1]), float(fields[2])
            except ValueError:
                continue
            parsed += 1
            if 0 <= gpu < gpus and first <= when <= last:
                total[gpu] += busy
                count[gpu] += 1
    if parsed == 0:
        print("busy_in_span: no sample of %s could be read" % samples, file=sys.stderr)
    shares = ["%.0f" % (total[g] / count[g]) if count[g] else "?" for g in range(gpus)]
    print("%s / %.2f" % (" ".join(shares), last - first))


if __name__ == "__main__":
    main()
