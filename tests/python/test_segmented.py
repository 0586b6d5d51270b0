"""parmc.segmented_sort and parmc.segmented_topk (python/parmc/_segmented.py) through the C
target on NumPy arrays, and on JAX's CPU backend where jax is installed (tests/sections/
80-python.sh): against a reference that sorts each segment with NumPy's stable argsort in
PyTorch's order (NaN last, or first when descending), on random segments with empty ones,
positions outside every segment, every dtype kind, and the errors. With
PARMC_TEST_LIBRARY=torch the same tests run on CUDA tensors (on a GPU machine:
tests/gpu/segmented.sh)."""
import os
import tempfile
import unittest

import numpy as np

try:
    import jax.numpy as jnp
except ImportError:
    jnp = None

from common import setUpModule, tearDownModule  # noqa: F401 (the module fixtures)
import parmc  # noqa: E402
from test_sort import ref_argsort  # noqa: E402

LIBRARY = os.environ.get("PARMC_TEST_LIBRARY", "numpy")
rng = np.random.default_rng(45)
# on a GPU every dtype and row length is an nvcc build: fewer of them there
DTYPES = (np.float32, np.int32, np.uint8, np.int64, np.bool_) if LIBRARY == "numpy" else (np.float32, np.int64)
SIZES = ((1000, 17), (64, 64), (300, 1), (5, 9)) if LIBRARY == "numpy" else ((1000, 17), (5, 9))


def dev(a):
    """A NumPy array as an array of the library under test."""
    if LIBRARY == "torch":
        import torch
        return torch.from_numpy(np.ascontiguousarray(a)).cuda()
    return a


def host(a):
    return a.cpu().numpy() if hasattr(a, "cpu") else np.asarray(a)


def random_offsets(n, segments):
    """segments + 1 ascending positions in 0..n, some segments empty, often not from 0 to n."""
    cuts = np.sort(rng.integers(0, n + 1, segments + 1))
    if rng.random() < 0.5:
        cuts[0], cuts[-1] = 0, n
    return cuts


def ref_segmented(values, offsets, descending):
    """(values, indices) of each segment sorted by the reference; the rest as it is, index 0."""
    out, idx = values.copy(), np.zeros(values.shape[0], np.int64)
    for s in range(len(offsets) - 1):
        a, b = offsets[s], offsets[s + 1]
        order = ref_argsort(values[a:b], 0, descending)
        out[a:b], idx[a:b] = values[a:b][order], order
    return out, idx


def random_values(dtype, n):
    if dtype == np.float32:
        v = rng.integers(-20, 20, n).astype(np.float32) / 4      # ties
        v[rng.random(n) < 0.05] = np.nan
        return v
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), n).astype(dtype)


def assert_same(test, got, want):
    np.testing.assert_array_equal(host(got[0]).view(np.uint8), np.asarray(want[0]).view(np.uint8))
    np.testing.assert_array_equal(host(got[1]), want[1])


class SegmentedSort(unittest.TestCase):
    def test_against_the_reference(self):
        for dtype in DTYPES:
            for n, segments in SIZES:
                values = random_values(dtype, n)
                offsets = random_offsets(n, segments).astype(np.int32 if n < 500 else np.int64)
                for descending in (False, True):
                    got = parmc.segmented_sort(dev(values), dev(offsets), descending=descending)
                    self.assertEqual((host(got.values).dtype, host(got.indices).dtype), (values.dtype, np.int64))
                    assert_same(self, got, ref_segmented(values, offsets, descending))

    def test_float64_and_empty(self):
        values = rng.standard_normal(1000)
        offsets = np.array([0, 10, 10, 1000])
        assert_same(self, parmc.segmented_sort(dev(values), dev(offsets)), ref_segmented(values, offsets, False))
        got = parmc.segmented_sort(dev(np.zeros(0, np.float32)), dev(np.array([0, 0], np.int32)))
        self.assertEqual((got.values.shape, got.indices.shape), ((0,), (0,)))

    def test_max_length_and_long_segments(self):
        """max_length: the classes up to it (no read of the device), a longer segment left as
        it is; segments longer than 2^16: the two argsorts."""
        values = random_values(np.float32, 3000)
        offsets = np.array([0, 100, 150, 3000])
        want = ref_segmented(values, offsets, True)
        assert_same(self, parmc.segmented_sort(dev(values), dev(offsets), descending=True, max_length=2850), want)
        want = ref_segmented(values, offsets[:3], True)
        assert_same(self, parmc.segmented_sort(dev(values), dev(offsets), descending=True, max_length=100), want)
        values = random_values(np.int32, 70000)
        offsets = np.array([0, 5, 69000, 70000])
        assert_same(self, parmc.segmented_sort(dev(values), dev(offsets)), ref_segmented(values, offsets, False))
        got = parmc.segmented_topk(dev(values), dev(offsets), 3, max_length=68995)
        np.testing.assert_array_equal(host(got.indices), ref_segmented(values, offsets, True)[1][offsets[:3, None] +
                                                                                            np.arange(3)])

    @unittest.skipIf(LIBRARY != "numpy", "NumPy's messages (the order of offsets is checked on the host only)")
    def test_errors(self):
        v = np.zeros(8, np.float32)
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.segmented_sort(v, np.array([0, 8], np.float32))
        self.assertIn("argument 'offsets': expected a 1-D int32 or int64 array", str(e.exception))
        for f, args in ((parmc.segmented_sort, ()), (parmc.segmented_topk, (2,))):
            with self.assertRaises(parmc.ArgumentTypeError) as e:
                f(v, np.array([0, 8], ">i8"), *args)
            self.assertIn(f"parmc.{f.__name__}: argument 'offsets' is big-endian (dtype >i8, byte order '>'); parmc "
                          "takes arrays in this machine's byte order (little-endian): use "
                          "offsets.astype(offsets.dtype.newbyteorder('='))", str(e.exception))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.segmented_topk(v, np.array([0, 8]), np.array([2], ">i4"))
        self.assertIn("argument 'k' is big-endian (dtype >i4, byte order '>'); parmc takes arrays in this machine's "
                      "byte order (little-endian): use k.astype(k.dtype.newbyteorder('='))", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            parmc.segmented_sort(v, np.array([0, 5, 3, 8]))
        self.assertIn("must ascend from 0 or more to at most 8", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            parmc.segmented_sort(np.zeros((2, 4), np.float32), np.array([0, 8]))
        self.assertIn("has 2 dimensions", str(e.exception))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.segmented_sort(v, np.array([0, 8]), descending=1)
        self.assertIn("argument 'descending': expected a bool", str(e.exception))
        # a dtype that is not sorted names 'values' and the function called, whichever path would
        # sort it (by classes, the two argsorts of empty values, a top-k), as does a big-endian one
        for f, args in ((parmc.segmented_sort, ()), (parmc.segmented_topk, (2,)), (parmc.segmented_topk, (0,))):
            for n in (8, 0):
                with self.assertRaises(parmc.ArgumentTypeError) as e:
                    f(np.zeros(n, np.complex64), np.array([0, n]), *args)
                self.assertIn(f"parmc.{f.__name__}: argument 'values' has dtype complex64; parmc sorts int8",
                              str(e.exception))
                with self.assertRaises(parmc.ArgumentTypeError) as e:
                    f(np.zeros(n, ">f4"), np.array([0, n]), *args)
                self.assertIn(f"parmc.{f.__name__}: argument 'values' is big-endian (dtype >f4, byte order '>'); parmc "
                              "takes arrays in this machine's byte order (little-endian): use "
                              "values.astype(values.dtype.newbyteorder('='))", str(e.exception))
        # a list names the argument it is
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.segmented_sort(v, [0, 8])
        self.assertIn("argument 'offsets': expected a NumPy array", str(e.exception))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.segmented_topk([1.0, 2.0], np.array([0, 2]), 1)
        self.assertIn("argument 'values': expected a NumPy array", str(e.exception))

    @unittest.skipIf(LIBRARY != "numpy", "NumPy views and ml_dtypes' bfloat16")
    def test_strided_and_bfloat16_values(self):
        base = random_values(np.float32, 2000)
        offsets = random_offsets(1000, 20)
        view = base[::2]                      # a strided view: sorted as its copy
        assert_same(self, parmc.segmented_sort(view, offsets), ref_segmented(view.copy(), offsets, False))
        got = parmc.segmented_topk(view, offsets[::1], 4)
        want = parmc.segmented_topk(view.copy(), offsets, 4)
        assert_same(self, got, (host(want.values), host(want.indices)))
        try:
            import ml_dtypes
        except ImportError:
            return
        b = random_values(np.float32, 500).astype(ml_dtypes.bfloat16)
        offsets = random_offsets(500, 9)
        got = parmc.segmented_sort(b, offsets)
        want = parmc.segmented_sort(b.astype(np.float32), offsets)
        np.testing.assert_array_equal(host(got.indices), host(want.indices))


    @unittest.skipIf(LIBRARY != "numpy", "NumPy's own array types")
    def test_ndarray_subclasses(self):
        """numpy.memmap and a subclass of one's own for values, offsets and a k per segment;
        the results are plain ndarrays."""
        class Mine(np.ndarray):
            pass
        values = random_values(np.float32, 500)
        offsets = random_offsets(500, 9)
        ks = rng.integers(0, 5, 9)
        with tempfile.TemporaryDirectory() as d:
            m = np.memmap(os.path.join(d, "v"), dtype=np.float32, mode="w+", shape=values.shape)
            m[:] = values
            for v, o, k in ((m, offsets, ks), (values.view(Mine), offsets.view(Mine), ks.view(Mine)),
                            (m, offsets.view(Mine), ks)):
                got = parmc.segmented_sort(v, o)
                self.assertEqual((type(got.values), type(got.indices)), (np.ndarray, np.ndarray))
                assert_same(self, got, ref_segmented(values, offsets, False))
                top = parmc.segmented_topk(v, o, k, largest=False)
                self.assertEqual((type(top.values), type(top.indices)), (np.ndarray, np.ndarray))
                assert_same(self, top, SegmentedTopk.ref(None, values, offsets, ks.tolist(), False))
            del m


class SegmentedTopk(unittest.TestCase):
    def ref(self, values, offsets, ks, largest):
        top = max(max(ks), 0) if len(ks) else 0
        sorted_values, index = ref_segmented(values, offsets, largest)
        if values.dtype.kind == "b":
            pad = not largest
        elif values.dtype.kind == "f":
            pad = -np.inf if largest else np.inf
        else:
            pad = np.iinfo(values.dtype).min if largest else np.iinfo(values.dtype).max
        out_v = np.full((len(offsets) - 1, top), pad, values.dtype)
        out_i = np.full((len(offsets) - 1, top), -1, np.int64)
        for s, k in enumerate(ks):
            a = offsets[s]
            m = max(0, min(k, offsets[s + 1] - a))
            out_v[s, :m], out_i[s, :m] = sorted_values[a:a + m], index[a:a + m]
        return out_v, out_i

    def test_every_k_negative(self):
        values = random_values(np.float32, 100)
        offsets = random_offsets(100, 4)
        got = parmc.segmented_topk(dev(values), dev(offsets), dev(np.array([-1, -2, -3, -1])))
        self.assertEqual(tuple(got.values.shape), (4, 0))
        # max_length is checked even where no segment is read
        with self.assertRaises(parmc.ArgumentValueError):
            parmc.segmented_topk(dev(values), dev(offsets), 0, max_length=-1)

    def test_one_k(self):
        for dtype in (np.float32, np.int16):
            values = random_values(dtype, 1000)
            offsets = random_offsets(1000, 30)
            for k, largest in ((5, True), (1, False), (40, True), (0, True)):
                got = parmc.segmented_topk(dev(values), dev(offsets), k, largest=largest)
                self.assertEqual(tuple(got.values.shape), (30, k))
                assert_same(self, got, self.ref(values, offsets, [k] * 30, largest))

    def test_long_segments_every_dtype(self):
        # segments of up to 2^9 (classes of rows up to 2^9), k shorter and longer than many
        n = 4000
        for dtype in DTYPES:
            values = random_values(dtype, n)
            offsets = np.concatenate([[0], np.cumsum(rng.integers(0, 513, 14))])
            offsets = offsets[offsets <= n]
            for k, largest in ((3, True), (24, False)):
                got = parmc.segmented_topk(dev(values), dev(offsets), k, largest=largest)
                assert_same(self, got, self.ref(values, offsets, [k] * (len(offsets) - 1), largest))
            ks = rng.integers(0, 70, len(offsets) - 1)
            got = parmc.segmented_topk(dev(values), dev(offsets), dev(ks), largest=True, max_length=512)
            assert_same(self, got, self.ref(values, offsets, ks.tolist(), True))

    @unittest.skipIf(LIBRARY != "numpy", "NumPy's offsets are on the host, where max_length is checked")
    def test_max_length_shorter_than_a_segment(self):
        """A max_length below the longest segment (whose top-k would be its first elements with
        indices 0) is an ArgumentValueError naming it and the segment, k = 0 and empty values
        too; max_length at least the longest is taken."""
        values = random_values(np.float32, 300)
        offsets = np.array([0, 10, 10, 250, 300], np.int32)
        for k, v in ((3, values), (0, values), (np.array([1, 2, 0, 4]), values)):
            for bad in (239, 4, 0):
                with self.assertRaises(parmc.ArgumentValueError) as e:
                    parmc.segmented_topk(v, offsets, k, max_length=bad)
                self.assertIn(f"argument 'max_length' is {bad}, but segment 2 has 240 elements: max_length must be at "
                              "least the longest segment's length", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            parmc.segmented_topk(np.zeros(0, np.float32), np.array([0, 0]), 0, max_length=-1)
        self.assertIn("argument 'max_length' is -1", str(e.exception))
        self.assertEqual(parmc.segmented_topk(np.zeros(0, np.float32), np.array([0, 0]), 0, max_length=0).values.shape,
                         (1, 0))
        for fits in (240, 256, 1 << 20):
            assert_same(self, parmc.segmented_topk(values, offsets, 3, max_length=fits),
                        self.ref(values, offsets, [3] * 4, True))

    def test_k_per_segment(self):
        values = random_values(np.float32, 1000)
        offsets = random_offsets(1000, 20)
        ks = rng.integers(-2, 30, 20)
        got = parmc.segmented_topk(dev(values), dev(offsets), dev(ks), largest=False)
        assert_same(self, got, self.ref(values, offsets, ks.tolist(), False))

    def test_errors(self):
        v, o = dev(np.zeros(8, np.float32)), dev(np.array([0, 4, 8]))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.segmented_topk(v, o, dev(np.array([1, 2, 3])))
        self.assertIn("one k per segment (2)", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            parmc.segmented_topk(v, o, -1)
        self.assertIn("argument 'k' is -1", str(e.exception))

    @unittest.skipIf(LIBRARY != "numpy", "the other libraries' arrays are made here for NumPy values")
    def test_k_of_another_library(self):
        """A k per segment of another library than values is an ArgumentTypeError naming 'k', as
        offsets of one is (a JAX k for NumPy values was taken, with JAX's warning, into results of
        mixed libraries; a NumPy k for tensors an AttributeError); a list or tuple of ks says what
        a k per segment is. For JAX values a NumPy k is taken: the static form under jit."""
        v, o = np.arange(8, dtype=np.float32), np.array([0, 4, 8])
        bad = [((1, 2), "expected an int or a 1-D int32/int64 array of one k per segment (2) of values' library, "
                "got tuple"), ([1, 2], "got list")]
        if jnp is not None:
            bad.append((jnp.asarray([1, 2], jnp.int32), "argument 'k' is jaxlib.ArrayImpl of shape (2,) and dtype "
                        "int32; values is a numpy array"))
        for k, text in bad:
            with self.assertRaises(parmc.ArgumentTypeError) as e:
                parmc.segmented_topk(v, o, k)
            self.assertIn(text, str(e.exception))
        if jnp is not None:
            got = parmc.segmented_topk(jnp.asarray(v), jnp.asarray(o, jnp.int32), np.array([1, 2]))
            np.testing.assert_array_equal(np.asarray(got.indices), [[3, -1], [3, 2]])

    def test_k_larger_than_values(self):
        """A k beyond the length of values (which no segment can exceed), an int or a k per
        segment's largest, is an ArgumentValueError naming 'k' before the (n_segments, K)
        results are made (2^40 was NumPy's MemoryError of 12 TiB); up to the length is taken,
        each segment padded after its own elements."""
        v, o = dev(random_values(np.float32, 8)), dev(np.array([0, 3, 8]))
        for k, text in ((2**40, "is 1099511627776"), (9, "is 9"),
                        (dev(np.array([1, 2**40])), "has 1099511627776 as its largest"),
                        (dev(np.array([9, 0])), "has 9 as its largest")):
            with self.assertRaises(parmc.ArgumentValueError) as e:
                parmc.segmented_topk(v, o, k)
            self.assertIn(f"parmc.segmented_topk: argument 'k' {text}, more than the 8 elements of values: no segment "
                          "can be longer, so k is at most values' length", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            parmc.segmented_topk(dev(np.zeros(0, np.float32)), dev(np.array([0, 0])), 1)
        self.assertIn("argument 'k' is 1, more than the 0 elements of values", str(e.exception))
        got = parmc.segmented_topk(v, o, 8)
        self.assertEqual(tuple(got.values.shape), (2, 8))
        assert_same(self, got, self.ref(host(v), host(o), [8, 8], True))


@unittest.skipIf(jnp is None or LIBRARY != "numpy", "jax is not installed, or another library is under test")
class OnJax(unittest.TestCase):
    def test_sort_and_topk(self):
        values = random_values(np.float32, 300)
        offsets = random_offsets(300, 12).astype(np.int32)
        got = parmc.segmented_sort(jnp.asarray(values), jnp.asarray(offsets), descending=True)
        want = ref_segmented(values, offsets, True)
        np.testing.assert_array_equal(np.asarray(got.values).view(np.uint32), want[0].view(np.uint32))
        np.testing.assert_array_equal(np.asarray(got.indices), want[1])
        top = parmc.segmented_topk(jnp.asarray(values), jnp.asarray(offsets), 4)
        ref = SegmentedTopk.ref(None, values, offsets, [4] * 12, True)
        np.testing.assert_array_equal(np.asarray(top.values), ref[0])
        np.testing.assert_array_equal(np.asarray(top.indices), ref[1])


if __name__ == "__main__":
    unittest.main()
