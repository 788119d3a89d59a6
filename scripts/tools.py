"""Helpers the comparison scripts share: where the ilkit CLI is, and plain copies of
gzipped corpus files for tools that cannot read gzip (opt-14)."""

import gzip
import os
import shutil

SCRIPTS = os.path.dirname(os.path.abspath(__file__))


def default_ilkit():
    """`$ILKIT`, `ilkit` on PATH, or the repository's release build."""
    if os.environ.get("ILKIT"):
        return os.environ["ILKIT"]
    if shutil.which("ilkit"):
        return "ilkit"
    return os.path.join(os.path.dirname(SCRIPTS), "target", "release", "ilkit")


def plain_file(path, tmpdir):
    """`path`, or a decompressed copy in `tmpdir` when it ends in `.gz`."""
    if not path.endswith(".gz"):
        return path
    out = os.path.join(tmpdir, os.path.basename(path)[:-3])
    with gzip.open(path, "rb") as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return out
