#!/usr/bin/env python3
"""Validate a VCD file by parsing it (vcd2fst exits 0 even on garbage, see TOOLBOX.md).

Checks: header sections ($timescale, $scope/$upscope balance, $var declarations with unique ids,
$enddefinitions), every value change refers to a declared id, timestamps strictly increase, scalar
values in 01xz, vector values b[01xz]+, real values r<float>. Usage: vcdcheck.py FILE; exit 1 on error.
"""
import sys


def check(path):
    with open(path) as f:
        text = f.read()
    toks = text.split()
    i = 0
    ids, names, scope = {}, [], []
    timescale = None
    defs_done = False
    while i < len(toks) and not defs_done:
        t = toks[i]
        if t == "$var":
            end = toks.index("$end", i)
            kind, width, ident, name = toks[i + 1], toks[i + 2], toks[i + 3], toks[i + 4]
            if ident in ids:
                raise ValueError(f"duplicate id {ident}")
            full = ".".join(scope + [name])
            ids[ident] = (kind, int(width), full)
            names.append(full)
            i = end + 1
        elif t == "$scope":
            end = toks.index("$end", i)
            scope.append(toks[i + 2] if end - i >= 3 else "?")
            i = end + 1
        elif t == "$upscope":
            if not scope:
                raise ValueError("unbalanced $upscope")
            scope.pop()
            i = toks.index("$end", i) + 1
        elif t == "$timescale":
            end = toks.index("$end", i)
            timescale = " ".join(toks[i + 1:end])
            i = end + 1
        elif t == "$enddefinitions":
            defs_done = True
            i = toks.index("$end", i) + 1
        elif t.startswith("$"):
            i = toks.index("$end", i) + 1
        else:
            raise ValueError(f"unexpected token {t!r} in header")
    if not defs_done:
        raise ValueError("no $enddefinitions")
    if scope:
        raise ValueError("unbalanced $scope")
    if not timescale:
        raise ValueError("no $timescale")
    if not ids:
        raise ValueError("no $var")
    last = -1
    changes = 0
    while i < len(toks):
        t = toks[i]
        if t.startswith("#"):
            now = int(t[1:])
            if now <= last:
                raise ValueError(f"time {now} not after {last}")
            last = now
            i += 1
        elif t in ("$dumpvars", "$dumpall", "$dumpon", "$dumpoff", "$end"):
            i += 1
        elif t == "$comment":
            i = toks.index("$end", i) + 1
        elif t[0] in "bBrR":
            val, ident = t[1:], toks[i + 1]
            if ident not in ids:
                raise ValueError(f"undeclared id {ident}")
            if t[0] in "bB":
                if not val or any(c not in "01xzXZ" for c in val):
                    raise ValueError(f"bad vector value {t}")
            else:
                float(val)
            changes += 1
            i += 2
        elif t[0] in "01xzXZ":
            if t[1:] not in ids:
                raise ValueError(f"undeclared id {t[1:]}")
            changes += 1
            i += 1
        else:
            raise ValueError(f"unexpected token {t!r}")
    return {"vars": names, "changes": changes, "last_time": last, "timescale": timescale}


if __name__ == "__main__":
    try:
        info = check(sys.argv[1])
    except (OSError, ValueError) as e:
        print(f"{sys.argv[1]}: invalid VCD: {e}")
        sys.exit(1)
    print(f"{sys.argv[1]}: ok, {len(info['vars'])} signals, {info['changes']} changes")
