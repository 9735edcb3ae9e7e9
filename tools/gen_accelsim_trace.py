#!/usr/bin/env python3
"""Synthetic Accel-Sim SASS trace of a chosen size, for the streaming-reader benchmark
(docs/accelsim_traces.md, "Streaming"): how much memory `strata --trace` needs as traces grow.

  gen_accelsim_trace.py OUT_DIR [--bytes SIZE] [--ctas N] [--warps-per-cta W]

Writes OUT_DIR/kernelslist.g (two MemcpyHtoD of 16 MiB arrays a and b, then kernel-1.traceg)
and OUT_DIR/kernel-1.traceg (tracer version 4): a grid-stride vector add c = a + b. Every warp
runs `iters` iterations of LDG a (address mode 0, 32 explicit addresses), LDG b (mode 0), FADD,
STG c (mode 1, base + stride), then EXIT; `iters` is chosen so the kernel file reaches about
--bytes (default 1 GiB). Arrays wrap at 16 MiB, so the data footprint stays 48 MiB whatever the
trace size: peak RSS that grows with the trace would show the reader holding the trace.
"""
import argparse
import os

ARRAY = 16 << 20
A, B, C = 0x7f0000000000, 0x7f0001000000, 0x7f0002000000


def size(s):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    s = s.strip().upper().replace("IB", "").replace("B", "")
    return int(float(s[:-1]) * m[s[-1]]) if s[-1] in m else int(s)


def warp_text(cta, warp, wpc, ctas, iters):
    lines = []
    for i in range(iters):
        first = (((i * ctas + cta) * wpc + warp) * 32 * 4) % ARRAY
        la = " ".join(f"0x{A + first + 4 * l:016x}" for l in range(32))
        lb = " ".join(f"0x{B + first + 4 * l:016x}" for l in range(32))
        lines.append(f"0010 ffffffff 1 R4 LDG.E 1 R2 4 0 {la} ")
        lines.append(f"0018 ffffffff 1 R5 LDG.E 1 R3 4 0 {lb} ")
        lines.append("0020 ffffffff 1 R6 FADD 2 R4 R5 0 ")
        lines.append(f"0028 ffffffff 0 STG.E 2 R7 R6 4 1 0x{C + first:x} 4 ")
    lines.append("0030 ffffffff 0 EXIT 0 0 ")
    return f"warp = {warp}\ninsts = {len(lines)}\n" + "\n".join(lines) + "\n\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--bytes", default="1GiB", help="approximate kernel trace size (default %(default)s)")
    ap.add_argument("--ctas", type=int, default=2000)
    ap.add_argument("--warps-per-cta", type=int, default=8)
    a = ap.parse_args()
    target, ctas, wpc = size(a.bytes), a.ctas, a.warps_per_cta
    per_iter = len(warp_text(0, 0, wpc, ctas, 1)) - len(warp_text(0, 0, wpc, ctas, 0))
    iters = max(1, target // (per_iter * ctas * wpc))
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "kernelslist.g"), "w") as f:
        f.write(f"MemcpyHtoD,0x{A:016x},{ARRAY}\nMemcpyHtoD,0x{B:016x},{ARRAY}\nkernel-1.traceg\n")
    with open(os.path.join(a.out, "kernel-1.traceg"), "w") as f:
        f.write("-kernel name = synthetic_vadd\n-kernel id = 1\n"
                f"-grid dim = ({ctas},1,1)\n-block dim = ({32 * wpc},1,1)\n-shmem = 0\n-nregs = 8\n"
                "-binary version = 70\n-cuda stream id = 0\n-shmem base_addr = 0x00007fd194000000\n"
                "-local mem base_addr = 0x00007fd192000000\n-nvbit version = 1.5.5\n"
                "-accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
                "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width "
                "[adrrescompress?] [mem_addresses]\n\n")
        for c in range(ctas):
            f.write(f"#BEGIN_TB\n\nthread block = {c},0,0\n\n")
            for w in range(wpc):
                f.write(warp_text(c, w, wpc, ctas, iters))
            f.write("#END_TB\n\n")
    n = os.path.getsize(os.path.join(a.out, "kernel-1.traceg"))
    print(f"{a.out}: {ctas} CTAs x {wpc} warps x {iters} iterations, kernel-1.traceg {n / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
