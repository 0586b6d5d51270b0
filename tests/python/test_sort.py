"""parmc.sort, parmc.argsort and parmc.topk through the C target and NumPy (tests/sections/
80-python.sh): against numpy.sort and numpy.argsort (stable: parmc's sorts are), and a top-k
reference built on them, with NaNs, both orders, every dim, lengths that are not powers of
two and the errors; the generated programs themselves (python/parmc/_sortops.py) through the
interpreter as well."""
import os
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

try:
    import ml_dtypes as _ml_dtypes
except ImportError:
    _ml_dtypes = None

from common import PARMC, ROOT, setUpModule, tearDownModule  # noqa: F401 (the module fixtures)
import parmc  # noqa: E402
from parmc import _select, _sortops  # noqa: E402

rng = np.random.default_rng(26)


def ref_argsort(x, dim, descending):
    """numpy's stable argsort in PyTorch's order: NaN after every number (numpy's too), and
    descending with NaNs first and equal elements in index order."""
    if x.dtype.name == "bfloat16":     # ml_dtypes' own sort is not NumPy's order; widening is exact
        x = x.astype(np.float32)
    if not descending:
        return np.argsort(x, axis=dim, kind="stable")
    if x.dtype.kind != "f":
        return np.argsort(~x, axis=dim, kind="stable")     # ~x reverses the order of integers exactly
    return np.apply_along_axis(_argsort_desc, dim, x)


def _argsort_desc(row):
    nan = np.isnan(row)
    return np.lexsort((np.where(nan, 0.0, -row.astype(np.float64)), ~nan))   # NaNs, then the rest descending


def random_array(dtype, shape, nans=True):
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape).astype(dtype)
        x.ravel()[rng.integers(0, x.size, x.size // 8 + 1)] = rng.choice([0.0, -0.0, np.inf, -np.inf, 1.0])
        if nans:
            x.ravel()[rng.integers(0, x.size, x.size // 8 + 1)] = np.nan
        return x
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x.ravel()[rng.integers(0, x.size, x.size // 4 + 1)] = np.array([info.min, info.max, 0, 1], dtype)[
        rng.integers(0, 4)]     # ties, and the pad's own values
    return x


def quiet16(bits, inf, quiet):
    """16-bit float bits (inf: the bits of +inf) with every NaN made the quiet NaN (quiet's
    bits) of its sign, as u32 keys give them back."""
    return np.where((bits & 0x7fff) > inf, (bits & 0x8000) | quiet, bits).astype(np.uint16)


def same(test, got, want, what):
    test.assertEqual(got.dtype, want.dtype, what)
    test.assertEqual(got.shape, want.shape, what)
    test.assertTrue(got.flags.c_contiguous, what)
    if got.dtype.kind not in "iub":     # floats bit for bit: the signs of zeros (random_array NaNs are quiet)
        got, want = got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")
    np.testing.assert_array_equal(got, want, err_msg=what)


class Sort(unittest.TestCase):
    def check(self, x, dim=-1, descending=False):
        before = x.copy()
        what = f"{x.dtype} {x.shape} dim={dim} descending={descending}"
        idx = ref_argsort(x, dim, descending)
        v, i = parmc.sort(x, dim=dim, descending=descending)
        same(self, i, idx.astype(np.int64), what)
        want = np.take_along_axis(x, idx, dim)
        if x.dtype == np.float16 and x.ndim and x.shape[dim] <= 1 << 15:     # u32 keys: NaNs quiet
            want = quiet16(want.view(np.uint16), 0x7c00, 0x7e00).view(np.float16)
        same(self, v, want, what)
        same(self, parmc.argsort(x, dim, descending, stable=True), idx.astype(np.int64), what)
        np.testing.assert_array_equal(x.view(f"u{x.itemsize}"), before.view(f"u{x.itemsize}"))   # not written

    def test_types(self):
        for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                   np.float16, np.float32, np.float64, np.bool_):
            for descending in (False, True):
                self.check(random_array(dt, (3, 16)), descending=descending)
                self.check(random_array(dt, (5, 37)), descending=descending)     # padded rows

    def test_float16_order(self):
        """float16 sorted as its bits (u16) ranked in PyTorch's order: -0.0 ties with 0.0 (the
        index decides), NaNs of either sign and any payload tie after +inf, and every value
        comes back bit for bit (the signs of zeros, the NaNs' payloads in rows longer than
        2^15; in shorter ones, sorted by u32 keys, a NaN as the quiet NaN of its sign)."""
        bits = np.array([0x4200, 0x7e00, 0x3c00, 0x8000, 0x0000, 0xfe00, 0xfc00, 0x3c00, 0x7c00, 0xfd01, 0x0000,
                         0x8000, 0x7c01, 0x0001, 0x8001], np.uint16)
        x = bits.view(np.float16)
        quiet = quiet16(bits, 0x7c00, 0x7e00)
        v, i = parmc.sort(x)
        np.testing.assert_array_equal(i, [6, 14, 3, 4, 10, 11, 13, 2, 7, 0, 8, 1, 5, 9, 12])
        np.testing.assert_array_equal(v.view(np.uint16), quiet[i])
        v, i = parmc.sort(x, descending=True)
        np.testing.assert_array_equal(i, [1, 5, 9, 12, 8, 0, 2, 7, 13, 3, 4, 10, 11, 14, 6])
        np.testing.assert_array_equal(v.view(np.uint16), quiet[i])
        long = np.resize(bits, 1 << 16)     # rows past u32 keys: every bit
        v, i = parmc.sort(long.view(np.float16))
        np.testing.assert_array_equal(v.view(np.uint16), long[i])
        v, i = parmc.topk(x, 5)
        np.testing.assert_array_equal(i, [1, 5, 9, 12, 8])
        # top-k by u32 keys: bit for bit but a NaN, the quiet NaN of its sign
        np.testing.assert_array_equal(v.view(np.uint16), [0x7e00, 0xfe00, 0xfe00, 0x7e00, 0x7c00])
        v, i = parmc.topk(x, 3, largest=False)
        np.testing.assert_array_equal(i, [6, 14, 3])
        v, i = parmc.topk(x, 15, largest=False)
        np.testing.assert_array_equal(i, [6, 14, 3, 4, 10, 11, 13, 2, 7, 0, 8, 1, 5, 9, 12])
        np.testing.assert_array_equal(v.view(np.uint16), quiet[i])     # the zeros' signs
        for shape in ((4, 15), (2, 64)):    # padded rows, and exact ones
            y = np.resize(x, shape)
            for descending in (False, True):
                self.check(y, descending=descending)
                self.check(y, dim=0, descending=descending)

    def test_packed_keys_by_row_length(self):
        """Integers of 16 bits or fewer sort as u32 keys (rank and index) up to the rows the
        index fits, 2^16 (16 bits) and 2^24 (8 bits), then as i64 keys; 32-bit keys as i64 keys;
        all as records past 2^31, and 64-bit keys always."""
        from parmc import _sortops
        for t, keys in (("i16", ((16, "pack_narrow 16"), (31, "pack32 rank_i16"))),
                        ("u16", ((16, "pack_narrow 16"), (31, "pack32 rank_unsigned"))),
                        ("i8", ((24, "pack_narrow 8"), (31, "pack32 rank_i8"))),
                        ("u8", ((24, "pack_narrow 8"), (31, "pack32 rank_unsigned"))),
                        ("i32", ((31, "pack32 rank_i32"),)), ("u32", ((31, "pack32 rank_unsigned"),)),
                        ("f32", ((31, "pack32 rank_f32"),))):
            shortest = 0
            for longest, key in keys:
                for r in (shortest, longest):
                    self.assertIn(key, _sortops.source(t, 0, r, 0, False, True), (t, r))
                    if t[1:] not in ("8", "16"):
                        self.assertIn(key, _sortops.topk_source(t, 0, r, 0, True, 0, True), (t, r))
                shortest = longest + 1
            self.assertIn("sort_records_rows", _sortops.source(t, 0, 32, 0, False, True), t)
        for t in ("i64", "u64", "f64"):
            self.assertIn("sort_records_rows", _sortops.source(t, 0, 10, 0, False, True), t)
        # top-k of 16 bits or fewer: u32 keys at every row length (of chunks, merged, past one), while k fits a chunk
        for t, rank, chunk in (("i16", None, "16 (pack_narrow 16"), ("u16", None, "16 (pack_narrow 16"),
                               ("i8", None, "24 (pack_narrow 8"), ("u8", None, "24 (pack_narrow 8"),
                               ("u16", "f16_rank", "15 (pack16_32 rank16_f16"),
                               ("u16", "bf16_rank", "15 (pack16_32 rank16_bf16")):
            w = int(chunk.split()[0])
            for r, j in ((w + 1, 0), (w + 2, 4), (31, 8)):
                self.assertIn("topk_chunked_rows " + chunk, _sortops.topk_source(t, 0, r, 0, True, j, True, rank))
            # rows of one chunk: packed u32 keys, nothing to merge
            self.assertIn("topk_packed_rows (" + chunk.split("(")[1], _sortops.topk_source(t, 0, w, 0, True, 3, True, rank))
        self.assertIn("pack16 rank_f16", _sortops.topk_source("u16", 0, 20, 0, True, 16, True, "f16_rank"))
        self.assertIn("pack_narrow 16", _sortops.topk_source("i16", 0, 16, 0, True, 16, True))
        # sorts of 16-bit floats: u32 keys (pack16_32) up to rows of 2^15, then pack16
        for rank, t in (("f16_rank", "f16"), ("bf16_rank", "bf16")):
            self.assertIn(f"pack16_32 rank16_{t}", _sortops.source("u16", 0, 15, 0, False, True, rank))
            self.assertIn("pack16 rank_", _sortops.source("u16", 0, 16, 0, False, True, rank))
        self.assertIn("pack32 rank_i16", _sortops.topk_source("i16", 0, 20, 0, True, 17, True))
        # argsort of 16-bit floats: u32 keys of a 17-bit rank up to rows of 2^15, then pack16
        for rank in ("f16_rank", "bf16_rank"):
            self.assertIn("pack_narrow 17", _sortops.source("u16", 0, 15, 0, False, True, rank, indices=True))
            self.assertIn("pack16", _sortops.source("u16", 0, 16, 0, False, True, rank, indices=True))
            self.assertIn("pack16_32", _sortops.source("u16", 0, 10, 0, False, True, rank))

    def test_radix_takes_one_long_row(self):
        """sort and argsort of one row on CUDA go by the CUDA toolkit's radix sort from the
        measured crossover (python/parmc/_radix.py SHORTEST: 2^15 elements of 1 or 2 bytes,
        2^17 of 4, 2^21 of 8); never top-k, several rows, the C target or 2^32 elements."""
        from parmc import _radix
        for dt, shortest in (("uint8", 15), ("bool", 15), ("int16", 15), ("float16", 15), ("float32", 17),
                             ("int32", 17), ("float64", 21), ("int64", 21)):
            d = np.dtype(dt)
            for op in ("sort", "argsort"):
                self.assertTrue(_radix.takes(op, True, d, 1 << shortest, 1), (dt, op))
                self.assertFalse(_radix.takes(op, True, d, (1 << shortest) - 1, 1), (dt, op))
            self.assertFalse(_radix.takes("topk", True, d, 1 << 24, 1), dt)
            self.assertFalse(_radix.takes("sort", True, d, 1 << 24, 2), dt)
            self.assertFalse(_radix.takes("sort", False, d, 1 << 24, 1), dt)
            self.assertFalse(_radix.takes("sort", True, d, 1 << 32, 1), dt)

    def test_int16_rows_longer_than_narrow_keys(self):
        """int16 rows of 2^17, past u32 keys: i64 keys, and the same results."""
        x = random_array(np.int16, (1, 1 << 17))
        for descending in (False, True):
            self.check(x, descending=descending)
        v, i = parmc.topk(x, 8)
        rv, ri = ref_topk(x, 8, -1, True)
        same(self, v, rv, "topk int16 2^17")
        same(self, i, ri, "topk int16 2^17")

    def test_float32_nan_payloads(self):
        """float32 goes by packed keys (stdlib/sort.parm): every value comes back bit for bit,
        the signs of zeros too, but a NaN, which comes back as the quiet NaN of its sign."""
        bits = np.array([0x7fc00001, 0x3f800000, 0xffc00000, 0x80000000, 0x7f800001, 0x00000000, 0xff800001],
                        np.uint32)
        v, i = parmc.sort(bits.view(np.float32))
        np.testing.assert_array_equal(i, [3, 5, 1, 0, 2, 4, 6])
        np.testing.assert_array_equal(v.view(np.uint32), [0x80000000, 0, 0x3f800000, 0x7fc00000, 0xffc00000,
                                                          0x7fc00000, 0xffc00000])
        v, i = parmc.topk(bits.view(np.float32), 2)
        np.testing.assert_array_equal(i, [0, 2])
        np.testing.assert_array_equal(v.view(np.uint32), [0x7fc00000, 0xffc00000])

    def test_bfloat16_program(self):
        """bfloat16 (which NumPy lacks without ml_dtypes; PyTorch's tensors take this path):
        the sort program of bfloat16 bits through the C target (u32 keys: a NaN as the quiet NaN
        of its sign), against NumPy's stable sort of the same values widened to float32
        (exactly: a bfloat16 is a float32's top half)."""
        bits = rng.integers(0, 1 << 16, (4, 32), dtype=np.uint16)
        bits.ravel()[rng.integers(0, bits.size, 40)] = rng.choice([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x3f80])
        wide = (bits.astype(np.uint32) << 16).view(np.float32)
        for descending in (False, True):
            for rows, exact in ((4, True), (3, False)):
                entry, _ = _sortops._program("sort", False, "u16", 2, 5, 0, descending, None, exact, "bf16_rank")
                xs = bits[:rows]
                v, i = entry(xs.ravel()) if exact else entry(xs)
                want = ref_argsort(wide[:rows], -1, descending)
                what = f"bfloat16 rows={rows} descending={descending}"
                np.testing.assert_array_equal(np.asarray(i).reshape(rows, 32), want, err_msg=what)
                np.testing.assert_array_equal(np.asarray(v).reshape(rows, 32),
                                              np.take_along_axis(quiet16(xs, 0x7f80, 0x7fc0), want, -1), err_msg=what)

    def test_bfloat16_topk_program(self):
        """The top-k program of bfloat16 bits (u32 keys of chunks of 2^15) through the C target,
        rows of two chunks and a part of one, against NumPy's stable sort of the values widened
        to float32; values bit for bit, a NaN as the quiet NaN of its sign."""
        bits = rng.integers(0, 1 << 16, (2, 40000), dtype=np.uint16)
        bits.ravel()[rng.integers(0, bits.size, 4000)] = rng.choice([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc1],
                                                                    4000)
        wide = (bits.astype(np.uint32) << 16).view(np.float32)
        quiet = quiet16(bits, 0x7f80, 0x7fc0)
        for largest in (False, True):
            entry, bitonic = _sortops._program("topk", False, "u16", 1, 16, 0, largest, 6, False, "bf16_rank", 50)
            self.assertTrue(bitonic)
            v, i = entry(bits)
            with np.errstate(invalid="ignore"):     # NaNs of any payload, widened
                want = np.take(ref_argsort(wide, -1, largest), np.arange(50), axis=-1)
            what = f"bfloat16 topk largest={largest}"
            np.testing.assert_array_equal(np.asarray(i).reshape(2, 50), want, err_msg=what)
            np.testing.assert_array_equal(np.asarray(v).reshape(2, 50), np.take_along_axis(quiet, want, -1),
                                          err_msg=what)

    @unittest.skipUnless(_ml_dtypes, "ml_dtypes is not installed: NumPy has no bfloat16")
    def test_numpy_bfloat16(self):
        x = random_array(np.float32, (3, 40)).astype(_ml_dtypes.bfloat16)
        for descending in (False, True):
            self.check(x, descending=descending)

    def test_lengths(self):
        for shape in ((1,), (2,), (7,), (33,), (100,), (5, 1), (1, 9), (3, 1000), (17, 3)):
            for descending in (False, True):
                self.check(random_array(np.float32, shape), descending=descending)
                self.check(random_array(np.int32, shape), descending=descending)

    def test_nan(self):
        x = np.array([[3, np.nan, 1, -0.0, 0.0, np.nan, -np.inf, 1, np.inf]], np.float32)
        v, i = parmc.sort(x)
        np.testing.assert_array_equal(i[0], [6, 3, 4, 2, 7, 0, 8, 1, 5])
        v, i = parmc.sort(x, descending=True)
        np.testing.assert_array_equal(i[0], [1, 5, 8, 0, 2, 7, 3, 4, 6])
        self.assertTrue(np.isnan(v[0, :2]).all())
        self.check(np.full((2, 5), np.nan, np.float64))
        self.check(np.full((2, 5), np.nan, np.float64), descending=True)

    def test_dims(self):
        # powers of two: the transpose is in the program; others move the axis on the host
        for shape in ((4, 8, 2), (2, 4, 8), (8, 16), (3, 4, 2), (3, 5, 4), (6, 7), (2, 3, 4, 5)):
            for dim in range(-len(shape), len(shape)):
                self.check(random_array(np.float32, shape), dim, descending=dim % 2 == 0)

    def test_transposed_program(self):
        """A dim other than the last, of powers of two, is one program with a bmmc each way."""
        x = np.zeros((3, 8, 4), np.int32)
        plan = _sortops._new_plan("sort", x, 1, False, None)
        self.assertFalse(plan.moved)
        self.assertEqual(plan.grid, (3, 32))
        src = _sortops.source("i32", 2, 3, 2, False, False)
        self.assertIn("bmmc", src)
        self.assertTrue(_sortops._new_plan("sort", np.zeros((3, 6, 4), np.int32), 1, False, None).moved)

    def test_argsort_writes_the_indices_alone(self):
        """argsort's program has the indices as its one result, so that its kernel leaves the
        values unstored (--report) and the call allocates one array."""
        with tempfile.TemporaryDirectory() as d:
            for t, r, c in (("f32", 10, 0), ("i64", 6, 0), ("i16", 5, 2)):
                path = os.path.join(d, "argsort.parm")
                with open(path, "w") as f:
                    f.write(_sortops.source(t, 3, r, c, False, False, indices=True))
                report = subprocess.run([PARMC, "-I", os.path.join(ROOT, "stdlib"), "--report", path],
                                        capture_output=True, text=True, check=True).stdout
                self.assertIn("unstored: output plane 0, which nothing reads", report, (t, report))
        plan = _sortops._new_plan("argsort", np.zeros((4, 8), np.float32), -1, False, None)
        self.assertEqual(len(plan.dtypes), 1)

    def test_zero_d_and_empty(self):
        v, i = parmc.sort(np.array(2.5, np.float32))
        self.assertEqual((v.shape, float(v), int(i)), ((), 2.5, 0))
        for shape, dim in (((0,), 0), ((3, 0), 1), ((0, 4), 1), ((0, 4), 0)):
            v, i = parmc.sort(np.zeros(shape, np.int16), dim)
            self.assertEqual((v.shape, v.dtype, i.shape, i.dtype), (shape, np.int16, shape, np.int64))

    def test_the_program_interpreted(self):
        """The generated program's meaning, from the interpreter (input: the row length, then the
        row): the C results agree with it."""
        x = np.array([5, -1, 5, 2, 7, -3], np.int32)
        src = _sortops.source("i32", 0, 3, 0, True, False)
        out = interpret(src, [len(x)] + list(x))
        v, i = parmc.sort(x, descending=True)
        self.assertEqual(out, [str(a) for pair in zip(v, i) for a in pair])    # records (value, index)


def interpret(src, values):
    """The output values of `parmc --interpret` on program text src with the given input."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.parm")
        with open(path, "w") as f:
            f.write(src)
        return subprocess.run([PARMC, "--interpret", path], input=" ".join(map(str, values)), text=True,
                              capture_output=True, check=True).stdout.split()


def ref_topk(x, k, dim, largest):
    idx = np.take(ref_argsort(x, dim, largest), np.arange(k), axis=dim)
    return np.take_along_axis(x, idx, dim), idx.astype(np.int64)


class TopK(unittest.TestCase):
    def check(self, x, k, dim=-1, largest=True):
        what = f"{x.dtype} {x.shape} k={k} dim={dim} largest={largest}"
        v, i = parmc.topk(x, k, dim=dim, largest=largest)
        rv, ri = ref_topk(x, k, dim, largest)
        same(self, v, rv, what)
        same(self, i, ri, what)

    def test_rows(self):
        for length in (1, 5, 8, 64, 100, 1000):
            for k in sorted({1, min(3, length), min(8, length), length}):
                for largest in (True, False):
                    self.check(random_array(np.float32, (4, length)), k, largest=largest)
                    self.check(random_array(np.int64, (3, length)), k, largest=largest)
        # the bitonic top-k ran where k's power of two is below the row's, a sort elsewhere
        kinds = {(key[6], key[7] < key[4]) for key, (_, bitonic) in _sortops._entries.items()
                 if key[0] == "topk" and key[2] == "f32" and bitonic == (key[7] < key[4])}
        self.assertEqual(kinds, {(True, True), (True, False), (False, True), (False, False)})

    def test_rows_of_chunks(self):
        """16-bit and 8-bit keys go by u32 keys of chunks (2^15 elements for float16, 2^16
        for int16: stdlib/topk.parm topk_chunked_rows): rows of one chunk, of several, and
        of several with a part-chunk of pad at the end, ties and NaNs."""
        for dt, length in ((np.float16, 1 << 15), (np.float16, 70000), (np.int16, 1 << 17), (np.uint8, 3000),
                           (np.bool_, 5000)):
            x = random_array(dt, (2, length))
            for k in (1, 37, 64):
                for largest in (True, False):
                    self.check(x, k, largest=largest)

    def test_dims_and_nan(self):
        x = random_array(np.float64, (4, 16, 8))
        for dim in (0, 1, 2, -2):
            self.check(x, 3, dim)
            self.check(x, 2, dim, largest=False)
        self.check(random_array(np.float32, (3, 10, 3)), 4, 1)
        x = np.array([1, np.nan, 3, np.nan, 2], np.float32)
        v, i = parmc.topk(x, 3)
        np.testing.assert_array_equal(i, [1, 3, 2])
        v, i = parmc.topk(x, 2, largest=False)
        np.testing.assert_array_equal(i, [0, 4])

    def test_bitonic_program_interpreted(self):
        """The bitonic top-k program that parmc.topk generates (stdlib/topk.parm), through the
        interpreter against the reference (the tests above run it compiled): rows of any
        length, k not a power of two, a dim of powers of two transposed in the program (a k
        whose power of two is the row's is a sort)."""
        for shape, dim, k, largest in (((3, 10), 1, 3, True), ((2, 8, 4), 1, 2, False), ((5, 6), 1, 3, False),
                                       ((4, 2, 2), 1, 1, True), ((1, 16), 1, 5, True)):
            x = random_array(np.float32, shape)
            outer, length, inner = x.shape[0], x.shape[1], int(np.prod(x.shape[2:], dtype=int))
            b, r, c, j = (_sortops._log2_up(n) for n in (outer, length, inner, k))
            src = _sortops.topk_source("f32", b, r, c, largest, j, False)
            out = interpret(src, [length * inner] + list(x.view(np.uint32).ravel()))    # packed keys of bits
            whole = (1 << b, 1 << j, inner)
            cut = (slice(0, outer), slice(0, k))
            # records (value bits, index), whole
            v = np.array(out[0::2], np.uint32).view(np.float32).reshape(whole)[cut].reshape(shape[:1] + (k,) + shape[2:])
            i = np.array(out[1::2], np.int64).reshape(whole)[cut].reshape(v.shape)
            rv, ri = ref_topk(x, k, dim, largest)
            what = f"{shape} k={k} largest={largest}"
            np.testing.assert_array_equal(v, rv, err_msg=what)
            np.testing.assert_array_equal(i, ri, err_msg=what)

    def test_pieces_of_rows_of_any_length(self):
        """A top-k of rows whose length is not a power of two reads pieces of powers of two
        (the length rounded up to a multiple of the smallest, at most three: 151936 as 2^17 +
        2^14 + 2^13), not the padded row, where keys compare as 64-bit words and the pieces
        read at most 2/3 of it (as measured, _PIECES_MOST); the program, interpreted,
        against the reference (test_rows runs it compiled)."""
        self.assertEqual(_sortops.pieces(151936, 18, 3, True), (17, 14, 13))
        self.assertIsNone(_sortops.pieces(151936, 18, 3, False))   # u32 words of bf16 chunks
        self.assertIsNone(_sortops.pieces(50257, 16, 3, True))     # 51200 of 65536: 78%
        self.assertEqual(_sortops.pieces(80, 7, 2, True), (6, 4))
        self.assertIsNone(_sortops.pieces(1000, 10, 3, True))
        self.assertIsNone(_sortops.pieces(128256, 17, 6, True))
        self.assertTrue(_sortops._wide_keys("f32", None))
        self.assertTrue(_sortops._wide_keys("i32", None))
        self.assertFalse(_sortops._wide_keys("u16", "bf16_rank"))
        self.assertFalse(_sortops._wide_keys("i16", None))
        for largest in (True, False):
            x = random_array(np.float32, (3, 80))
            logs = _sortops.pieces(80, 7, 2, True)
            src = _sortops.topk_source("f32", 2, 7, 0, largest, 2, False, None, None, logs)
            self.assertEqual(src.count("half 64 "), 2, src)   # each piece a run of halves
            out = interpret(src, [80] + list(x.view(np.uint32).ravel()))
            v = np.array(out[0::2], np.uint32).view(np.float32).reshape(4, 4)[:3, :3]
            i = np.array(out[1::2], np.int64).reshape(4, 4)[:3, :3]
            rv, ri = ref_topk(x, 3, -1, largest)
            np.testing.assert_array_equal(v, rv)
            np.testing.assert_array_equal(i, ri)

    def test_k_cut_in_the_program(self):
        """A k that is not a power of two: the program's entry cuts its rows of 2^j to k (its
        result row length, docs/language.md 7.2), interpreted here against the reference, and
        the call then shapes nothing (no copy after the entry), along the last dim and a
        transposed one, with powers of two everywhere but k."""
        for shape, dim, k, largest in (((3, 10), 1, 3, True), ((2, 8, 4), 1, 3, False), ((4, 16), 1, 5, True)):
            x = random_array(np.float32, shape)
            outer, length, inner = x.shape[0], x.shape[1], int(np.prod(x.shape[2:], dtype=int))
            b, r, c, j = (_sortops._log2_up(n) for n in (outer, length, inner, k))
            src = _sortops.topk_source("f32", b, r, c, largest, j, False, cut=k * inner)
            self.assertIn(f" : [{k * inner}] =", src)
            out = interpret(src, [length * inner] + list(x.view(np.uint32).ravel()))
            want = shape[:1] + (k,) + shape[2:]
            v = np.array(out[0::2], np.uint32).view(np.float32).reshape(want)
            i = np.array(out[1::2], np.int64).reshape(want)
            rv, ri = ref_topk(x, k, dim, largest)
            what = f"{shape} k={k} largest={largest}"
            np.testing.assert_array_equal(v, rv, err_msg=what)
            np.testing.assert_array_equal(i, ri, err_msg=what)
            plan = _sortops._new_plan("topk", x, dim, largest, k)
            self.assertEqual((plan.cut, plan.bitonic, plan.finish), (k * inner, True, None), what)
            self.check(x, k, dim, largest)

    def test_sort_when_the_top_k_does_not_compile(self):
        """A bitonic top-k that the back end refused would be a sort and its first k, with a
        warning: the same results."""
        x = random_array(np.int16, (5, 40))
        saved = _sortops.topk_source
        _sortops.topk_source = lambda *args: saved(*args) + "entry broken (xs : [2^2]i32) = half 8 0 xs\n"
        try:
            with self.assertWarnsRegex(UserWarning, "does not compile, so it sorts them"):
                v, i = parmc.topk(x, 3)
        finally:
            _sortops.topk_source = saved
        rv, ri = ref_topk(x, 3, -1, True)
        same(self, v, rv, "sorted")
        same(self, i, ri, "sorted")
        self.assertFalse(_sortops._entries[("topk", False, "i16", 3, 6, 0, True, 2, False, None, 3, None)][1])

    def test_rows_by_delegates(self):
        """The top-k of long rows by delegates (python/parmc/_select.py): its kernels built on
        the host by the C++ compiler, its two networks through the C target, against the
        reference: both ends, ties, NaNs and zeros of both signs, k not a power of two, rows of
        no multiple of a subrange, a 3-D x, along the first and a middle dim (moved last and
        back); each call's plan is a SelectPlan."""
        for shape, dim, k, largest, dt in (((512, 5000), -1, 40, True, np.float32),
                                           ((8, 2, 131073), -1, 7, False, np.int32),
                                           ((256, 9000), -1, 64, True, np.float64),
                                           ((512, 4096), -1, 1, False, np.float16),
                                           ((100, 21000), -1, 200, False, np.uint8),
                                           ((20000, 110), 0, 12, True, np.float32),
                                           ((3, 30000, 25), 1, 5, False, np.int64)):
            x = random_array(dt, shape)
            v, i = parmc.topk(x, k, dim=dim, largest=largest)
            rv, ri = ref_topk(x, k, dim, largest)
            what = f"{dt.__name__} {shape} dim={dim} k={k} largest={largest}"
            same(self, v, rv, what)
            same(self, i, ri, what)
            plan = _sortops._libraries[np.ndarray][1][_sortops._numpy_key(x, "topk", dim, largest, k)]
            self.assertIsInstance(plan, _select.SelectPlan, what)

    def test_delegates_without_their_kernels(self):
        """A host whose C++ compiler cannot build the kernels (here: a compiler that fails)
        warns once and takes the network over the row: the same results."""
        x = random_array(np.float32, (512, 4100))
        saved, env = dict(_select._libraries), os.environ.get("CXX")
        _select._libraries.pop(False, None)
        os.environ["CXX"] = "false"
        try:
            with self.assertWarnsRegex(UserWarning, "does not build, so long rows take the network"):
                v, i = parmc.topk(x, 9)
        finally:
            _select._libraries.clear()
            _select._libraries.update(saved)
            if env is None:
                del os.environ["CXX"]
            else:
                os.environ["CXX"] = env
        rv, ri = ref_topk(x, 9, -1, True)
        same(self, v, rv, "network")
        same(self, i, ri, "network")

    def test_which_calls_go_by_delegates(self):
        """Not JAX arrays, along any dim, rows of 2^12 or more, 2^21 elements or more, k of 1 to
        256, where the networks of the delegates and of the candidates have a quarter of the
        row's elements or fewer; the subrange is the one of the fewest."""
        f32 = np.dtype(np.float32)
        self.assertEqual(_select.takes("topk", "torch", True, f32, (128, 128256), 1, 40), 5)
        self.assertEqual(_select.takes("topk", "cupy", True, f32, (4, 4, 1 << 17), 2, 256), 4)
        self.assertEqual(_select.takes("topk", "numpy", False, f32, (64, 1 << 16), 1, 8), 6)
        self.assertEqual(_select.takes("topk", "torch", True, f32, (1 << 16, 64), 0, 8), 6)
        for op, lib, cuda, shape, d, k in (("topk", "jax", False, (64, 1 << 16), 1, 8),
                                           ("sort", "torch", True, (64, 1 << 16), 1, 8),
                                           ("topk", "torch", True, (1024, 4095), 1, 8),
                                           ("topk", "torch", True, (1, 1 << 20), 1, 8),
                                           ("topk", "torch", True, (4, 1 << 20), 1, 257),
                                           ("topk", "torch", True, (0, 1 << 16), 1, 8),
                                           ("topk", "torch", True, (1024, 4096), 1, 256)):
            self.assertIsNone(_select.takes(op, lib, cuda, f32, shape, d, k), (op, lib, shape, d, k))
        for n, k in ((1 << 17, 64), (151936, 8), (50257, 8), (4096, 64), (1 << 20, 256)):
            j = _select.log_s(n, k)
            work = [_select._pad(-(-n >> i)) + _select._pad(k << i) for i in range(2, 11) if -(-n >> i) >= k]
            self.assertEqual(_select._pad(-(-n >> j)) + _select._pad(k << j), min(work), (n, k))
            self.assertLessEqual(min(work) * _select.GAIN, _select._pad(n), (n, k))

    def test_k_zero(self):
        v, i = parmc.topk(np.ones((3, 5), np.int32), 0)
        self.assertEqual((v.shape, i.shape, i.dtype), ((3, 0), (3, 0), np.int64))


class RandomCalls(unittest.TestCase):
    def test_random_calls(self):
        """Calls of random shapes (1 to 3 dimensions of 1 to 70, powers of two among them),
        dims, dtypes, orders and k, each against the reference (seeded: the same every run)."""
        r = np.random.default_rng(2611)
        dtypes = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                  np.float16, np.float32, np.float64, np.bool_)
        for case in range(30):
            shape = tuple(int(r.choice([1, 2, 3, 4, 8, 16, 31, 64, 70])) for _ in range(r.integers(1, 4)))
            x = random_array(dtypes[r.integers(len(dtypes))], shape)
            dim, flag = int(r.integers(-len(shape), len(shape))), bool(r.integers(2))
            what = f"case {case}: {x.dtype} {shape} dim={dim} flag={flag}"
            idx = ref_argsort(x, dim, flag)
            op = ("sort", "argsort", "topk")[case % 3]
            if op == "sort":
                v, i = parmc.sort(x, dim, flag)
                same(self, v, np.take_along_axis(x, idx, dim), what)
                same(self, i, idx.astype(np.int64), what)
            elif op == "argsort":
                same(self, parmc.argsort(x, dim, flag), idx.astype(np.int64), what)
            else:
                k = int(r.integers(0, shape[dim] + 1))
                v, i = parmc.topk(x, k, dim, flag)
                rv, ri = ref_topk(x, k, dim, flag)
                same(self, v, rv, what + f" k={k}")
                same(self, i, ri, what + f" k={k}")


class AsPyTorch(unittest.TestCase):
    """The drop-ins as PyTorch users call them (issues 41 and 44): named results, NumPy scalars
    for the int and bool arguments, inputs of any strides, 0-d and empty arrays for every op
    and dim, and bad arguments named before anything is compiled or run."""

    def results(self, op, x, dim=-1, flag=None, k=None):
        """op's results on x and the reference's, each a list (argsort: one array)."""
        flag = op == "topk" if flag is None else flag
        if op == "topk":
            return list(parmc.topk(x, k, dim, flag)), list(ref_topk(x, k, dim, flag))
        idx = ref_argsort(x, dim, flag)
        if op == "argsort":
            return [parmc.argsort(x, dim, flag)], [idx.astype(np.int64)]
        return list(parmc.sort(x, dim, flag)), [np.take_along_axis(x, idx, dim), idx.astype(np.int64)]

    def test_named_results(self):
        """sort and topk return named tuples (values, indices), still unpacked and indexed as
        tuples: made fresh, from a plan made before, empty, and of a 0-d array."""
        x = random_array(np.float32, (3, 10))
        for call in range(2):
            for r, kind, (v, i) in ((parmc.sort(x), parmc.return_types.sort, parmc.sort(x)),
                                    (parmc.topk(x, 3), parmc.return_types.topk, parmc.topk(x, 3)),
                                    (parmc.topk(np.zeros((2, 0)), 0), parmc.return_types.topk, (None, None)),
                                    (parmc.sort(np.zeros((0, 5), np.int8)), parmc.return_types.sort, (None, None)),
                                    (parmc.topk(np.array(1.5), 1), parmc.return_types.topk, (None, None))):
                self.assertIs(type(r), kind, call)
                self.assertIsInstance(r, tuple)
                self.assertEqual(len(r), 2)
                self.assertIs(r.values, r[0])
                self.assertIs(r.indices, r[1])
                self.assertEqual(r.indices.dtype, np.int64)
                if v is not None:
                    same(self, r.values, v, kind.__name__)
                    same(self, r.indices, i, kind.__name__)
        self.assertEqual(repr(parmc.topk(np.array([2, 1], np.int32), 1)),
                         "topk(values=array([2], dtype=int32), indices=array([0]))")

    def test_numpy_scalar_arguments(self):
        """dim and k as NumPy integers (and 0-d integer arrays), the flags as NumPy bools (whose
        type NumPy 2 names bool) and 0-d bool arrays: the results of the plain arguments."""
        x = random_array(np.int16, (4, 9))
        for dim in (np.int32(0), np.int64(-1), np.uint8(1), np.array(0)):
            for flag in (np.True_, np.False_, np.array(True)):
                d, f = int(dim), bool(flag)
                for got, want in ((parmc.sort(x, dim, flag, np.True_), parmc.sort(x, d, f)),
                                  (parmc.sort(x, dim=dim, descending=flag, stable=np.array(False)),
                                   parmc.sort(x, d, f)),
                                  ((parmc.argsort(x, dim, descending=flag, stable=np.False_),),
                                   (parmc.argsort(x, d, f),)),
                                  (parmc.topk(x, np.int8(3), dim, flag, np.True_), parmc.topk(x, 3, d, f)),
                                  (parmc.topk(x, k=np.array(2), dim=dim, largest=flag, sorted=np.False_),
                                   parmc.topk(x, 2, d, f))):
                    self.assertEqual(type(got), type(want))
                    for a, b in zip(got, want):
                        same(self, a, b, f"dim={dim!r} flag={flag!r}")

    def test_ndarray_subclasses(self):
        """numpy.memmap and a subclass of one's own are NumPy arrays for sort, argsort, topk and
        out= (written into a memmap); the results are plain ndarrays; a masked array is refused."""
        class Mine(np.ndarray):
            pass
        x = random_array(np.float32, (4, 9))
        with tempfile.TemporaryDirectory() as d:
            m = np.memmap(os.path.join(d, "x"), dtype=np.float32, mode="w+", shape=x.shape)
            m[:] = x
            for a in (m, x.view(Mine), m.T, m):
                dim = 0 if a.ndim == 2 and a.shape[0] == 9 else -1
                for op in ("sort", "argsort", "topk"):
                    got, want = self.results(op, a, dim, k=3)[0], self.results(op, np.array(a), dim, k=3)[1]
                    for g, w in zip(got, want):
                        self.assertIs(type(g), np.ndarray, f"{type(a).__name__} {op}")
                        same(self, g, w, f"{type(a).__name__} {op}")
            out = (np.memmap(os.path.join(d, "v"), dtype=np.float32, mode="w+", shape=(4, 3)),
                   np.memmap(os.path.join(d, "i"), dtype=np.int64, mode="w+", shape=(4, 3)))
            r = parmc.topk(m, 3, out=out)
            self.assertIs(r.values, out[0])
            same(self, np.asarray(r.indices), parmc.topk(x, 3).indices, "out= memmaps")
            del m, out, r
        for f, args in ((parmc.sort, ()), (parmc.topk, (2,))):
            with self.assertRaises(parmc.ArgumentTypeError) as e:
                f(np.ma.masked_array(x, x > 0), *args)
            self.assertIn("argument 'x': expected a NumPy array, a PyTorch tensor, a CuPy array or a JAX array, got "
                          "numpy.ma.MaskedArray: a masked array, whose mask parmc would ignore", str(e.exception))

    def test_strided_inputs(self):
        """Transposed, reversed, of step 2, Fortran order, broadcast (stride 0, read-only),
        sliced: each sorted as its contiguous copy is, along every dim, the input unwritten;
        twice, so that the plan made by the first call runs the second."""
        base = random_array(np.float32, (8, 12))
        ints = random_array(np.int64, (6, 5, 4))
        cases = {"transposed": base.T, "reversed": base[::-1], "both reversed": base[::-1, ::-1],
                 "step 2": base[:, ::2], "rows of step 3": base[::3], "Fortran order": np.asfortranarray(base),
                 "broadcast": np.broadcast_to(base[0], (5, 12)), "1-D step -2": base[0, ::-2],
                 "3-D transposed": ints.transpose(2, 0, 1), "3-D sliced": ints[:, 1:4, ::3]}
        for name, x in cases.items():
            self.assertFalse(x.flags.c_contiguous, name)
            before = x.copy()
            for call in range(2):
                for dim in range(-x.ndim, x.ndim):
                    for op in ("sort", "argsort", "topk"):
                        k = min(3, x.shape[dim])
                        got, want = self.results(op, x, dim, k=k)
                        for a, b in zip(got, want):
                            same(self, a, b, f"{name}: {op} dim={dim} call {call}")
            np.testing.assert_array_equal(x, before)

    def test_zero_d(self):
        """A 0-d array is one element, along dim -1 or 0: its sort is itself and index 0, and so
        is its top-k for k = 1 and k = 0 (torch.topk's 0-d results, for either k)."""
        for dt in (np.float32, np.int64, np.float16, np.bool_):
            x = np.array(3.5).astype(dt)
            for dim in (-1, 0):
                for flag in (False, True):
                    for r in [parmc.sort(x, dim, flag)] + [parmc.topk(x, k, dim, flag) for k in (1, 0)]:
                        same(self, r.values, x, f"{dt.__name__} dim={dim}")
                        same(self, r.indices, np.array(0, np.int64), f"{dt.__name__} dim={dim}")
                    same(self, parmc.argsort(x, dim, flag), np.array(0, np.int64), f"{dt.__name__} dim={dim}")
        x = np.array(2.0, np.float32)
        with self.assertRaisesRegex(parmc.ArgumentValueError, "argument 'k' is 2; the rows along dim 0 have 1 "
                                                               "element$"):
            parmc.topk(x, 2)
        for op, args in (("sort", ()), ("argsort", ()), ("topk", (1,))):
            with self.assertRaisesRegex(parmc.ArgumentValueError, r"argument 'dim' is 1, out of range for an array "
                                                                   r"of 0 dimensions \(-1..0\)"):
                getattr(parmc, op)(x, *args, dim=1)

    def test_empty(self):
        """Empty arrays, along every dim, for every op, and top-k of k = 0 and of the length
        along dim: empty results of the call's shapes and dtypes."""
        for shape in ((0,), (3, 0), (0, 4), (2, 0, 3), (0, 1, 0)):
            x = np.zeros(shape, np.float16)
            for dim in range(-len(shape), len(shape)):
                v, i = parmc.sort(x, dim)
                self.assertEqual((v.shape, v.dtype, i.shape, i.dtype), (shape, x.dtype, shape, np.int64))
                i = parmc.argsort(x, dim, True)
                self.assertEqual((i.shape, i.dtype), (shape, np.int64))
                for k in sorted({0, shape[dim]}):
                    want = shape[:dim % len(shape)] + (k,) + shape[dim % len(shape) + 1:]
                    v, i = parmc.topk(x, k, dim)
                    self.assertEqual((v.shape, v.dtype, i.shape, i.dtype), (want, x.dtype, want, np.int64),
                                     (shape, dim, k))

    def test_stable_none(self):
        """sort takes stable=None, as torch.sort does (its `bool? stable`; it was an
        ArgumentTypeError), the stable sort as always; argsort's stable is a bool, as torch's."""
        x = np.array([[2, 1, 2, 1], [0, 0, 3, 0]], np.int32)
        for desc in (False, True):
            r = parmc.sort(x, descending=desc, stable=None)
            np.testing.assert_array_equal(r.indices, ref_argsort(x, -1, desc))
            np.testing.assert_array_equal(parmc.sort(x, 0, desc, None).indices, ref_argsort(x, 0, desc))

    def test_bad_scalar_arguments(self):
        """Each bad argument is a parmc error naming it and its type (NumPy's with the module),
        raised before anything is compiled or run, whichever argument is bad."""
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        bad = [(parmc.ArgumentTypeError, "argument 'dim': expected an integer, got bool", parmc.sort, (x, True), {}),
               (parmc.ArgumentTypeError, "argument 'dim': expected an integer, got numpy.bool", parmc.argsort,
                (x,), {"dim": np.True_}),
               (parmc.ArgumentTypeError, "argument 'dim': expected an integer, got numpy.float32", parmc.sort,
                (x, np.float32(1)), {}),
               (parmc.ArgumentTypeError, "argument 'dim': expected an integer, got float", parmc.topk, (x, 1, 1.0), {}),
               (parmc.ArgumentTypeError, "argument 'k': expected an integer, got numpy.float64", parmc.topk,
                (x, np.float64(2)), {}),
               (parmc.ArgumentTypeError, "argument 'k': expected an integer, got bool", parmc.topk, (x, True), {}),
               (parmc.ArgumentTypeError, "argument 'k': expected an integer, got numpy.ndarray", parmc.topk,
                (x, np.array([2])), {}),
               (parmc.ArgumentTypeError, "argument 'descending': expected a bool, got int", parmc.sort, (x,),
                {"descending": 1}),
               (parmc.ArgumentTypeError, "argument 'descending': expected a bool, got numpy.int32", parmc.argsort,
                (x, -1, np.int32(1)), {}),
               (parmc.ArgumentTypeError, "argument 'stable': expected a bool, got str", parmc.sort, (x,),
                {"stable": "no"}),
               (parmc.ArgumentTypeError, "argument 'stable': expected a bool, got numpy.ndarray", parmc.argsort, (x,),
                {"stable": np.array([True])}),
               (parmc.ArgumentTypeError, "argument 'stable': expected a bool, got NoneType", parmc.argsort, (x,),
                {"stable": None}),
               (parmc.ArgumentTypeError, "argument 'largest': expected a bool, got numpy.float64", parmc.topk,
                (x, 1), {"largest": np.float64(1)}),
               (parmc.ArgumentTypeError, "argument 'sorted': expected a bool, got NoneType", parmc.topk, (x, 1),
                {"sorted": None}),
               (parmc.ArgumentValueError, "argument 'k' is 5; the rows along dim 1 have 4", parmc.topk,
                (x, np.int64(5)), {}),
               (parmc.ArgumentValueError, "argument 'dim' is 2, out of range", parmc.sort, (x, np.int16(2)), {})]
        from unittest import mock
        from parmc import _build

        def refuse(*args, **kw):
            raise AssertionError("a bad call compiled or loaded something")
        with mock.patch.object(_build, "compile", refuse), mock.patch.object(_build, "load", refuse):
            for exc, text, f, args, kw in bad:
                with self.assertRaises(exc, msg=text) as cm:
                    f(*args, **kw)
                self.assertIn(text, str(cm.exception))
                self.assertIn(f"parmc.{f.__name__}: ", str(cm.exception))


class Out(unittest.TestCase):
    """out= of sort and topk, as torch.sort and torch.topk take it: the results written into
    the pair given, which the named result holds; a bad pair refused naming 'out' before
    anything is compiled or written. (The PyTorch and CuPy paths, and the resizing of an
    empty tensor: fixtures/fake_gpu.py.)"""

    def test_results_into_out(self):
        """Along the last dim, along dim 0 moved on the host, a top-k cut to k, 0-d and empty
        arrays; a tuple and a list; the first call of a kind and the next."""
        x, cube = random_array(np.float32, (5, 12)), random_array(np.int16, (6, 3, 5))
        calls = [("sort", x, (), x.shape), ("sort", cube, (1, True), cube.shape), ("topk", x, (3,), (5, 3)),
                 ("topk", cube, (2, 0, False), (2, 3, 5)), ("topk", np.array(2.5), (1,), ()),
                 ("sort", np.zeros((0, 4), np.float32), (), (0, 4)), ("topk", x, (0,), (5, 0))]
        for call in range(2):
            for op, y, args, shape in calls:
                want = getattr(parmc, op)(y, *args)
                for kind in (tuple, list):
                    pair = kind((np.full(shape, 7, y.dtype), np.full(shape, 7, np.int64)))
                    r = getattr(parmc, op)(y, *args, out=pair)
                    what = f"{op} {y.shape} {args} call {call}"
                    self.assertIs(type(r), type(want), what)
                    self.assertIs(r.values, pair[0], what)
                    self.assertIs(r.indices, pair[1], what)
                    same(self, r.values, want.values, what)
                    same(self, r.indices, want.indices, what)

    def test_bad_out(self):
        """Each bad pair is the parmc error that names 'out', raised before anything is
        compiled (a shape not called before) or written: the pair and x unchanged."""
        x = random_array(np.float32, (3, 7))
        xi, xd, both = random_array(np.int64, (3, 7)), x.astype(np.float64), np.zeros((3, 7))

        def pair(values=None, indices=None, shape=(3, 7)):
            return (np.full(shape, 7, np.float32) if values is None else values,
                    np.full(shape, 7, np.int64) if indices is None else indices)
        f_order = np.asfortranarray(np.full((3, 7), 7, np.float32))
        read_only = np.full((3, 7), 7, np.int64)
        read_only.flags.writeable = False
        bad = [(parmc.ArgumentTypeError, "expected a tuple (values, indices) of two arrays, got numpy.ndarray",
                x, np.zeros((3, 7), np.float32)),
               (parmc.ArgumentTypeError, "got tuple of 1", x, pair()[:1]),
               (parmc.ArgumentTypeError, "got list of 3", x, list(pair()) + [np.zeros(1)]),
               (parmc.ArgumentTypeError, "out[0] (the values): expected a NumPy array, as x is, got list", x,
                pair(values=[0.0] * 21)),
               (parmc.ArgumentTypeError, "out[0] (the values): expected dtype float32, got float64", x,
                pair(values=np.zeros((3, 7)))),
               (parmc.ArgumentTypeError, "out[1] (the indices): expected dtype int64, got int32", x,
                pair(indices=np.zeros((3, 7), np.int32))),
               (parmc.ArgumentValueError, "out[1] (the indices) has shape (3, 6); the results have shape (3, 7)", x,
                pair(indices=np.zeros((3, 6), np.int64))),
               (parmc.ArgumentValueError, "out[0] (the values) has shape (0,); the results have shape (3, 7)", x,
                pair(values=np.zeros(0, np.float32))),
               (parmc.ArgumentValueError, "out[0] (the values) is not contiguous", x, pair(values=f_order)),
               (parmc.ArgumentValueError, "out[1] (the indices) is not contiguous", x,
                pair(indices=np.zeros((3, 14), np.int64)[:, ::2])),
               (parmc.ArgumentValueError, "out[1] (the indices) is read-only", x, pair(indices=read_only)),
               (parmc.ArgumentValueError, "out[0] and x share memory", x, pair(values=x)),
               (parmc.ArgumentValueError, "out[0] and x share memory", x, pair(values=x.reshape(3, 7))),
               (parmc.ArgumentValueError, "out[1] and x share memory", xi, pair(values=np.zeros((3, 7), np.int64),
                                                                                indices=xi)),
               (parmc.ArgumentValueError, "out[0] and out[1] share memory", xd,
                pair(values=both, indices=both.view(np.int64)))]
        from unittest import mock
        from parmc import _build

        def refuse(*args, **kw):
            raise AssertionError("a bad call compiled or loaded something")
        with mock.patch.object(_build, "compile", refuse), mock.patch.object(_build, "load", refuse):
            for exc, text, y, out in bad:
                before = [np.array(a, copy=True) for a in [y] + list(out)]
                for op, args in (("sort", ()), ("topk", (7,))):
                    with self.assertRaises(exc, msg=text) as cm:
                        getattr(parmc, op)(y, *args, out=out)
                    self.assertTrue(str(cm.exception).startswith(f"parmc.{op}: argument 'out': "), str(cm.exception))
                    self.assertIn(text, str(cm.exception))
                for a, b in zip([y] + list(out), before):
                    np.testing.assert_array_equal(a, b, text)

    def test_keyword_only(self):
        """out is keyword-only, as in torch.sort and torch.topk; argsort has none (nor has
        torch.argsort)."""
        x = np.zeros((2, 4), np.float32)
        pair = (np.zeros((2, 4), np.float32), np.zeros((2, 4), np.int64))
        for f, args in ((parmc.sort, (x, -1, False, False, pair)), (parmc.topk, (x, 4, -1, True, True, pair)),
                        (parmc.argsort, (x,))):
            with self.assertRaises(TypeError):
                f(*args, **({"out": pair[1]} if f is parmc.argsort else {}))


class GpuPaths(unittest.TestCase):
    def test_torch_and_cupy_stand_ins(self):
        """The PyTorch and CuPy paths on stand-ins for device arrays (fixtures/fake_gpu.py), the
        programs built for the C target in place of CUDA: in a process of its own, since it
        installs modules named torch and cupy."""
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "python", "fixtures", "fake_gpu.py")],
                           capture_output=True, text=True)
        self.assertEqual(p.stdout.strip(), "ok", p.stderr[-2000:])


class CudaEmulated(unittest.TestCase):
    """The CUDA of a generated bitonic top-k, an entry graph, its kernels run on the CPU by the
    emulation of tests/emu (graph_emu.py, as section 54-cuda-emu does) with
    fixtures/sort_emu_driver.cpp: the interpreter's output, bit for bit, on rows of any
    length with NaNs, along the last dim and along a dim transposed in the program (its
    permutation kernels run too). (Not emulated, so left to tests/gpu/sort_ops.sh: the sort,
    one chain whose kernels read u32 bits and write (u32, i64) records, which run.sh's one
    slot type does not describe.)"""

    def emulated(self, src, values, out, bits="uint32_t"):
        """The CUDA of program src emulated on values (the row length first, then the elements'
        bits, of C type bits): its output."""
        emu = os.path.join(ROOT, "tests", "emu")
        with tempfile.TemporaryDirectory() as d:
            prog, cu, cpp, exe = (os.path.join(d, f) for f in ("p.parm", "g.cu", "g.cpp", "g"))
            with open(prog, "w") as f:
                f.write(src)
            subprocess.run([PARMC, "--target", "cuda", prog, "-o", cu], check=True, capture_output=True)
            subprocess.run([sys.executable, os.path.join(emu, "graph_emu.py"), cu, "main", cpp], check=True,
                           capture_output=True)
            with open(cpp, "a") as f, open(os.path.join(ROOT, "tests", "python", "fixtures",
                                                        "sort_emu_driver.cpp")) as driver:
                f.write(driver.read())
            subprocess.run([os.environ.get("CXX", "c++"), "-std=c++20", "-O1", "-w", "-pthread",
                            f"-DOUT={out}", f"-DBITS={bits}", "-I" + emu, "-I" + os.path.join(ROOT, "runtime"), cpp, "-o", exe],
                           check=True, capture_output=True)
            return subprocess.run([exe], input=" ".join(map(str, values)), text=True, capture_output=True,
                                  check=True).stdout.split()

    def test_topk(self):
        x = random_array(np.float32, (5, 300))
        values = [300] + list(x.view(np.uint32).ravel())   # float32 bits: packed keys
        src = _sortops.topk_source("f32", 3, 9, 0, True, 4, False)
        self.assertEqual(self.emulated(src, values, 1 << 7), interpret(src, values))   # 2^3 rows of the best 2^4

    def test_topk_chunked(self):
        """float16 rows longer than a chunk of u32 keys (2^15): each chunk's best by u32 keys,
        then the chunks' winners merged by u64 keys, NaNs and signed zeros among them."""
        x = random_array(np.float16, (1, 40000))
        values = [40000] + list(x.view(np.uint16).ravel())
        src = _sortops.topk_source("u16", 0, 16, 0, True, 3, False, rank="f16_rank")
        self.assertIn("topk_chunked_rows 15", src)
        self.assertEqual(self.emulated(src, values, 1 << 3, "uint16_t"), interpret(src, values))

    def test_topk_transposed(self):
        """Along the middle dim of (3, 7, 4): the columns of 2^3 x 2^2 matrices, transposed
        in the program by permutation kernels before and after the network."""
        x = random_array(np.float32, (3, 7, 4))
        values = [7 * 4] + list(x.view(np.uint32).ravel())
        src = _sortops.topk_source("f32", 2, 3, 2, False, 1, False)
        self.assertEqual(self.emulated(src, values, 1 << 5), interpret(src, values))   # 2^2 x the best 2^1 x 2^2


class Errors(unittest.TestCase):
    def raises(self, exc, text, f, *args, **kw):
        with self.assertRaises(exc) as cm:
            f(*args, **kw)
        self.assertIn(text, str(cm.exception))
        self.assertIsInstance(cm.exception, parmc.Error)

    def test_bad_calls(self):
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        self.raises(parmc.ArgumentValueError, "argument 'k' is 5; the rows along dim 1 have 4 elements",
                    parmc.topk, x, 5)
        self.raises(parmc.ArgumentValueError, "argument 'k' is -1", parmc.topk, x, -1)
        self.raises(parmc.ArgumentTypeError, "argument 'k': expected an integer, got float", parmc.topk, x, 2.0)
        self.raises(parmc.ArgumentValueError, "argument 'k' is 4; the rows along dim 0 have 3", parmc.topk, x, 4, 0)
        self.raises(parmc.ArgumentTypeError, "argument 'x' has dtype complex64", parmc.sort, x.astype(np.complex64))
        self.raises(parmc.ArgumentTypeError, "argument 'x' has dtype <U1", parmc.argsort, np.array(["a"]))
        # big-endian: the byte order is what is refused, and the message says so
        for f, args in ((parmc.sort, ()), (parmc.argsort, ()), (parmc.topk, (2,))):
            self.raises(parmc.ArgumentTypeError, f"parmc.{f.__name__}: argument 'x' is big-endian (dtype >f4, byte "
                        "order '>'); parmc takes arrays in this machine's byte order (little-endian): use "
                        "x.astype(x.dtype.newbyteorder('='))", f, x.astype(">f4"), *args)
        self.raises(parmc.ArgumentTypeError, "argument 'x' is big-endian (dtype >i8", parmc.sort, x.astype(">i8"))
        self.raises(parmc.ArgumentTypeError, "argument 'x' has dtype >c8", parmc.sort, x.astype(">c8"))
        np.testing.assert_array_equal(parmc.sort(x.astype(">u1")).values, x.astype(np.uint8))  # one byte: no order
        self.raises(parmc.ArgumentTypeError, "argument 'out': out[1] (the indices) is big-endian (dtype >i8, byte "
                    "order '>'); parmc takes arrays in this machine's byte order (little-endian)", parmc.sort, x,
                    out=(np.zeros_like(x), np.zeros(x.shape, ">i8")))
        self.raises(parmc.ArgumentValueError, "argument 'dim' is 2, out of range for an array of 2 dimensions "
                    "(-2..1)", parmc.sort, x, 2)
        self.raises(parmc.ArgumentValueError, "argument 'dim' is -3", parmc.argsort, x, -3)
        self.raises(parmc.ArgumentTypeError, "argument 'dim': expected an integer, got str", parmc.sort, x, "0")
        self.raises(parmc.ArgumentTypeError, "argument 'x': expected a NumPy array, a PyTorch tensor, a CuPy array or a "
                    "JAX array, got builtins.list", parmc.sort, [3, 1, 2])
        self.raises(parmc.ArgumentTypeError, "argument 'descending': expected a bool, got str", parmc.sort, x,
                    descending="yes")
        self.raises(parmc.ArgumentTypeError, "argument 'largest': expected a bool, got int", parmc.topk, x, 1,
                    largest=1)

    def test_errors_after_a_good_call(self):
        """A shape called before is looked up at once: the checks must still catch what is wrong."""
        x = np.arange(16, dtype=np.int32).reshape(4, 4)
        parmc.sort(x)
        parmc.topk(x, 2)
        self.raises(parmc.ArgumentTypeError, "argument 'descending': expected a bool, got numpy.int32", parmc.sort,
                    x, descending=np.int32(1))
        self.raises(parmc.ArgumentValueError, "argument 'k' is 5", parmc.topk, x, 5)
        self.raises(parmc.ArgumentValueError, "argument 'dim' is 2", parmc.sort, x, 2)


class Overhead(unittest.TestCase):
    """After the first call of a kind: no generation, no compile, no file, a dictionary look-up
    and one foreign call (docs/python.md gives the figures)."""

    def calls(self, x):
        return {"topk": lambda: parmc.topk(x, 4), "topk k=3": lambda: parmc.topk(x, 3),
                "sort": lambda: parmc.sort(x), "argsort": lambda: parmc.argsort(x, descending=True),
                "sort dim=0": lambda: parmc.sort(x, 0)}

    def test_no_compile_or_file(self):
        """The calls after the first run with compiling, loading, files and processes made to fail."""
        x = rng.standard_normal((3, 16)).astype(np.float32)
        calls = self.calls(x)
        want = {name: call() for name, call in calls.items()}
        from unittest import mock
        from parmc import _build

        def refuse(*args, **kw):
            raise AssertionError("a call after the first compiled, loaded or opened something")
        with mock.patch("builtins.open", refuse), mock.patch("os.stat", refuse), mock.patch("os.open", refuse), \
                mock.patch("subprocess.Popen", refuse), mock.patch.object(_build, "compile", refuse), \
                mock.patch.object(_build, "load", refuse), mock.patch.object(_sortops, "_new_plan", refuse):
            got = {name: call() for name, call in calls.items()}
        for name in calls:
            for a, b in zip(got[name] if isinstance(got[name], tuple) else [got[name]],
                            want[name] if isinstance(want[name], tuple) else [want[name]]):
                same(self, a, b, name)

    def test_added_to_the_entry_call(self):
        """The time a call adds to the compiled entry's own call through ctypes with its
        arguments ready (the best of several batches, each the mean of many calls; rows of 16
        so that the C code takes little): about 3 µs here, bound loosely for a shared machine
        (a compile, a process or a file read each call would pass it)."""
        x = rng.standard_normal((2, 16)).astype(np.float32)
        for name, call in self.calls(x).items():
            call()
            op, dim = name.split()[0], (0 if "dim=0" in name else -1)
            k = 3 if "k=3" in name else 4 if op == "topk" else None
            plan = _sortops._new_plan(op, x, dim, op == "argsort", k)
            outs = [np.empty(plan.out_shape, dt) for dt in plan.dtypes]
            fn, ctx = plan.entry._fn, plan.entry.program.context(None)
            args = [ctx, x.ctypes.data, *[o.ctypes.data for o in outs], *plan.tail]
            added = best_per_call(call) - best_per_call(lambda: fn(*args))
            self.assertLess(added, 20e-6, name)


def best_per_call(f, calls=300, batches=7):
    best = float("inf")
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


class Torch(unittest.TestCase):
    """PyTorch CPU tensors (the C target) against torch.sort(stable=True) and torch.topk
    themselves, where PyTorch is installed (not in build/venv: docs/python.md says how to run
    these): float16, bfloat16 and bool with NaNs, infinities, -0.0 and ties."""

    @classmethod
    def setUpClass(cls):
        try:
            import torch
        except ImportError:
            raise unittest.SkipTest("PyTorch is not installed") from None
        cls.torch = torch

    def tensor(self, dtype, shape):
        torch = self.torch
        x = torch.from_numpy(random_array(np.float32, shape)).to(dtype)
        flat = x.view(-1)
        for v in (0.0, -0.0, float("inf"), -float("inf"), float("nan"), -float("nan"), 1.0):
            flat[torch.from_numpy(rng.integers(0, flat.numel(), flat.numel() // 10 + 1))] = v
        if x.element_size() == 2:
            # each NaN the quiet NaN of its sign, which the short rows' u32 keys give back
            # (docs/python.md): how float32's -NaN converts differs between torch versions
            # (2.15 gives bfloat16 0xffff, earlier ones 0xffc0)
            bits, quiet = flat.view(torch.int16), {torch.bfloat16: 0x7fc0, torch.float16: 0x7e00}[dtype]
            nan = flat.isnan()
            bits[nan & (bits < 0)] = quiet - 0x8000     # the sign bit set, as an int16
            bits[nan & (bits >= 0)] = quiet
        return x

    def same(self, a, b, what):
        torch = self.torch
        self.assertEqual((a.dtype, a.shape), (b.dtype, b.shape), what)
        self.assertTrue(a.is_contiguous(), what)
        if a.is_floating_point():     # bit for bit: zeros' signs, NaNs' payloads
            bits = {2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
            a, b = a.view(bits), b.view(bits)
        self.assertTrue(torch.equal(a, b), what)

    def test_against_torch(self):
        torch = self.torch
        cases = [(torch.float16, (3, 40)), (torch.bfloat16, (4, 64)), (torch.float16, (2, 8, 4)),
                 (torch.bfloat16, (5, 6, 3)), (torch.float32, (3, 33))]
        for dtype, shape in cases:
            x = self.tensor(dtype, shape)
            for dim in (-1, 1, 0):
                for flag in (False, True):
                    what = f"{dtype} {shape} dim={dim} flag={flag}"
                    tv, ti = torch.sort(x, dim=dim, descending=flag, stable=True)
                    v, i = parmc.sort(x, dim=dim, descending=flag)
                    self.same(v, tv, what)
                    self.same(i, ti, what)
                    self.same(parmc.argsort(x, dim=dim, descending=flag), ti, what)
                    k = min(5, x.shape[dim])
                    v, i = parmc.topk(x, k, dim=dim, largest=flag)
                    self.same(v, tv.narrow(dim, 0, k).contiguous() if flag else torch.sort(
                        x, dim=dim, stable=True).values.narrow(dim, 0, k).contiguous(), what + " topk")
                    self.same(i, torch.sort(x, dim=dim, descending=flag, stable=True).indices.narrow(
                        dim, 0, k).contiguous(), what + " topk")
                    tv, _ = torch.topk(x, k, dim=dim, largest=flag)
                    self.assertTrue(torch.equal(v.float().nan_to_num(7), tv.float().nan_to_num(7)), what)

    def test_as_torch(self):
        """What torch.sort and torch.topk return, on CPU tensors: torch.return_types results;
        tensors that are not contiguous (transposed, of step 2, a permuted 3-D one); NumPy and
        0-d tensor scalars for the arguments; a 0-d tensor, whose top-k is torch.topk's for
        k = 1 and k = 0 (0-d, the element and 0)."""
        torch = self.torch
        x = self.tensor(torch.float32, (6, 10))
        for r, kind in ((parmc.sort(x), torch.return_types.sort), (parmc.topk(x, 3), torch.return_types.topk)):
            self.assertIs(type(r), kind)
            self.assertIs(r.values, r[0])
            self.assertIs(r.indices, r[1])
        cube = self.tensor(torch.bfloat16, (4, 5, 6))
        for name, y in (("transposed", x.t()), ("step 2", x[:, ::2]), ("permuted", cube.permute(2, 0, 1))):
            self.assertFalse(y.is_contiguous(), name)
            for dim in range(-y.dim(), y.dim()):
                for flag in (False, True):
                    what = f"{name} dim={dim} flag={flag}"
                    tv, ti = torch.sort(y, dim=dim, descending=flag, stable=True)
                    v, i = parmc.sort(y, dim, flag)
                    self.same(v, tv, what)
                    self.same(i, ti, what)
                    self.same(parmc.argsort(y, dim, flag), ti, what)
                    v, i = parmc.topk(y, 2, dim, flag)
                    self.same(i, ti.narrow(dim, 0, 2).contiguous(), what + " topk")
        for dim, k, flag in ((np.int64(0), np.int32(2), np.True_), (torch.tensor(1), torch.tensor(3), np.False_)):
            tv, ti = torch.sort(x, dim=int(dim), descending=bool(flag), stable=True)
            v, i = parmc.sort(x, dim, flag)
            self.same(i, ti, "scalar arguments")
            v, i = parmc.topk(x, k, dim, flag)
            self.same(i, ti.narrow(int(dim), 0, int(k)).contiguous(), "scalar arguments")
        z = torch.tensor(3.5)
        for k in (1, 0):
            tv, ti = torch.topk(z, k)
            r = parmc.topk(z, k)
            self.assertIs(type(r), torch.return_types.topk)
            self.same(r.values, tv, f"0-d k={k}")
            self.same(r.indices, ti, f"0-d k={k}")

    def test_bool(self):
        torch = self.torch
        x = torch.from_numpy(random_array(np.bool_, (4, 50)))
        for flag in (False, True):
            tv, ti = torch.sort(x, descending=flag, stable=True)
            v, i = parmc.sort(x, descending=flag)
            self.same(v, tv, "bool")
            self.same(i, ti, "bool")
            v, i = parmc.topk(x, 7, largest=flag)      # torch.topk takes no bool: the stable sort's first 7
            self.same(i, ti[:, :7].contiguous(), "bool topk")


if __name__ == "__main__":
    unittest.main()
