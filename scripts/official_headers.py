#!/usr/bin/env python3
"""Compares the public headers of the official ExecuTorch C++ SDK (the pip
wheel's include/executorch/..., outside c10) with the compatibility headers
etr installs (extension/compat/include/executorch/...), and prints those
missing.

The wheel's list is kept in scripts/official_headers.txt (paths only), so CI
needs no wheel; --wheel DIR (the wheel's executorch package folder, e.g.
.../site-packages/executorch) reads the list from an installed wheel instead,
and --update rewrites the kept list from it.

Exit status 0, or 1 with --strict when a header is missing (CI runs it
with --strict).
    python3 scripts/official_headers.py [--wheel DIR [--update]] [--strict]
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEPT = os.path.join(ROOT, "scripts", "official_headers.txt")
OURS = os.path.join(ROOT, "extension", "compat", "include")


def headers_under(include_dir):
    """Header paths ("executorch/runtime/...") under include_dir, c10 left out."""
    found = set()
    for dirpath, _, files in os.walk(os.path.join(include_dir, "executorch")):
        for name in files:
            if name.endswith(".h"):
                rel = os.path.relpath(os.path.join(dirpath, name), include_dir)
                if "/c10/" not in rel:
                    found.add(rel.replace(os.sep, "/"))
    return found


def wheel_version(package_dir):
    """The version in the wheel's executorch-*.dist-info folder name, or None."""
    site = os.path.dirname(os.path.abspath(package_dir))
    for name in sorted(os.listdir(site)):
        if name.startswith("executorch-") and name.endswith(".dist-info"):
            return name[len("executorch-"):-len(".dist-info")]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", help="the wheel's executorch package folder")
    parser.add_argument("--update", action="store_true", help="rewrite the kept list from --wheel")
    parser.add_argument("--strict", action="store_true", help="fail when a header is missing")
    args = parser.parse_args()

    if args.wheel:
        official = headers_under(os.path.join(args.wheel, "include"))
        if not official:
            sys.exit("no headers under %s/include/executorch" % args.wheel)
        if args.update:
            with open(KEPT, "w") as f:
                f.write("# Public headers of the official ExecuTorch C++ SDK (pip wheel, outside\n"
                        "# c10): paths only. Rewritten by scripts/official_headers.py --update.\n")
                version = wheel_version(args.wheel)
                if version:
                    f.write("# Taken from executorch %s.\n" % version)
                f.write("".join(p + "\n" for p in sorted(official)))
    else:
        with open(KEPT) as f:
            official = {line.strip() for line in f if line.strip() and not line.startswith("#")}

    ours = headers_under(OURS)
    missing = sorted(official - ours)
    extra = sorted(ours - official)
    print("official public headers: %d; present in etr: %d; missing: %d"
          % (len(official), len(official) - len(missing), len(missing)))
    for path in missing:
        print("  missing: " + path)
    for path in extra:
        print("  etr only (not in the wheel): " + path)
    return 1 if (args.strict and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
