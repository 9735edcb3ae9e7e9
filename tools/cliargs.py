"""The command-line parser of `strata sweep`, `strata plot` and `strata report`: argparse, except that a
usage error is one line on stderr (what is wrong, and where to look) and exit status 2, as every other
input error of strata (docs/user_guide.md "Exit status")."""
import argparse
import sys


def printable(s):
    """s with control characters escaped (error messages are one printable line)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(s))


class Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{self.prog}: {printable(message)} (see {self.prog} --help)\n")
        sys.exit(2)


def writable_file(path, what="--out"):
    """None when a file can be written at `path` (its folder exists and is writable, or can be made), else
    a one-line reason. Checked before the work, so that a bad --out fails at once, not after it."""
    import os
    full = os.path.abspath(path)
    if os.path.isdir(full):
        return f"{what} {printable(path)}: expected a file, got a folder"
    d = os.path.dirname(full)
    while d and not os.path.exists(d):
        d = os.path.dirname(d)
    if not os.path.isdir(d):
        return f"{what} {printable(path)}: expected a file in a folder, got {printable(d)}, which is a file"
    probe = os.path.join(d, f".strata-write-probe.{os.getpid()}")
    try:  # access() says yes to root even where nothing can be made (/proc): try it
        with open(probe, "w"):
            pass
        os.remove(probe)
    except OSError as e:
        return f"{what} {printable(path)}: expected a writable location, got {printable(d)} ({e.strerror})"
    if os.path.exists(full) and not os.access(full, os.W_OK):
        return f"{what} {printable(path)}: expected a writable file, got a read-only one"
    if len(os.path.basename(full)) > 255:
        return f"{what} {printable(path)[:60]}...: expected a file name of at most 255 characters"
    return None
