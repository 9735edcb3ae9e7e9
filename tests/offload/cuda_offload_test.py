#!/usr/bin/env python3
"""Offload-candidate blocks of the TOM CUDA programs (CTest offload_cuda_programs).

  cuda_offload_test.py STRATA NAME=PROGRAM[:ARG,ARG...] ...

Runs `strata cuda run --describe --json` on each program (the program's own check must pass)
and asserts blocks derived by reading the programs' kernels and the PTX clang makes of them
(docs/offload_candidates.md "PTX kernels"), plus invariants of the tagging: every block an
instance entered ran at most its declared loads and stores per instance when it is a
straight block without limits, and exactly them where the block has no branch.
"""
import json
import subprocess
import sys

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


def describe(strata, prog, args):
    p = subprocess.run([strata, "cuda", "run", "--describe", "--json", prog, "--", *args],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: {prog} exited {p.returncode}\n{p.stderr[-2000:]}")
        sys.exit(1)
    check(": ok" in p.stderr, f"{prog}: the program's own output (on stderr) has no 'ok': {p.stderr[-300:]!r}")
    return json.loads(p.stdout)


def kernel(d, name):
    for k in d["kernels"]:
        if k["name"] == name:
            return k
    check(False, f"no kernel {name} in {[k['name'] for k in d['kernels']]}")
    return {"blocks": []}


def blocks(k, **want):
    """Blocks of kernel k whose fields equal `want` (limits given as a set of names)."""
    out = []
    for b in k["blocks"]:
        ok = True
        for key, v in want.items():
            if key == "limits":
                ok &= set(filter(None, b["limits"].split(","))) == v
            elif key == "decision":
                ok &= b["paper"]["decision"] == v
            else:
                ok &= b[key] == v
        if ok:
            out.append(b)
    return out


def one(k, what, **want):
    got = blocks(k, **want)
    check(len(got) >= 1, f"{k.get('name')}: {what}: no block with {want}; blocks: " +
          "; ".join(f"{b['name']} {b['kind']} in {b['live_in']} out {b['live_out']} ld {b['loads']} st {b['stores']} "
                    f"lim '{b['limits']}' {b['paper']['decision']}" for b in k["blocks"]))
    return got[0] if got else None


def main():
    strata = sys.argv[1]
    progs = {}
    for a in sys.argv[2:]:
        name, rest = a.split("=", 1)
        path, _, args = rest.partition(":")
        progs[name] = (path, [x for x in args.split(",") if x])
    d = {n: describe(strata, p, a) for n, (p, a) in progs.items()}

    # every program: tags consistent with the blocks (describe throws on a tag outside them), and
    # straight blocks without limits run at most their instructions per instance
    for n, dd in d.items():
        check(dd["ptx_lines"] is True, f"{n}: ptx_lines")
        for k in dd["kernels"]:
            for b in k["blocks"]:
                o = b["observed"]
                if b["kind"] == "straight" and not b["limits"] and o["instances"]:
                    check(o["loads_per_instance_max"] <= b["loads"] and o["stores_per_instance_max"] <= b["stores"],
                          f"{n}/{k['name']}/{b['name']}: per instance ld <= {o['loads_per_instance_max']} st <= "
                          f"{o['stores_per_instance_max']} exceed the block's {b['loads']} / {b['stores']}")
                check(b["pc_begin"] <= b["pc_end"], f"{n}/{b['name']}: PTX lines {b['pc_begin']}-{b['pc_end']}")

    # scalarprod: for (i = tid; i < len; i += 256) sum += x[i] * y[i]: 2 loads, live-in the two
    # 64-bit element pointers, the counter and the sum (6 registers), live-out the sum; the bound
    # is a kernel parameter: a conditional candidate from 7 trips (TX 6*32 - 7*2*0.5 = 185,
    # RX 32 - 7*2*0.5*32 = -192). The loop over pairs around it holds the shared-memory tree
    # reduction and its barriers.
    k = kernel(d["scalarprod"], "scalar_prod")
    b = one(k, "dot loop", kind="at-entry", loads=2, stores=0, live_in=6, live_out=1, limits=set(),
            decision="conditional")
    if b:
        check(b["paper"]["min_trips"] == 7 and b["paper"]["tx"] == 185 and b["paper"]["rx"] == -192,
              f"scalarprod dot loop estimate {b['paper']}")
        check(b["observed"]["instances"] > 0 and b["observed"]["loads"] > 0, "scalarprod dot loop ran")
    one(k, "pair loop", kind="unknown", limits={"shared-memory", "barrier", "divergent"})

    # reduction: grid-stride sum, live-in index and sum, live-out the sum, 1 load per iteration
    k = kernel(d["reduction"], "reduce_sum")
    one(k, "grid-stride loop", kind="at-entry", loads=1, stores=0, live_in=2, live_out=1, limits=set(),
        decision="conditional")

    # fwt: one butterfly per thread: 2 loads, 2 stores, live-in tid and ctaid, no branch: every
    # instance runs exactly its 2 loads and 2 stores
    k = kernel(d["fwt"], "fwt_global_stage")
    b = one(k, "butterfly", kind="straight", loads=2, stores=2, live_in=2, live_out=0, limits=set(),
            decision="candidate")
    if b:
        o = b["observed"]
        check(o["instances"] > 0 and o["loads_per_instance_min"] == 2 and o["loads_per_instance_max"] == 2 and
              o["stores_per_instance_min"] == 2 and o["stores_per_instance_max"] == 2,
              f"fwt butterfly observed {o}")
        check(b["paper"]["saves_tx"] and b["paper"]["saves_rx"], f"fwt butterfly tags {b['paper']}")

    # kmeans: the loop over clusters, bound a kernel parameter: a conditional candidate
    one(kernel(d["kmeans"], "kmeans_assign"), "cluster loop", kind="at-entry", limits=set(), decision="conditional")

    # cfd: cfd_flux's loop over the NB = 4 neighbours (for j < NB, unrolled inner loops over NV)
    # has a static trip count of 4; cfd_copy copies NV = 5 variables: 5 loads, 5 stores
    one(kernel(d["cfd"], "cfd_flux"), "neighbour loop", kind="static", trips=4, limits=set())
    one(kernel(d["cfd"], "cfd_copy"), "copy", kind="straight", loads=5, stores=5, limits=set(), decision="candidate")

    # heartwall: for (o = 0; o < 25; ++o) atomicAdd(&sad[o], |frame[...] - ref|): static 25 trips,
    # shared-memory atomics: never a candidate; no block of the kernel is one
    k = kernel(d["heartwall"], "track")
    one(k, "offset loop", kind="static", trips=25, loads=1, limits={"shared-memory", "atomic"})
    check(d["heartwall"]["mem_insts_in_candidates"] == 0, "heartwall has no candidate")

    # bfs: bfs_commit (flags to levels, straight) is a candidate; bfs_expand's neighbour loop
    # (frontier test inside) is decided during the loop
    one(kernel(d["bfs"], "bfs_commit"), "commit", kind="straight", limits=set(), decision="candidate")
    one(kernel(d["bfs"], "bfs_expand"), "neighbour loop", kind="unknown")

    # backprop: the weight update, 4 loads 2 stores, a candidate
    one(kernel(d["backprop"], "adjust_weights"), "adjust", kind="straight", loads=4, stores=2, limits=set(),
        decision="candidate")

    # libor: the path loop (bound from a parameter)
    one(kernel(d["libor"], "libor_paths"), "path loop", kind="at-entry", limits=set(), decision="conditional")

    # ray: the triangle loops of a BVH leaf (bounds loaded before the loop) are conditional
    one(kernel(d["ray"], "ray_render"), "leaf loop", kind="at-entry", limits=set(), decision="conditional")

    if failures:
        print(f"{failures} failure(s)")
        sys.exit(1)
    print("cuda offload blocks: ok")


main()
