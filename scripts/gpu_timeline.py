#!/usr/bin/env python3
"""Where a GPU sat idle, from a trace of tests/gpu/gpu_trace.c.

Usage: gpu_timeline.py TRACE [REPORT.jsonl ...]

The window is the files' span when batch reports are given (the first
file's "started" to the last file's end, as busy_in_span.py takes it),
otherwise the trace's first record to its last. For each GPU it prints:
the share of the window with a kernel running (what nvidia-smi's
utilization counts), with a copy, with either; the idle gaps (no kernel)
by length, and how much of them a copy filled; the kernels and the copies
by kind; and the runtime calls the host threads were inside while no
kernel ran (summed over threads). The longest gaps are listed with where
they fall in the window: a gap that recurs at one period points at
workers in step."""
import bisect
import collections
import json
import shutil
import subprocess
import sys


def merge(intervals):
    """The union of (start, end) pairs, sorted and disjoint."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        else:
            out.append([s, e])
    return out


def clip(union, lo, hi):
    return [[max(s, lo), min(e, hi)] for s, e in union if e > lo and s < hi]


def total(union):
    return sum(e - s for s, e in union)


def complement(union, lo, hi):
    out, at = [], lo
    for s, e in union:
        if s > at:
            out.append([at, s])
        at = max(at, e)
    if at < hi:
        out.append([at, hi])
    return out


def overlap(union, starts, s, e):
    """How much of [s, e) the sorted disjoint `union` covers (`starts`: its starts)."""
    got, k = 0, max(0, bisect.bisect_right(starts, s) - 1)
    while k < len(union) and union[k][0] < e:
        got += max(0, min(e, union[k][1]) - max(s, union[k][0]))
        k += 1
    return got


def demangle(names):
    tool = shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout
    plain = out.splitlines()
    if len(plain) != len(names):
        return {n: n for n in names}
    def short(name):  # "void (anonymous namespace)::f<...>(...)" -> "f"
        name = name.replace("(anonymous namespace)::", "")
        name = name[5:] if name.startswith("void ") else name
        return name.split("(")[0].split("<")[0]
    return {n: short(p) for n, p in zip(names, plain)}


def read_trace(path):
    kernels, copies, apis, offset = [], [], [], 0
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "clock":
                offset = int(p[2]) - int(p[1])
            elif p[0] == "kernel":
                kernels.append((int(p[1]), int(p[2]), int(p[3]), " ".join(p[5:])))
            elif p[0] == "copy":
                copies.append((int(p[1]), int(p[2]), int(p[3]), int(p[5]), p[6], p[7], p[8]))
            elif p[0] == "api":
                apis.append((int(p[1]), int(p[2]), int(p[3]), p[4]))
    return kernels, copies, apis, offset


def span_of(reports, offset):
    """The files' span in the trace's clock, from batch reports, or None."""
    first = last = None
    for path in reports:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if "started" not in r:
                    continue
                s = r["started"] * 1e9 - offset
                e = s + r.get("seconds", 0) * 1e9
                first = s if first is None else min(first, s)
                last = e if last is None else max(last, e)
    return (first, last) if first is not None else None


def ms(ns):
    return ns / 1e6


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    kernels, copies, apis, offset = read_trace(argv[1])
    if not kernels and not copies:
        print("gpu_timeline: no kernels or copies in %s" % argv[1])
        return 1
    span = span_of(argv[2:], offset)
    times = [t for r in kernels + copies for t in r[:2]]
    lo, hi = span if span else (min(times), max(times))
    print("window: %s, %.3f s" % ("the files' span" if span else "the trace", (hi - lo) / 1e9))
    names = demangle(sorted({k[3] for k in kernels}))
    for device in sorted({r[2] for r in kernels + copies}):
        ks = [k for k in kernels if k[2] == device and k[1] > lo and k[0] < hi]
        cs = [c for c in copies if c[2] == device and c[1] > lo and c[0] < hi]
        kernel_union = clip(merge([[k[0], k[1]] for k in ks]), lo, hi)
        copy_union = clip(merge([[c[0], c[1]] for c in cs]), lo, hi)
        either = merge(kernel_union + copy_union)
        width = hi - lo
        print("\nGPU %d: a kernel running %.1f%% of the window, a copy %.1f%%, either %.1f%%;"
              " %.2f kernels at once while any ran" %
              (device, 100 * total(kernel_union) / width, 100 * total(copy_union) / width,
               100 * total(either) / width,
               sum(min(k[1], hi) - max(k[0], lo) for k in ks) /
               max(1, total(kernel_union))))
        idle = complement(kernel_union, lo, hi)
        copy_starts = [c[0] for c in copy_union]
        buckets = collections.OrderedDict(
            (name, [0, 0, 0]) for name in ("< 0.1 ms", "0.1-1 ms", "1-10 ms", ">= 10 ms"))
        for s, e in idle:
            d = e - s
            name = ("< 0.1 ms" if d < 1e5 else "0.1-1 ms" if d < 1e6 else
                    "1-10 ms" if d < 1e7 else ">= 10 ms")
            buckets[name][0] += 1
            buckets[name][1] += d
            buckets[name][2] += overlap(copy_union, copy_starts, s, e)
        print("  no kernel: %.1f ms in %d gaps" % (ms(total(idle)), len(idle)))
        for name, (count, length, copied) in buckets.items():
            if count:
                print("    gaps %-9s %6d, %8.1f ms, a copy running in %5.1f ms of them" %
                      (name, count, ms(length), ms(copied)))
        longest = sorted(idle, key=lambda g: (g[0] - g[1], g[0]))[:12]
        print("  the longest gaps (ms into the window, ms long): " +
              ", ".join("%.1f %.1f" % (ms(s - lo), ms(e - s)) for s, e in longest))
        table = collections.defaultdict(lambda: [0, 0, 0])
        for k in ks:
            t = table[names.get(k[3], k[3])]
            t[0] += 1
            t[1] += k[1] - k[0]
            t[2] = max(t[2], k[1] - k[0])
        print("  kernels (count, summed ms, mean ms, longest ms):")
        for name, (count, length, longest) in sorted(table.items(), key=lambda x: -x[1][1])[:10]:
            print("    %-40s %7d %9.1f %8.3f %8.3f" %
                  (name[:40], count, ms(length), ms(length) / count, ms(longest)))
        table = collections.defaultdict(lambda: [0, 0, []])
        for c in cs:
            t = table["%s %s->%s" % (c[4], c[5], c[6])]
            t[0] += 1
            t[1] += c[3]
            t[2].append([c[0], c[1]])
        print("  copies (count, MB, summed ms, ms with one running, GB/s while running):")
        for name, (count, size, spans) in sorted(table.items(), key=lambda x: -x[1][1]):
            summed, running = sum(e - s for s, e in spans), total(merge(spans))
            print("    %-26s %7d %9.1f %9.1f %9.1f %8.2f" %
                  (name, count, size / 1e6, ms(summed), ms(running),
                   size / running if running else 0.0))
    # The host side: which calls the threads were inside while no GPU ran a kernel.
    all_kernels = clip(merge([[k[0], k[1]] for k in kernels]), lo, hi)
    idle = complement(all_kernels, lo, hi)
    idle_starts = [s for s, _ in idle]
    inside = collections.defaultdict(lambda: [0, 0, 0])
    for s, e, _, name in apis:
        if e <= lo or s >= hi:
            continue
        t = inside[name]
        t[0] += 1
        t[1] += min(e, hi) - max(s, lo)
        t[2] += overlap(idle, idle_starts, max(s, lo), min(e, hi))
    threads = len({a[2] for a in apis})
    print("\nruntime calls of %d threads in the window (count, summed ms, of it while no GPU ran a"
          " kernel):" % threads)
    for name, (count, length, in_idle) in sorted(inside.items(), key=lambda x: -x[1][1])[:12]:
        print("  %-34s %8d %10.1f %10.1f" % (name[:34], count, ms(length), ms(in_idle)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
