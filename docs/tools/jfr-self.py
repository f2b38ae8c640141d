#!/usr/bin/env python3
"""Where one thread's Java time goes, from a JFR recording's execution samples (docs/benchmarks.md).

Usage:
    docs/tools/jfr-self.py RECORDING.jfr THREAD-SUBSTRING [TOP]

Record with line-exact stacks and 1 ms samples, for example:
    java -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \\
         -XX:StartFlightRecording=settings=docs/tools/jfr-samples.jfc,filename=r.jfr,delay=4s,duration=4s \\
         -jar rnic-bench.jar ib_write_bw --loopback -s 64 -l 64 -D 8 --slice-ms 0 --mode polling

Prints three tables for the threads whose name contains THREAD-SUBSTRING (e.g. "main", the poster
of the loopback perftest commands, or "jrnic-transport"):
  * self time by method, a JDK or netty frame charged to the first jrnic frame that called it
    ("MemorySegment.copy < FpduWriter.copyOwn");
  * self time by source line (the top frame);
  * inclusive time by method.
JFR samples threads that run Java code only: time in the kernel (a writev, a recv) is not in these
tables; use perf for it. Needs `jfr` (the JDK's) on the PATH.
"""
import collections
import json
import subprocess
import sys


def method(frame):
    return frame['method']['type']['name'].split('/')[-1] + '.' + frame['method']['name']


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    recording, thread = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    out = subprocess.run(['jfr', 'print', '--json', '--events', 'jdk.ExecutionSample', recording],
                         check=True, capture_output=True, text=True).stdout
    events = json.loads(out)['recording']['events']
    charged, lines, inclusive = collections.Counter(), collections.Counter(), collections.Counter()
    samples = 0
    for event in events:
        values = event['values']
        if thread not in values['sampledThread']['javaName']:
            continue
        frames = values['stackTrace']['frames']
        if not frames:
            continue
        samples += 1
        chain = []
        for frame in frames:
            chain.append(method(frame))
            if frame['method']['type']['name'].startswith('io/jrnic'):
                break
        charged[' < '.join(chain[-2:]) if len(chain) > 1 else chain[0]] += 1
        lines[method(frames[0]) + ':' + str(frames[0]['lineNumber'])] += 1
        for name in {method(frame) for frame in frames}:
            inclusive[name] += 1
    print(f'{samples} samples of threads named *{thread}*')
    for title, counter in (('self, charged to jrnic', charged), ('self, by line', lines),
                           ('inclusive', inclusive)):
        print(f'--- {title}')
        for name, count in counter.most_common(top):
            print(f'{count:6d} {100 * count / max(samples, 1):5.1f}% {name}')


if __name__ == '__main__':
    main()
