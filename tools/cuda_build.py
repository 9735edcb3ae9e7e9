#!/usr/bin/env python3
"""`strata cuda build`: a CUDA program for the simulated GPU, with Debian's clang and no NVIDIA software.

  strata cuda build SRC.cu [MORE.cu|.c|.cpp ...] [-I DIR] [-D NAME[=VAL]] [-O LEVEL] -o PROG

Each .cu file is compiled twice, as nvcc does (docs/cuda.md "Building a program"):
  1. device pass: clang -x cuda --cuda-device-only ... -S -> PTX text (no libdevice, no CUDA headers:
     cuda/include is Strata's own, included in every CUDA source as nvcc includes cuda_runtime.h);
  2. host pass: clang -x cuda --cuda-host-only with the PTX embedded as the "GPU binary"
     (-fcuda-include-gpubinary), so the program registers its PTX and kernels at start-up through
     __cudaRegisterFatBinary / __cudaRegisterFunction, which Strata's runtime implements.
.c and .cpp files are compiled as host code (the CUDA headers are on their include path). The objects
are linked with Strata's CUDA runtime (libstrata_cudart.a) and libm into PROG, an ordinary host
program: `strata cuda run PROG -- ARGS` runs it on the simulated GPU.

Input errors are one line on stderr and exit status 2; a compiler error is shown as clang prints it,
and the exit status is 1.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cliargs import Parser, printable, writable_file  # noqa: E402

SRC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(SRC_DIR, "cuda", "include")
# The GPU architecture clang compiles for and the PTX ISA feature it may use: sm_70 with PTX 6.4 has
# the *_sync warp functions (vote, shfl, bar.warp.sync) CUDA 9+ sources call.
ARCH = "sm_70"
PTX_FEATURE = "+ptx64"
CUDA_EXT = (".cu",)
C_EXT = (".c",)
CXX_EXT = (".cpp", ".cc", ".cxx", ".C")


def fail(msg):
    sys.stderr.write(f"strata cuda build: {printable(msg)}\n")
    sys.exit(2)


def find_clang():
    for name in ("clang++", "clang++-14", "clang++-15", "clang++-16"):
        p = shutil.which(name)
        if p:
            return p
    fail("expected clang++ on PATH (Debian package clang; `make setup` installs it)")


def runtime_library():
    lib = os.environ.get("STRATA_CUDA_RUNTIME", "")
    if not lib or not os.path.isfile(lib):
        fail(f"expected Strata's CUDA runtime library at {printable(lib) or '(unset STRATA_CUDA_RUNTIME)'}: "
             "build Strata first (cmake --build build)")
    return lib


def run(cmd, what):
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.stderr.write(f"strata cuda build: {what} failed (exit {r.returncode}): {' '.join(cmd)}\n")
        sys.exit(1)


def main(argv):
    ap = Parser(prog="strata cuda build", description=__doc__.split("\n\n")[0],
                formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    ap.add_argument("sources", nargs="+", metavar="SRC", help=".cu, .c or .cpp files")
    ap.add_argument("-o", dest="out", required=True, metavar="PROG", help="the program to write")
    ap.add_argument("-I", dest="incs", action="append", default=[], metavar="DIR", help="include folder")
    ap.add_argument("-D", dest="defs", action="append", default=[], metavar="NAME[=VAL]", help="macro")
    ap.add_argument("-O", dest="opt", default="2", choices=["0", "1", "2", "3", "s"], help="optimisation level")
    ap.add_argument("--keep", metavar="DIR", help="keep the PTX and objects in DIR (for inspection)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each compiler command")
    a = ap.parse_args(argv)

    for s in a.sources:
        if not os.path.isfile(s):
            fail(f"{s}: expected a source file, got no such file")
        if not s.endswith(CUDA_EXT + C_EXT + CXX_EXT):
            fail(f"{s}: expected a .cu, .c or .cpp file")
    if not any(s.endswith(CUDA_EXT) for s in a.sources):
        fail("expected at least one .cu file among the sources")
    for d in a.incs:
        if not os.path.isdir(d):
            fail(f"-I {d}: expected a folder")
    for d in a.defs:
        if not d or d.startswith("=") or not (d.split("=", 1)[0].replace("_", "a").isalnum()):
            fail(f"-D {d}: expected NAME or NAME=VALUE")
    why = writable_file(a.out, "-o")
    if why:
        fail(why)
    clang = find_clang()
    lib = runtime_library()

    work = a.keep or tempfile.mkdtemp(prefix="strata-cuda-")
    os.makedirs(work, exist_ok=True)
    common = [f"-O{a.opt}", "-I", INCLUDE] + [f"-I{d}" for d in a.incs] + [f"-D{d}" for d in a.defs]
    cuda = ["-x", "cuda", "-nocudainc", "-nocudalib", f"--cuda-gpu-arch={ARCH}", "-Wno-unknown-cuda-version",
            "-include", "cuda_runtime.h"]
    objs = []
    try:
        for i, s in enumerate(a.sources):
            stem = f"{i}_{os.path.splitext(os.path.basename(s))[0]}"
            obj = os.path.join(work, stem + ".o")
            if s.endswith(CUDA_EXT):
                ptx = os.path.join(work, stem + ".ptx")
                dev = [clang] + cuda + common + ["--cuda-device-only", "-Xclang", "-target-feature", "-Xclang",
                                                 PTX_FEATURE, "-S", s, "-o", ptx]
                host = [clang] + cuda + common + ["--cuda-host-only", "-Xclang", "-fcuda-include-gpubinary",
                                                  "-Xclang", ptx, "-c", s, "-o", obj]
                for cmd, what in ((dev, f"{s}: device pass"), (host, f"{s}: host pass")):
                    if a.verbose:
                        print(" ".join(cmd))
                    run(cmd, what)
            else:
                lang = ["-x", "c"] if s.endswith(C_EXT) else ["-x", "c++"]
                cmd = [clang] + lang + common + ["-c", s, "-o", obj]
                if a.verbose:
                    print(" ".join(cmd))
                run(cmd, f"{s}: compile")
            objs.append(obj)
        link = [clang] + objs + [lib, "-lm", "-lpthread", "-o", a.out]
        if a.verbose:
            print(" ".join(link))
        run(link, "link")
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
