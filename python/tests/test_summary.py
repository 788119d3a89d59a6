"""The Python module's answers equal the Rust API's, directly: ``summary.py``'s lines
equal ``capi/examples/summary.rs``'s (``summary.golden.txt``), and ``ilkit.scan``'s
records equal ``ilkit::scan``'s (``scan.golden.jsonl``). ``capi/tests/summary_golden.rs``
fails when either golden file is not the Rust API's answer, and
``ILKIT_BLESS=1 cargo test -p ilkit-capi --test summary_golden`` rewrites them."""

import json
from pathlib import Path

import pytest

import ilkit
from summary import summary_lines

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# As in capi/tests/summary_golden.rs: the scanned inputs (relative to the repository)
# and the record fields left out because they legitimately vary between runs (the
# file's wall time).
SCAN_INPUTS = [
    "tests/corpus/llvm/zlib/zlib.O2.ll.gz",
    "tests/corpus/llvm/zlib/nvptx",
    "tests/fixtures/clang/kernels.json.gz",
    "tests/corpus/cuda/json/candle_affine.json.gz",
]
EXCLUDED_FIELDS = {"seconds"}


def test_summary_lines_equal_the_rust_examples():
    want = (HERE / "summary.golden.txt").read_text().splitlines()
    assert summary_lines(ROOT) == want


def relative(s):
    return s.replace(f"{ROOT}/", "") if isinstance(s, str) else s


@pytest.mark.parametrize("jobs", [1, 2])
def test_scan_records_equal_the_rust_scans(jobs):
    want = [json.loads(line) for line in (HERE / "scan.golden.jsonl").read_text().splitlines()]
    got = ilkit.scan([ROOT / p for p in SCAN_INPUTS], jobs=jobs, dataframe=False)
    assert len(got) == len(want) > len(SCAN_INPUTS)
    for g, w in zip(got, want):
        assert EXCLUDED_FIELDS <= g.keys() and not EXCLUDED_FIELDS & w.keys()
        assert isinstance(g["seconds"], float) and g["seconds"] >= 0
        g = {k: v for k, v in g.items() if k not in EXCLUDED_FIELDS}
        g["file"] = relative(g["file"])
        g["error"] = relative(g["error"])
        g["notes"] = [relative(n) for n in g["notes"]]
        assert g == w
