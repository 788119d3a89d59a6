#!/usr/bin/env python3
"""What a parallel CGSCC walk could gain on a module: list schedules of its RefSCC DAG.

Reads the JSON of `ilkit cgscc M --format json --stats` (its `schedule_units`: per
RefSCC in post-order, the work the walk did for it and the positions it depends on)
and prints, for 2 workers by default, the speedup of the walk under two schedules:

- `commit-gated`: a unit may start only once the walk has *committed* every unit
  before it in post-order that it depends on, i.e. the walk's sequential order gates
  readiness (what running units ahead in rounds can reach, `ilkit cgscc --run-ahead`);
- `chained W`: units run as soon as their dependencies have *run* (a worker runs a
  unit over the results of units not yet committed), within windows of W consecutive
  post-order positions, each window followed by the sequential commit of a fraction
  `c` of every unit's work (what the walk itself must still do in order).

Usage: scripts/schedule_sim.py OUT.json [--workers N]
"""
import heapq
import json
import sys


def load(path):
    with open(path) as f:
        v = json.load(f)
    units = v.get("schedule_units")
    if units is None:
        sys.exit(f"{path}: no schedule_units (run ilkit cgscc with --format json --stats)")
    return [(w, sorted(set(d))) for w, d in units]


def chained(units, window, workers, commit):
    """Walk time of the chained schedule over windows of `window` positions."""
    n = len(units)
    total = 0.0
    for s in range(0, n, window):
        idx = range(s, min(n, s + window))
        indeg = {j: 0 for j in idx}
        outs = {j: [] for j in idx}
        for j in idx:
            for d in units[j][1]:
                if d >= s:
                    indeg[j] += 1
                    outs[d].append(j)
        ready = [j for j in idx if indeg[j] == 0]
        heapq.heapify(ready)
        running, t, free, done = [], 0.0, workers, 0
        while done < len(idx):
            while free and ready:
                j = heapq.heappop(ready)
                heapq.heappush(running, (t + units[j][0] * (1 - commit), j))
                free -= 1
            t, j = heapq.heappop(running)
            free += 1
            done += 1
            for o in outs[j]:
                indeg[o] -= 1
                if indeg[o] == 0:
                    heapq.heappush(ready, o)
        total += t + sum(units[j][0] * commit for j in idx)
    return total


def commit_gated(units, workers):
    """Walk time when a unit can start only after the walk committed its dependencies:
    at each position the walk runs, on `workers` workers at once, every unit whose
    dependencies are all before that position and not run yet (the walk waits)."""
    n = len(units)
    ran = [False] * n
    total = 0.0
    for i in range(n):
        if ran[i]:
            continue
        batch = [j for j in range(i, n) if not ran[j] and all(d < i for d in units[j][1])]
        loads = [0.0] * workers
        for j in sorted(batch, key=lambda j: -units[j][0]):
            k = loads.index(min(loads))
            loads[k] += units[j][0]
            ran[j] = True
        total += max(loads)
    return total


def main():
    args = sys.argv[1:]
    workers = 2
    if "--workers" in args:
        k = args.index("--workers")
        workers = int(args[k + 1])
        del args[k : k + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    units = load(args[0])
    work = sum(w for w, _ in units)
    finish = []
    for w, deps in units:
        finish.append(w + max((finish[d] for d in deps), default=0))
    span = max(finish, default=0)
    print(f"{len(units)} units, work {work}, span {span}, work/span {work / max(span, 1):.2f}")
    print(f"commit-gated, {workers} workers: {work / commit_gated(units, workers):.2f}x")
    for window in (64, 256, 1024, len(units)):
        cells = [f"c={c:.1f}: {work / chained(units, window, workers, c):.2f}x" for c in (0.0, 0.2, 0.3)]
        print(f"chained, window {window}, {workers} workers: " + ", ".join(cells))


if __name__ == "__main__":
    main()
