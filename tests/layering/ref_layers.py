#!/usr/bin/env python3
"""Layering check of models/ref (tests/layering/CMakeLists.txt): every #include of a C reference
file names a header of its own folder (bare) or of a folder its folder's README allows
("May include: base/, mem/"), written as "<folder>/<file>.h". Generated *_params.h headers are
allowed everywhere; system headers (<...>) are not checked. Exit 1 with one line per breach."""
import os
import re
import subprocess
import sys
import tempfile


def self_test():
    """A small tree with three breaches: the check must name each and fail."""
    with tempfile.TemporaryDirectory() as t:
        files = {
            "base/README.md": "May include: nothing\n", "base/a.h": "",
            "top/README.md": "May include: base/\n", "top/b.h": "",
            "base/a.c": '#include "a.h"\n#include "top/b.h"\n',  # base may not include top/
            "top/b.c": '#include "b.h"\n#include "base/a.h"\n#include "base/none.h"\n#include "a.h"\n',
        }
        for f, text in files.items():
            os.makedirs(os.path.join(t, os.path.dirname(f)), exist_ok=True)
            open(os.path.join(t, f), "w").write(text)
        r = subprocess.run([sys.executable, __file__, t], capture_output=True, text=True)
        want = ["base/a.c: #include \"top/b.h\"", "base/none.h\": no such header", "top/b.c: #include \"a.h\""]
        missing = [w for w in want if w not in r.stdout]
        if r.returncode != 1 or missing or "3 breaches" not in r.stdout:
            print(f"ref_layers self-test: exit {r.returncode}, missing {missing}:\n{r.stdout}")
            return 1
        print("ref_layers self-test: 3 breaches found as expected")
        return 0


if len(sys.argv) > 1 and sys.argv[1] == "--self-test":
    sys.exit(self_test())
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "models", "ref")
folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
allowed, bad = {}, []
for d in folders:
    readme = os.path.join(root, d, "README.md")
    if not os.path.isfile(readme):
        bad.append(f"{d}/: no README.md saying what it holds and may include")
        continue
    m = re.search(r"^May include:(.*)$", open(readme, encoding="utf-8").read(), re.M)
    if not m:
        bad.append(f"{d}/README.md: no 'May include:' line")
        continue
    allowed[d] = set(re.findall(r"\b([a-z]+)/", m.group(1))) & set(folders)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
checked = 0
for d in folders:
    for f in sorted(os.listdir(os.path.join(root, d))):
        if not f.endswith((".c", ".h")):
            continue
        src = open(os.path.join(root, d, f), encoding="utf-8").read()
        for h in inc.findall(src):
            checked += 1
            where = f"models/ref/{d}/{f}: #include \"{h}\""
            if "/" not in h:
                if not (os.path.isfile(os.path.join(root, d, h)) or h.endswith("_params.h")):
                    bad.append(f"{where}: expected a header of {d}/ or \"<folder>/{h}\"")
                continue
            top = h.split("/")[0]
            if top not in folders:
                bad.append(f"{where}: expected a models/ref folder ({', '.join(folders)})")
            elif top != d and top not in allowed.get(d, set()):
                bad.append(f"{where}: {d}/ may include only {sorted(allowed.get(d, set())) or 'nothing'} "
                           f"(models/ref/{d}/README.md)")
            elif not os.path.isfile(os.path.join(root, h)):
                bad.append(f"{where}: no such header")
for b in bad:
    print(b)
print(f"ref_layers: {len(folders)} folders, {checked} includes checked, {len(bad)} breaches")
sys.exit(1 if bad else 0)
