#!/usr/bin/env python3
"""CLI tests of `strata --trace` on Accel-Sim traces (used by CTest).

  accelsim_test.py counts STRATA OUTDIR WARP_INSTS CHECK_LOADS -- ARGS...
      run (with --check), exit 0, sum of gpu.sm*.warp_instructions and check.loads as given
  accelsim_test.py deterministic STRATA OUTDIR -- ARGS...
      two runs give identical stats.json apart from host.*
  accelsim_test.py gzip STRATA OUTDIR TRACE_DIR -- ARGS...
      a copy of TRACE_DIR with gzip-compressed kernel files gives the same stats
"""
import gzip
import json
import os
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, outdir, args):
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [strata, "--quiet", "--check", "--out", outdir, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(os.path.join(outdir, "stats.json")) as f:
        s = json.load(f)
    return {k: v for k, v in s.items() if not k.startswith("host.")}


def main():
    mode = sys.argv[1]
    i = sys.argv.index("--")
    head, args = sys.argv[2:i], sys.argv[i + 1:]
    if mode == "counts":
        strata, outdir, insts, loads = head
        s = run(strata, outdir, args)
        wi = sum(v for k, v in s.items() if k.startswith("gpu.sm") and k.endswith(".warp_instructions"))
        if wi != int(insts):
            fail(f"warp instructions {wi}, expected {insts}")
        if s.get("check.loads") != int(loads):
            fail(f"check.loads {s.get('check.loads')}, expected {loads}")
        if s.get("gpu.ipc", 0) <= 0 or s.get("mem.reads", 0) <= 0:
            fail("no progress: gpu.ipc or mem.reads is 0")
        print(f"ok: {wi} warp instructions, {loads} loads checked, ipc {s['gpu.ipc']:.3f}")
    elif mode == "deterministic":
        strata, outdir = head
        a, b = run(strata, outdir + ".a", args), run(strata, outdir + ".b", args)
        if a != b:
            fail("runs differ in " + str([k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)][:5]))
        print(f"ok: {len(a)} stats identical")
    elif mode == "gzip":
        strata, outdir, src = head
        gz = outdir + ".gz_trace"
        shutil.rmtree(gz, ignore_errors=True)
        os.makedirs(gz)
        for n in os.listdir(src):
            if n.endswith(".traceg"):
                with open(os.path.join(src, n), "rb") as f, gzip.open(os.path.join(gz, n), "wb") as g:
                    g.write(f.read())
            else:
                shutil.copy(os.path.join(src, n), gz)
        a = run(strata, outdir + ".plain", ["--trace", src, *args])
        b = run(strata, outdir + ".gz", ["--trace", gz, *args])
        if a != b:
            fail("gzip copy differs in " + str([k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)][:5]))
        print(f"ok: gzip copy gives the same {len(a)} stats")
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
