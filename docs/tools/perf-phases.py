#!/usr/bin/env python3
"""One thread's CPU per unit of work in time windows of a perf recording (docs/benchmarks.md).

Usage:
    perf script -i perf.data | docs/tools/perf-phases.py FREQ TID NAME=START-END[/UNITS] ... [-- SYMBOL ...]

The loopback perftest commands run the RNIC and its raw-TCP baselines one after the other
(--slice-ms 0), so one recording holds all of them; cut it by time (seconds from the recording's
first sample) and compare per unit of work (UNITS: GB moved, or messages, in that window; default 1):

    perf record -e cpu-clock -F 999 -g -o perf.data -- java -XX:+UnlockDiagnosticVMOptions \\
         -XX:+PreserveFramePointer -XX:+DumpPerfMapAtExit -jar rnic-bench.jar \\
         ib_write_bw --loopback --baseline -s 65536 -D 6 --slice-ms 0 --mode polling
    perf script -i perf.data | docs/tools/perf-phases.py 999 <writer tid> rnic=1-6/21.3 packed=13-18/28.9 \\
         -- _copy_from_iter tcp_write_xmit release_sock

(the windows and GB from the run's own output; find the phases with a first pass without windows:
it prints the thread's samples per second). Let perf start the JVM: attached by pid, it misses the
threads started after the attach, the RNIC's I/O threads among them. Per window it prints the samples per unit, the share of
them in user space (no system call on the stack), the thread's busy share (samples against FREQ per
second) and, per SYMBOL (a kernel function or a Java method, as perf names it without its offset),
the samples per unit whose stack holds it.
"""
import collections
import sys


def frames_of(block):
    for line in block[1:]:
        parts = line.strip().split(None, 1)
        if len(parts) == 2:
            yield parts[1].rsplit(' (', 1)[0].split('+0x')[0]


def samples(stream):
    """(tid, time, frames) of each sample of `perf script` output."""
    block = []
    for line in stream:
        line = line.rstrip('\n')
        if line:
            block.append(line)
            continue
        if block:
            # "comm tid [cpu] time: ...": the comm may hold spaces, the CPU may be missing, the tid
            # may read pid/tid; the time is the first field of the form 123.456:
            head = block[0].split()
            at = next((i for i, f in enumerate(head) if f.endswith(':') and f[:-1].replace('.', '', 1).isdigit()),
                      None)
            if at is not None:
                tid = head[at - 2] if head[at - 1].startswith('[') else head[at - 1]
                yield tid.split('/')[-1], float(head[at][:-1]), list(frames_of(block))
        block = []


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    symbols = []
    if '--' in args:
        symbols = args[args.index('--') + 1:]
        args = args[:args.index('--')]
    freq, tid, specs = float(args[0]), args[1], args[2:]
    windows = []
    for spec in specs:
        name, rest = spec.split('=', 1)
        span, _, units = rest.partition('/')
        start, end = span.split('-')
        windows.append((name, float(start), float(end), float(units or 1)))
    first = None
    per_second = collections.Counter()
    count = collections.Counter()
    user = collections.Counter()
    holding = collections.defaultdict(collections.Counter)
    for sample_tid, time, frames in samples(sys.stdin):
        first = time if first is None else first
        if sample_tid != tid:
            continue
        at = time - first
        per_second[int(at)] += 1
        for name, start, end, _ in windows:
            if start <= at < end:
                count[name] += 1
                if not any(f.startswith('entry_SYSCALL') for f in frames):
                    user[name] += 1
                present = set(frames)
                for symbol in symbols:
                    if symbol in present:
                        holding[name][symbol] += 1
    if not windows:
        for second in sorted(per_second):
            print(f'{second:4d} s {per_second[second]:6d} samples')
        return
    print(f'{"":28s}' + ''.join(f'{name:>14s}' for name, *_ in windows))
    rows = [('samples per unit', lambda w: count[w[0]] / w[3]),
            ('user share', lambda w: f'{100 * user[w[0]] / max(count[w[0]], 1):.1f}%'),
            ('busy share', lambda w: f'{100 * count[w[0]] / (freq * (w[2] - w[1])):.0f}%')]
    rows += [(symbol, lambda w, s=symbol: holding[w[0]][s] / w[3]) for symbol in symbols]
    for label, value in rows:
        cells = ''
        for w in windows:
            v = value(w)
            cells += f'{v:14.1f}' if isinstance(v, float) else f'{v:>14s}'
        print(f'{label[:28]:28s}{cells}')


if __name__ == '__main__':
    main()
