#!/usr/bin/env python3
"""`strata cuda build` and `strata cuda run` (docs/cuda.md): CUDA sources to programs with Debian's clang
and Strata's own headers and runtime, no NVIDIA software, run on the simulated GPU.

usage: cuda_test.py CASE STRATA PROGS_DIR WORK_DIR
  features  features.cu builds; its PTX holds each feature the source uses (kernels by their mangled
            names, shared memory static and dynamic, bar.sync, atomics, vote, shuffle, constant memory,
            the libdevice-named math calls the executor computes natively), and the program, started
            outside strata, says in one line how to run it and exits 2
  multi     a program of a .cu, a .c and a .cpp file links into one program
  bad       input errors: one line, exit 2 (missing source, no .cu, a bad -D, an unwritable -o, a missing
            or misspelt subcommand); a compiler error: clang's message and exit 1
  run       selfcheck.cu (vector add, shared-memory reduction with atomics, a host loop relaunching a
            kernel until nothing changes, a bank conflict) passes its own check on the simulated GPU; its
            output is its own; the stats name each kernel by its source name and hold the executor's
            counters (instruction classes, atomics, bank conflicts, active lanes); two runs give
            identical stats
  check     vecadd (docs/cuda.md's example) under --check: every load agrees with the golden memory
  status    a program that fails its own check (exit 3 on purpose) makes strata exit 3
  functional  --functional (the PTX executor without the timing model): the program passes its check,
            executes as many warp instructions as the timed run, passes its status; a PTX error exits 2
  atomics   atomics.cu (every atomic operation and type under contention from the whole grid, tickets,
            exchanges, a CAS loop, a later launch reading the results) passes its own exact check under
            --check, with the atomics performed at the L2: l2.atomic_lanes = check.atomics (every old value
            agreed with the golden memory) and = the executor's atomic lanes; two runs give identical stats;
            --functional passes the same check
  local     local.cu (a per-thread array read at indices known only at run time, so it lives in local
            memory) passes its own check under --check, its local accesses reaching the L2: with one warp,
            32 word stores and 8 word loads are 40 line requests, exactly the L2 accesses it makes beyond the
            same computation without the array; many CTAs (slots of the local region reused) and 8-byte
            local accesses (two words each) pass under --check too, and --functional agrees
  atomic-overlap  atomic_overlap.cu under --check: 16 atomics per thread whose old values are unused
            take well under the cycles with sm.max_atomics_per_warp = 4 than with 1 (they overlap), an add
            and an exchange of one word by one warp perform in issue order (the exchange returns the add's
            result); the same adds in a loop whose atomics all write one register overlap too, and the
            register ends with the last add's old value; a chain where each atomic's operand is the previous one's old value takes exactly the
            same cycles with 4 as with 1 (a dependent use waits)
  printf    kprintf.cu: kernel printf's conversions, widths and precisions give the text C's printf gives;
            a warp's lines come in lane order, divergent lanes print only their own, every thread of a
            multi-warp grid prints once; the program's own lines before and after each launch stay in
            order; a format in constant memory and %s strings in global and local memory; the same
            output timed, --functional and in a second run; a bad conversion stops the run with one
            line naming it (exit 2); under --describe the kernel's text goes to stderr with the
            program's
  textures  textures.cu: tex1Dfetch through texture objects (float gather with out-of-range coordinates,
            short2, uchar4 read normalized, float4) and texture references (bound, rebound, unbound)
            agree with the host under --check, with the fetches as global loads in the stats, and
            --functional; one line and exit 2 for a texture on a CUDA array, a fetch through an
            unbound reference and a 2D fetch
  realprog  realprog_api.cu (what third-party programs needed: NVIDIA's include-guard names, device
            attributes, host min/max, mapped host memory, stream callbacks and attributes, occupancy, 8000
            bytes of kernel parameters, directed rounding, scoped atomics, device memcpy, cooperative
            groups, calls from four host threads) passes its own check under --check and --functional;
            barrier_order.cu (thread 0 stores to shared memory, a barrier, all load) passes timed;
            cg_too_many_tiles.cu (16 tiles of 64 threads, one more than the named barriers) stops the
            run with one line naming the trap, exit 2
  um        selfcheck.cu under Unified Memory (docs/um.md; hbm_um with 512 frames for its 4 MiB): its pages start
            in host memory, its host copies between the 61 launches land where each page is (host or
            device), its atomics run on paged memory; it passes its own check under --check with pages
            going out (their dirty L2 lines with them) and coming back; without um.frames a CUDA program
            under RHBM < 1 stops with one line (its footprint is not known before it runs), exit 2
  placement  the placement engine with CUDA programs (docs/hybrid_dram_pcm.md "CUDA programs", configs/pc_sw):
            placed_allocs.cu's 15 allocations under --check pass its own check, 10 planned by their profile
            traffic and placed where the plan file says (DRAM part or PCM part of the map), the other 5 at
            the PCM part's top, the allocation after a cudaFree in the freed place; placement.force = dram
            puts every planned one in DRAM; a second run gives identical stats; pathfinder's plan has a
            lower simulated EDP than every array on PCM (pc_sw with placement.force = pcm)
  run-bad   one line and exit 2: a missing program, a file that is not executable, --workload with a
            program, an instruction the PTX executor does not implement (naming it), a DRAM cache
            sized by the footprint (memside.dcache.footprint_ratio, mode auto: unknown before the run)
"""
import os
import re
import shutil
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def check(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)


def one_line_exit2(r, what, needle):
    err = r.stderr.strip()
    check(r.returncode == 2, f"{what}: exit status {r.returncode}, expected 2 (stderr: {err!r})")
    check(len(err.splitlines()) == 1, f"{what}: expected one line on stderr, got {err!r}")
    check(needle in err, f"{what}: expected {needle!r} in {err!r}")


def case_features(strata, progs, work):
    keep = os.path.join(work, "keep")
    prog = os.path.join(work, "features")
    r = run([strata, "cuda", "build", os.path.join(progs, "features.cu"), "-o", prog, "--keep", keep])
    check(r.returncode == 0, f"build failed: {r.stderr}")
    check(os.access(prog, os.X_OK), "no program written")
    ptx = open(os.path.join(keep, "0_features.ptx")).read()
    for needle, what in [
        (r"\.entry\s+_Z8featuresPKfPfi\(", "the features kernel as a PTX entry (its mangled name)"),
        (r"\.entry\s+_Z9histogramPKiPiii\(", "the histogram kernel"),
        (r"\.shared\s+\.align\s+4\s+\.b8\s+\S*tile\[1024\]", "static shared memory (256 floats)"),
        (r"\.extern\s+\.shared", "dynamic (extern) shared memory"),
        (r"bar\.sync\s+0;", "__syncthreads as bar.sync 0"),
        (r"atom\.global\.add\.u32", "a global atomic add"),
        (r"atom\.shared\.add\.u32", "a shared-memory atomic add"),
        (r"vote\.sync\.ballot\.b32", "__ballot_sync"),
        (r"shfl\.sync\.down\.b32", "__shfl_down_sync"),
        (r"ld\.const\.f32", "a constant-memory load"),
        (r"\.const\s+\.align\s+4\s+\.b8\s+coeff\[16\]", "the __constant__ array"),
        (r"\.global\s+\.align\s+4\s+\.u32\s+big_values", "the __device__ variable"),
        (r"\.extern\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+__nv_expf", "expf as libdevice's __nv_expf"),
        (r"sqrt\.rn\.f32", "sqrtf as one PTX instruction"),
        (r"div\.approx\.f32", "__fdividef as div.approx"),
        (r"popc\.b32", "__popc"),
        (r"^\.version 6\.4", "PTX ISA 6.4 (the *_sync warp functions)"),
    ]:
        check(re.search(needle, ptx, re.M), f"PTX lacks {what} ({needle})")
    # outside strata the program names the command that runs it
    r = run([prog])
    one_line_exit2(r, "the program started outside strata", "strata cuda run")
    check(r.stdout == "", f"the program printed before failing: {r.stdout!r}")


def case_multi(strata, progs, work):
    prog = os.path.join(work, "multi")
    r = run([strata, "cuda", "build", os.path.join(progs, "multi.cu"), os.path.join(progs, "host_helpers.c"),
             os.path.join(progs, "host_check.cpp"), "-O", "1", "-D", "UNUSED_FLAG=1", "-I", progs, "-o", prog])
    check(r.returncode == 0, f"build failed: {r.stderr}")
    nm = run(["nm", prog]).stdout
    for sym in ("make_input", "cudaLaunchKernel", "__cudaRegisterFatBinary", "_Z13report_devicev"):
        check(re.search(rf"\s{re.escape(sym)}$", nm, re.M), f"the program lacks {sym}")


def case_bad(strata, progs, work):
    cu = os.path.join(progs, "features.cu")
    out = os.path.join(work, "p")
    one_line_exit2(run([strata, "cuda", "build", os.path.join(progs, "nope.cu"), "-o", out]), "a missing source",
                   "nope.cu: expected a source file")
    one_line_exit2(run([strata, "cuda", "build", os.path.join(progs, "host_helpers.c"), "-o", out]), "no .cu file",
                   "expected at least one .cu file")
    one_line_exit2(run([strata, "cuda", "build", os.path.abspath(__file__), "-o", out]),
                   "a source that is not .cu/.c/.cpp", "expected a .cu, .c or .cpp file")
    one_line_exit2(run([strata, "cuda", "build", cu, "-D", "=1", "-o", out]), "a bad -D", "expected NAME or NAME=VALUE")
    one_line_exit2(run([strata, "cuda", "build", cu, "-o", "/proc/x"]), "an unwritable -o", "-o /proc/x")
    one_line_exit2(run([strata, "cuda", "build", cu]), "no -o", "-o")
    one_line_exit2(run([strata, "cuda"]), "no subcommand", "expected a subcommand (build, run)")
    one_line_exit2(run([strata, "cuda", "biuld"]), "a misspelt subcommand", "did you mean 'build'")
    r = run([strata, "cuda", "build", os.path.join(progs, "broken.cu"), "-o", out])
    check(r.returncode == 1, f"a compiler error: exit {r.returncode}, expected 1")
    check("undeclared_name" in r.stderr, f"clang's message is not shown: {r.stderr!r}")
    check("broken.cu: device pass failed" in r.stderr, f"the failing step is not named: {r.stderr!r}")
    check(not os.path.exists(out), "a program was written despite the error")


def build(strata, progs, work, src, name):
    prog = os.path.join(work, name)
    r = run([strata, "cuda", "build", os.path.join(progs, src), "-o", prog])
    check(r.returncode == 0, f"build of {src} failed: {r.stderr}")
    return prog


def stats_of(out):
    import json
    with open(os.path.join(out, "stats.json")) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("host.")}


def case_run(strata, progs, work):
    prog = build(strata, progs, work, "selfcheck.cu", "selfcheck")
    outs = []
    for i in range(2):
        out = os.path.join(work, f"out{i}")
        r = run([strata, "cuda", "run", prog, "--quiet", "--out", out, "--", "2048"])
        check(r.returncode == 0, f"run {i}: exit {r.returncode}: {r.stderr}")
        check("selfcheck: n 2048, 54 propagation launches, 0 wrong" in r.stdout,
              f"run {i}: the program's output is missing or wrong: {r.stdout!r}")
        outs.append(stats_of(out))
        with open(os.path.join(out, "program.txt")) as f:
            pt = f.read()
        check(f"program = {prog}\nargs = 2048\nlaunches = 61\nexit_status = 0\n" in pt, f"program.txt: {pt!r}")
    check(outs[0] == outs[1], "two runs of the same program gave different stats")
    s = outs[0]
    names = {k.split(".")[2] for k in s if k.startswith("kernel.")}
    for k in ("vecadd", "block_sum", "propagate"):
        check(k in names, f"no kernel.<n>.{k}.* stats (got {sorted(names)})")
    launches = {k.split(".")[1] for k in s if k.startswith("kernel.")}
    prop = {k.split(".")[1] for k in s if k.startswith("kernel.") and k.split(".")[2] == "propagate"}
    check(len(launches) == 61 and len(prop) == 54,
          f"expected 61 launches, 54 of propagate; got {len(launches)} and {len(prop)}")
    # per-kernel counters of the PTX executor: 16 CTAs of block_sum make one atomic each; the reduction's
    # shared-memory accesses are conflict-free, strided's two are two-way conflicts; vecadd's warps are full
    # except the branch no lane takes
    for key, want in [("kernel.2.block_sum.insts.atomic", 16), ("kernel.2.block_sum.atomic_lanes", 16),
                      ("kernel.2.block_sum.shared_bank_conflicts", 0), ("kernel.57.strided.shared_accesses", 2),
                      ("kernel.57.strided.shared_bank_conflicts", 2), ("kernel.1.vecadd.insts.load", 128)]:
        check(s.get(key) == want, f"{key} = {s.get(key)}, expected {want}")
    check(30 < s["kernel.1.vecadd.active_lanes"] < 32, f"vecadd active lanes {s['kernel.1.vecadd.active_lanes']}")


def case_check(strata, progs, work):
    src = os.path.join(work, "vecadd.cu")
    doc = open(os.path.join(os.path.dirname(os.path.dirname(progs)), "..", "docs", "cuda.md")).read()
    code = doc.split("```cuda\n", 1)[1].split("```", 1)[0]
    with open(src, "w") as f:
        f.write(code)
    prog = os.path.join(work, "vecadd")
    r = run([strata, "cuda", "build", src, "-o", prog])
    check(r.returncode == 0, f"build failed: {r.stderr}")
    r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", os.path.join(work, "out")])
    check(r.returncode == 0, f"--check run: exit {r.returncode}: {r.stderr}")
    check(r.stdout.strip() == "ok", f"the program's output: {r.stdout!r}")
    # selfcheck under --check: host copies between launches reach the L2's copies too (twice), the atomics'
    # results the devices
    prog = build(strata, progs, work, "selfcheck.cu", "selfcheck")
    r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", os.path.join(work, "out2"), "--", "4096"])
    check(r.returncode == 0, f"selfcheck --check: exit {r.returncode}: {r.stdout} {r.stderr}")


def case_status(strata, progs, work):
    prog = build(strata, progs, work, "selfcheck.cu", "selfcheck")
    r = run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "out"), "--", "256", "1"])
    check(r.returncode == 3, f"a program exiting 3: strata exited {r.returncode}, expected 3 ({r.stderr})")
    check("0 wrong" in r.stdout, f"the program's output is missing: {r.stdout!r}")


def case_functional(strata, progs, work):
    prog = build(strata, progs, work, "selfcheck.cu", "selfcheck")
    r = run([strata, "cuda", "run", "--functional", prog, "--", "2048"])
    check(r.returncode == 0, f"--functional: exit {r.returncode}: {r.stderr}")
    check("selfcheck: n 2048, 54 propagation launches, 0 wrong" in r.stdout, f"the program's output: {r.stdout!r}")
    m = re.search(r"--functional: \S+: (\d+) launches, (\d+) warp instructions", r.stdout)
    check(m and m.group(1) == "61", f"the functional summary: {r.stdout!r}")
    # the same warp instructions as the timed run executes (the executor is the same)
    out = os.path.join(work, "out")
    t = run([strata, "cuda", "run", prog, "--quiet", "--out", out, "--", "2048"])
    check(t.returncode == 0, f"timed run: {t.stderr}")
    check(stats_of(out)["gpu.warp_instructions"] == int(m.group(2)),
          f"timed {stats_of(out)['gpu.warp_instructions']} vs functional {m.group(2)} warp instructions")
    r = run([strata, "cuda", "run", "--functional", prog, "--", "256", "1"])
    check(r.returncode == 3, f"--functional passes the program's status: {r.returncode}")
    un = build(strata, progs, work, "unsupported.cu", "unsupported")
    one_line_exit2(run([strata, "cuda", "run", "--functional", un]), "--functional, unsupported instruction", "brkpt")
    sd = build(strata, progs, work, "shuffle_double.cu", "shuffle_double")
    r = run([strata, "cuda", "run", "--functional", sd])
    check(r.returncode == 0, f"double shuffles: {r.stdout}")
    rn = build(strata, progs, work, "rounding.cu", "rounding")
    r = run([strata, "cuda", "run", "--functional", rn])
    check(r.returncode == 0, f"__fmul_rn/__fadd_rn against fmaf: {r.stdout}")


def case_atomics(strata, progs, work):
    prog = build(strata, progs, work, "atomics.cu", "atomics")
    outs = []
    for i in range(2):
        out = os.path.join(work, f"out{i}")
        r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", out, "--", "8"])
        check(r.returncode == 0, f"run {i}: exit {r.returncode}: {r.stdout} {r.stderr}")
        check("atomics ok (1024 threads)" in r.stdout, f"run {i}: the program's output: {r.stdout!r}")
        outs.append(stats_of(out))
    check(outs[0] == outs[1], "two runs of the same program gave different stats")
    s = outs[0]
    lanes = s["l2.atomic_lanes"]
    check(lanes > 0 and s["check.atomics"] == lanes, f"l2.atomic_lanes {lanes} vs check.atomics {s['check.atomics']}")
    check(s["kernel.1.contend.atomic_lanes"] == lanes, f"executor atomic lanes {s['kernel.1.contend.atomic_lanes']}")
    check(s["kernel.1.contend.atomic_instructions"] == s["kernel.1.contend.insts.atomic"] == s["gpu.atomic_instructions"],
          "atomic warp instructions: SM, executor and GPU totals differ")
    check(s["l2.atomics"] == s["gpu.atomic_requests"] == s["kernel.1.contend.atomic_requests"],
          "atomic requests sent and performed differ")
    r = run([strata, "cuda", "run", "--functional", prog, "--", "8"])
    check(r.returncode == 0 and "atomics ok" in r.stdout, f"--functional: {r.returncode} {r.stdout}")


def case_local(strata, progs, work):
    prog = build(strata, progs, work, "local.cu", "local")
    s = {}
    for mode in ("local", "reg"):
        out = os.path.join(work, f"out_{mode}")
        r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", out, "--", "1", "32", mode])
        check(r.returncode == 0 and f"local {mode}: 32 threads, 0 wrong" in r.stdout, f"{mode}: {r.returncode} {r.stdout} {r.stderr}")
        s[mode] = stats_of(out)
    k = "kernel.1.with_local."
    # 32 stores of a[i] (one word of the 32 lanes: one line each) and 8 loads of a[idx[j]] (distinct words)
    for key, want in [("local_stores", 32), ("local_loads", 8), ("local_lines", 40), ("insts.local", 40)]:
        check(s["local"].get(k + key) == want, f"{k}{key} = {s['local'].get(k + key)}, expected {want}")
    extra = s["local"]["l2.accesses"] - s["reg"]["l2.accesses"]
    check(extra == 40, f"L2 accesses of the local memory: {extra}, expected 40 (32 write-through stores, 8 load misses)")
    check(s["local"]["check.loads"] > s["reg"]["check.loads"], "the local loads were not checked")
    for args in (["40", "96", "local"], ["24", "64", "wide"]):
        out = os.path.join(work, "out_" + "_".join(args))
        r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", out, "--", *args])
        n = int(args[0]) * int(args[1])
        check(r.returncode == 0 and f"local {args[2]}: {n} threads, 0 wrong" in r.stdout, f"{args}: {r.returncode} {r.stdout} {r.stderr}")
        ks = stats_of(out)
        loads = sum(v for key, v in ks.items() if key.endswith(".local_loads"))
        check(loads > 0 and ks["l2.accesses"] > ks.get("l2.atomics", 0), f"{args}: no local loads reached the memory system")
        r = run([strata, "cuda", "run", "--functional", prog, "--", *args])
        check(r.returncode == 0 and "0 wrong" in r.stdout, f"--functional {args}: {r.returncode} {r.stdout}")
def case_realprog(strata, progs, work):
    prog = build(strata, progs, work, "realprog_api.cu", "realprog_api")
    r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", os.path.join(work, "out")])
    check(r.returncode == 0, f"--check run: exit {r.returncode}: {r.stdout} {r.stderr}")
    check(r.stdout.strip() == "realprog_api ok", f"the program's output: {r.stdout!r}")
    r = run([strata, "cuda", "run", "--functional", prog])
    check(r.returncode == 0 and "realprog_api ok" in r.stdout, f"--functional: {r.returncode} {r.stdout}")
    prog = build(strata, progs, work, "barrier_order.cu", "barrier_order")
    for early in ("0", "1"):
        r = run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "out_bar" + early), "--", early])
        check(r.returncode == 0 and "bad -1" in r.stdout, f"shared store, barrier, load (timed): {r.stdout} {r.stderr}")
    prog = build(strata, progs, work, "cg_too_many_tiles.cu", "cg_too_many_tiles")
    r = run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "out_trap")])
    one_line_exit2(r, "16 tiles of 64 threads", "trap executed")
    check("not stopped" not in r.stdout, f"the kernel ran on: {r.stdout!r}")


def case_atomic_overlap(strata, progs, work):
    prog = build(strata, progs, work, "atomic_overlap.cu", "atomic_overlap")
    cyc = {}
    for mode in ("indep", "last", "dep"):
        for n in (1, 4):
            out = os.path.join(work, f"out_{mode}_{n}")
            r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", out, "--set", f"sm.max_atomics_per_warp={n}",
                     "--", mode, "4"])
            check(r.returncode == 0 and f"atomic_overlap {mode}: 256 threads, 0 wrong" in r.stdout,
                  f"{mode}, {n} in flight: {r.returncode} {r.stdout} {r.stderr}")
            s = stats_of(out)
            check(s["check.atomics"] == s["l2.atomic_lanes"] > 0, f"{mode}, {n}: check.atomics {s['check.atomics']}")
            cyc[mode, n] = s["gpu.cycles"]
    check(cyc["indep", 4] < 0.6 * cyc["indep", 1], f"independent atomics do not overlap: {cyc['indep', 4]} cycles with 4 "
          f"in flight, {cyc['indep', 1]} with 1")
    check(cyc["last", 4] < 0.6 * cyc["last", 1], f"a loop's atomics to one register do not overlap: {cyc['last', 4]} "
          f"cycles with 4 in flight, {cyc['last', 1]} with 1")
    check(cyc["dep", 4] == cyc["dep", 1], f"dependent atomics: {cyc['dep', 4]} cycles with 4 in flight, {cyc['dep', 1]} with 1")


KPRINTF_CONVERSIONS = """\
int -42 -42 3735928559 deadbeef DEADBEEF 33653337357|  -42|-42  |-0042|-42|4464|44
long -1234567890123 -1234567890123 18446742839141661493 fffffee08e04fb35 42
float 3.141593 3.142 3.141593e+00 3.14E+00 3.14159 1E-10     2.5000|2.50      |0x1p+0
str hello|   hello|hello   |he|ok|0x1234abcd|0x0|100%|   -42|3.14
"""


def case_printf(strata, progs, work):
    prog = build(strata, progs, work, "kprintf.cu", "kprintf")
    lanes = "".join(f"lane {t} of warp 0\n" for t in range(1, 20, 2))
    runs = []
    for i, extra in enumerate([[], [], ["--functional"]]):
        cmd = [strata, "cuda", "run"] + extra + [prog]
        if not extra:
            cmd += ["--quiet", "--out", os.path.join(work, f"out{i}")]
        r = run(cmd)
        check(r.returncode == 0, f"run {i}: exit {r.returncode}: {r.stderr}")
        out = r.stdout if not extra else r.stdout.split("strata cuda run --functional")[0]
        runs.append(out)
        want_head = "host before\n" + KPRINTF_CONVERSIONS + "host between\n" + lanes
        check(out.startswith(want_head), f"run {i}: expected\n{want_head}\ngot\n{out}")
        rest = out[len(want_head):]
        check(rest.endswith("host after\n"), f"run {i}: the program's last line is not last: {rest!r}")
        blocks = rest[:-len("host after\n")].splitlines()
        want = sorted(f"block {b} thread {t}" for b in range(3) for t in range(40))
        check(sorted(blocks) == want, f"run {i}: the 3 x 40 threads' lines: {blocks}")
        for b in range(3):  # within a warp, lane order
            for w in range(2):
                mine = [int(x.split()[3]) for x in blocks if x.startswith(f"block {b} ") and int(x.split()[3]) // 32 == w]
                check(mine == sorted(mine), f"run {i}: block {b} warp {w}: lanes out of order: {mine}")
    check(runs[0] == runs[1], "two timed runs printed differently")
    r = run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "out_c"), "--", "2"])
    check(r.returncode == 0 and r.stdout == "const format 0 global abcdefg\nconst format 1 global bcdefgh\ndone\n",
          f"format in constant memory: {r.returncode} {r.stdout!r} {r.stderr!r}")
    r = run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "out_bad"), "--", "1"])
    one_line_exit2(r, "a bad printf conversion", "printf format \"value %y\\n\": unsupported conversion '%y'")
    check(r.stdout == "before\n", f"the program's output before the failing launch: {r.stdout!r}")
    r = run([strata, "cuda", "run", "--describe", prog, "--", "2"])
    check(r.returncode == 0 and "const format 1 global bcdefgh" in r.stderr and "const format" not in r.stdout,
          f"--describe: the kernel's text goes with the program's to stderr: {r.stdout!r} {r.stderr!r}")


def case_textures(strata, progs, work):
    prog = build(strata, progs, work, "textures.cu", "textures")
    out = os.path.join(work, "out")
    r = run([strata, "cuda", "run", prog, "--check", "--quiet", "--out", out, "--", "1000"])
    check(r.returncode == 0, f"--check: exit {r.returncode}: {r.stdout} {r.stderr}")
    m = re.match(r"textures: n 1000, gather sum (-?[0-9.]+): ok\n$", r.stdout)
    check(m is not None, f"the program's output: {r.stdout!r}")
    s = stats_of(out)
    check(s["check.loads"] > 0, "no load was checked against the golden memory")
    # gather_obj: 8 fetches per thread of 1000 threads: 8 tex instructions per warp (32 warps), plus the index loads
    check(s["kernel.1.gather_obj.insts.load"] == 32 * 8 * 2, f"gather_obj loads {s['kernel.1.gather_obj.insts.load']}")
    ptx_dir = os.path.join(work, "keep")
    r = run([strata, "cuda", "build", os.path.join(progs, "textures.cu"), "-o", prog + "_k", "--keep", ptx_dir])
    ptx = open(os.path.join(ptx_dir, "0_textures.ptx")).read()
    for needle in [r"\.global \.texref tref_f;", r"tex\.1d\.v4\.f32\.s32", r"tex\.1d\.v4\.s32\.s32",
r"mov\.u64\s+%rd\d+, tref_i2;"]:
        check(re.search(needle, ptx), f"the PTX has no {needle}")
    f = run([strata, "cuda", "run", "--functional", prog, "--", "1000"])
    check(f.returncode == 0 and f.stdout.startswith(m.group(0)), f"--functional: {f.returncode} {f.stdout}")
    one_line_exit2(run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "o1"), "--", "100", "1"]),
                   "a texture on a CUDA array", "a texture on cudaResourceTypeArray; Strata implements textures on linear memory")
    one_line_exit2(run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "o2"), "--", "100", "2"]),
                   "a fetch through an unbound texture reference", "not a texture object or a bound texture reference")
    p2 = os.path.join(work, "textures2d")
    r = run([strata, "cuda", "build", os.path.join(progs, "textures.cu"), "-D", "TEX2D", "-o", p2])
    check(r.returncode == 0, f"build -D TEX2D: {r.stderr}")
    one_line_exit2(run([strata, "cuda", "run", p2, "--quiet", "--out", os.path.join(work, "o3")]), "a 2D fetch",
                   "unsupported instruction 'tex.2d.v4.f32.f32 (texture geometry other than 1d)'")


def case_run_bad(strata, progs, work):
    one_line_exit2(run([strata, "cuda", "run", os.path.join(work, "nope")]), "a missing program", "no such file")
    one_line_exit2(run([strata, "cuda", "run", os.path.join(progs, "selfcheck.cu")]), "a file that is not executable",
                   "not executable")
    prog = build(strata, progs, work, "unsupported.cu", "unsupported")
    one_line_exit2(run([strata, "cuda", "run", prog, "--workload", "stream"]), "--workload with a program",
                   "expected no workload")
    r = run([strata, "cuda", "run", prog, "--quiet", "--out", os.path.join(work, "out")])
    one_line_exit2(r, "an unsupported instruction", "brkpt")
    # a DRAM cache sized by the footprint needs the footprint before the run; a program allocates as it runs
    for kv, needle in [("memside.dcache.footprint_ratio=0.375", "got a footprint ratio"),
                       ("memside.dcache.mode=auto", "got mode auto")]:
        r = run([strata, "cuda", "run", prog, "--config", "hms", "--set", kv, "--out", os.path.join(work, "out_dc")])
        one_line_exit2(r, f"--set {kv} with a CUDA program", needle)


def case_um(strata, progs, work):
    prog = build(strata, progs, work, "selfcheck.cu", "selfcheck")
    out = os.path.join(work, "out")
    r = run([strata, "cuda", "run", prog, "--config", "hbm_um", "--set", "um.frames=512", "--check", "--quiet",
             "--out", out, "--", "262144"])
    check(r.returncode == 0, f"under UM: exit {r.returncode}: {r.stdout} {r.stderr}")
    check("selfcheck: n 262144, 54 propagation launches, 0 wrong" in r.stdout, f"the program's output: {r.stdout!r}")
    s = stats_of(out)
    check(s["check.loads"] > 0, "--check compared no loads")
    check(s["um.frames"] == 512 and s["um.resident_pages_peak"] <= 512, f"frames {s['um.frames']}, peak "
          f"{s['um.resident_pages_peak']}")
    check(s["um.pages_out"] > 0 and s["um.pages_in"] > s["workload.footprint_bytes"] // 4096 // 2,
          f"pages in {s['um.pages_in']} / out {s['um.pages_out']}: expected eviction and refaults")
    check(s["um.l2_dirty_lines"] > 0, "no leaving page had a dirty L2 line")
    check(s["um.host_link.bytes_in"] == s["um.pages_in"] * 4096, "page bytes in vs pages in")
    r = run([strata, "cuda", "run", prog, "--config", "hbm_um", "--out", os.path.join(work, "out_bad")])
    one_line_exit2(r, "RHBM < 1 without um.frames for a CUDA program", "expected um.frames")


def placed_run(strata, prog, work, name, sets=(), args=()):
    out = os.path.join(work, name)
    cmd = [strata, "cuda", "run", prog, "--config", "pc_sw", "--check", "--quiet", "--out", out]
    for kv in sets:
        cmd += ["--set", kv]
    r = run(cmd + ["--"] + list(args) if args else cmd)
    check(r.returncode == 0, f"{name}: exit {r.returncode}: {r.stdout} {r.stderr}")
    return out, r.stdout


def case_placement(strata, progs, work):
    prog = build(strata, progs, work, "placed_allocs.cu", "placed_allocs")
    out, text = placed_run(strata, prog, work, "plan")
    check("placed_allocs: 0 wrong" in text, f"the program's own check: {text!r}")
    addr = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"array (\d+) at (\d+)", text)}
    extra = int(re.search(r"extra at (\d+)", text).group(1))
    conf = open(os.path.join(out, "config.txt")).read()
    check(re.search(r'addrmap.part_order = "nvm, dram"', conf), "pc_sw's map is no longer NVM part, then DRAM")
    gib = {"GiB": 1 << 30, "MiB": 1 << 20}
    m = re.search(r"addrmap.nvm_size = (\d+)(GiB|MiB)", conf)
    nvm = int(m.group(1)) * gib[m.group(2)]  # the PCM part is [0, nvm), the DRAM part above it
    s = stats_of(out)
    check(s["check.loads"] > 0, "--check compared no loads")
    check(s["placement.allocations"] == 15 and s["placement.unplanned_allocations"] == 5,
          f"allocations {s['placement.allocations']}, unplanned {s['placement.unplanned_allocations']}")
    plan = open(os.path.join(out, "placement_plan.txt")).read()
    first = re.search(r"^kernel 0 sum_arrays:(.*?)  predicted", plan, re.M)
    check(first, f"no kernel 0 in the plan: {plan[:300]!r}")
    where = dict(re.findall(r"alloc(\d+)=([DP])", first.group(1)))
    check(sorted(int(a) for a in where) == [3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
          f"planned allocations {sorted(where)}: expected the pointer table and arrays 3..11 (most traffic)")
    for i in range(3, 12):
        in_dram = addr[i] >= nvm
        check(in_dram == (where[str(i)] == "D"), f"array {i} at {addr[i]} but planned {where[str(i)]}")
        check(in_dram or addr[i] < nvm - (1 << 20), f"planned array {i} at {addr[i]}: in the unplanned top")
    for i in range(3):
        check(nvm - (1 << 20) <= addr[i] < nvm, f"unplanned array {i} at {addr[i]}: not at the PCM part's top")
    check(extra == addr[0], f"the allocation after freeing array 0 at {extra}, array 0 was at {addr[0]}")
    out2, _ = placed_run(strata, prog, work, "plan2")
    check(stats_of(out2) == s, "two runs of the same program and placement differ")
    _, text = placed_run(strata, prog, work, "dram", ["placement.force=dram"])
    addr = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"array (\d+) at (\d+)", text)}
    check(all(addr[i] >= nvm for i in range(3, 12)), f"placement.force = dram: {addr}")
    check(all(addr[i] < nvm for i in range(3)), f"placement.force = dram moved unplanned arrays: {addr}")
    # a real program: the plan against every array on PCM (the paper's pc-sw against pcm-only, Sec. VII)
    pf = build(strata, os.path.join(progs, "..", "..", "..", "workloads", "cuda"), work, "pathfinder.cu", "pathfinder")
    edp = {}
    for name, sets in [("pf_plan", []), ("pf_pcm", ["placement.force=pcm"])]:
        out, _ = placed_run(strata, pf, work, name, sets, ["20000", "40", "1"])
        edp[name] = stats_of(out)["sim.edp"]
    check(edp["pf_plan"] < edp["pf_pcm"], f"pathfinder's plan EDP {edp['pf_plan']} not below all-PCM {edp['pf_pcm']}")


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    case, strata, progs, work = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"features": case_features, "multi": case_multi, "bad": case_bad, "run": case_run, "check": case_check,
     "status": case_status, "run-bad": case_run_bad, "functional": case_functional,
     "atomics": case_atomics, "local": case_local, "atomic-overlap": case_atomic_overlap, "printf": case_printf,
     "textures": case_textures, "realprog": case_realprog, "um": case_um,
     "placement": case_placement}[case](strata, progs, work)
    print(f"cuda {case}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
