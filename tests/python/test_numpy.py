"""The parmc Python package through the C target and NumPy (tests/sections/80-python.sh runs
it with PARMC set to the compiler under test): results against NumPy, every checked error,
the cache, the general calling convention (a hand-written library, fixtures/multi.c) and the
cost of a call."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from unittest import mock

import numpy as np

from common import PARMC, ROOT, setUpModule, tearDownModule  # noqa: F401 (the module fixtures)
import parmc  # noqa: E402


def example(name):
    return os.path.join(ROOT, "examples", name)


def sort_source(k):
    """examples/sort.parm with its entry on 2^k keys, as source text."""
    with open(example("sort.parm")) as f:
        text = f.read()
    return text.replace("entry main (xs : [2^20]i32) = sort 20 xs", f"entry main (xs : [2^{k}]i32) = sort {k} xs")


def bitrev_index(k):
    i = np.arange(1 << k)
    return sum(((i >> b) & 1) << (k - 1 - b) for b in range(k))


rng = np.random.default_rng(7)


class Results(unittest.TestCase):
    """Entries of the examples against NumPy."""

    @classmethod
    def setUpClass(cls):
        cls.sort = parmc.compile(sort_source(10), target="c")
        cls.perm = parmc.compile(example("permute.parm"), target="c")
        cls.kv = parmc.compile(example("kvsort.parm"), target="c")
        cls.scalars = parmc.compile(os.path.join(ROOT, "tests", "backend", "scalar_params.parm"), target="c")

    def test_sort(self):
        for _ in range(3):
            xs = rng.integers(-2**31, 2**31, 1024, dtype=np.int32)
            before = xs.copy()
            out = self.sort.main(xs)
            self.assertIsInstance(out, np.ndarray)
            self.assertEqual(out.dtype, np.int32)
            np.testing.assert_array_equal(out, np.sort(xs))
            np.testing.assert_array_equal(xs, before)   # the input is not written

    def test_sort_keeps_shape(self):
        xs = rng.integers(-100, 100, (4, 256), dtype=np.int32)
        out = self.sort.main(xs)
        self.assertEqual(out.shape, (4, 256))
        np.testing.assert_array_equal(out.ravel(), np.sort(xs.ravel()))

    def test_read_only_input(self):
        xs = rng.integers(-100, 100, 1024, dtype=np.int32)
        xs.flags.writeable = False
        np.testing.assert_array_equal(self.sort.main(xs), np.sort(xs))

    def test_ndarray_subclasses(self):
        """numpy.memmap (writable and read-only) and a subclass of one's own are NumPy arrays, as
        arguments of any parameter; the results are plain ndarrays. A masked array is refused,
        naming the parameter: its mask would be ignored."""
        class Mine(np.ndarray):
            pass
        xs = rng.integers(-100, 100, 1024, dtype=np.int32)
        with tempfile.TemporaryDirectory() as d:
            m = np.memmap(os.path.join(d, "xs"), dtype=np.int32, mode="w+", shape=(1024,))
            m[:] = xs
            m.flush()
            r = np.memmap(os.path.join(d, "xs"), dtype=np.int32, mode="r", shape=(4, 256))
            for a in (m, r, xs.view(Mine), m, xs.view(Mine)):     # twice: after the fast path is made
                out = self.sort.main(a)
                self.assertIs(type(out), np.ndarray)
                self.assertEqual(out.shape, a.shape)
                np.testing.assert_array_equal(out.ravel(), np.sort(xs))
            keys = np.memmap(os.path.join(d, "keys"), dtype=np.uint32, mode="w+", shape=(4096,))
            keys[:] = rng.integers(0, 50, 4096)
            k, v = self.kv.main((keys, np.arange(4096, dtype=np.int32).view(Mine)))
            self.assertEqual((type(k), type(v)), (np.ndarray, np.ndarray))
            np.testing.assert_array_equal(k, np.sort(keys))
            np.testing.assert_array_equal(np.asarray(keys)[v], k)
            np.testing.assert_array_equal(self.scalars.main(np.int32(2), m[:256]), xs[:256] * 2 + 1)
            del m, r, keys
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            self.sort.main(np.ma.masked_array(xs, xs < 0))
        self.assertIn("parameter 'xs': expected a NumPy array or a torch CPU tensor (target c), got "
                      "numpy.ma.MaskedArray: a masked array, whose mask parmc would ignore", str(e.exception))

    def test_permutations(self):
        xs = rng.integers(-1000, 1000, 1024, dtype=np.int32)
        np.testing.assert_array_equal(self.perm.main(xs), xs[bitrev_index(10)])
        np.testing.assert_array_equal(self.perm["rev"](xs), xs[::-1])
        ys = rng.integers(-1000, 1000, 4096, dtype=np.int32)
        np.testing.assert_array_equal(self.perm.trans(ys), ys.reshape(16, 256).T.ravel())

    def test_key_value(self):
        keys = rng.integers(0, 50, 4096, dtype=np.uint32)
        vals = np.arange(4096, dtype=np.int32)
        out = self.kv.main((keys, vals))
        self.assertIsInstance(out, tuple)
        k, v = out
        self.assertEqual((k.dtype, v.dtype), (np.uint32, np.int32))
        np.testing.assert_array_equal(k, np.sort(keys))
        np.testing.assert_array_equal(keys[v], k)                   # each value still with its key
        np.testing.assert_array_equal(np.sort(v), vals)             # a permutation of the values
        np.testing.assert_array_equal(self.kv.main([keys, vals])[0], k)   # a list of fields works too

    def test_scalar_parameters(self):
        p = self.scalars
        xs = rng.integers(-1000, 1000, 256, dtype=np.int32)
        np.testing.assert_array_equal(p.main(3, xs), xs * 3 + 1)
        np.testing.assert_array_equal(p.main(np.int64(-2), xs), xs * -2 + 1)
        fs = rng.standard_normal(64).astype(np.float32)
        np.testing.assert_array_equal(p.after(fs, 2.5, True), (0 - fs * np.float32(2.5)).astype(np.float32))
        np.testing.assert_array_equal(p.after(fs, 2, False), fs * 2)
        hs = rng.integers(-3000, 3000, 128, dtype=np.int16)
        out = p.widen(hs, 2**40)
        self.assertEqual(out.dtype, np.int64)
        np.testing.assert_array_equal(out, hs.astype(np.int64) + 2**40)

    def test_ranged_entry(self):
        for k in (4, 7, 10):
            xs = rng.integers(-100, 100, 1 << k, dtype=np.int32)
            np.testing.assert_array_equal(self.scalars.ranged(50, xs), np.minimum(xs, 50))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.scalars.ranged(50, np.zeros(8, np.int32))
        self.assertIn("16, 32, 64, 128, 256, 512, 1024", str(e.exception))

    def test_call_after_close(self):
        # the fast path of the first call must not keep the destroyed context
        prog = parmc.compile("entry main (xs : [2^4]i32) = map (\\x -> x + 1) xs\n", target="c")
        xs = np.arange(16, dtype=np.int32)
        np.testing.assert_array_equal(prog.main(xs), xs + 1)
        prog.close()
        np.testing.assert_array_equal(prog.main(xs), xs + 1)
        prog.close()

    def test_flags_as_a_string(self):
        prog = parmc.compile("entry main (xs : [2^2]i32) = map (\\x -> x * 3) xs\n", target="c", flags="-O1 -g")
        np.testing.assert_array_equal(prog.main(np.arange(4, dtype=np.int32)), np.arange(4) * 3)

    def test_entries_of_a_program(self):
        self.assertEqual(list(self.perm.entries), ["main", "rev", "trans"])
        self.assertIs(self.perm["main"], self.perm.main)
        with self.assertRaises(KeyError) as e:
            self.perm["nope"]
        self.assertIn("main, rev, trans", str(e.exception))
        with self.assertRaises(AttributeError):
            self.perm.nope
        self.assertIn("xs: []i32", self.perm.main.__doc__)
        self.assertIn("1024", repr(self.perm.main))


class AnyLength(unittest.TestCase):
    """Entries with a pad element: any length up to the size, and rows of any shape."""

    @classmethod
    def setUpClass(cls):
        with open(example("sort_any.parm")) as f:
            text = f.read().replace("entry main (xs : [2^24]i32 pad max) = sort 24 xs",
                                    "entry main (xs : [2^10]i32 pad max) = sort 10 xs")
        cls.sort = parmc.compile(text, target="c")
        with open(example("batched_any.parm")) as f:
            text = f.read().replace("entry main (xs : [2^20][2^10]i32 pad max) = rows 20 (bsort 10) xs",
                                    "entry main (xs : [2^4][2^6]i32 pad max) = rows 4 (bsort 6) xs")
        cls.rows = parmc.compile(text, target="c")

    def test_any_length(self):
        for n in (1000, 1024, 1, 3, 0):
            xs = rng.integers(-2**31, 2**31, n, dtype=np.int32)
            np.testing.assert_array_equal(self.sort.main(xs), np.sort(xs))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.sort.main(np.zeros(1025, np.int32))
        self.assertIn("parameter 'xs' has length 1025; the entry accepts any length from 0 to 1024", str(e.exception))

    def test_graph(self):
        """An entry graph of any length: its results of the padded length cut, a scalar whole;
        one whose lengths do not scale with n is refused, not called with wrong lengths."""
        prog = parmc.compile("entry total (xs : [2^6]i64 pad 1) = (map (\\x -> x * 2) xs, reduce (+) 0 xs)\n"
                             "entry other (ys : [2^4]i32) (xs : [2^4]i32 pad 0) = (ys, reduce (+) 0 xs)\n",
                             target="c")
        for n in (0, 1, 37, 64):
            xs = rng.integers(-1000, 1000, n, dtype=np.int64)
            twice, total = prog.total(xs)
            np.testing.assert_array_equal(twice, xs * 2)
            self.assertEqual(int(total[0]) if np.ndim(total) else int(total), int(xs.sum()) + 64 - n)
        with self.assertRaises(parmc.ArgumentValueError) as e:
            prog.other(np.zeros(16, np.int32), np.zeros(3, np.int32))
        self.assertIn("call it through the C API", str(e.exception))

    def test_result_row_length(self):
        """An entry with a result row length (docs/language.md 7.2): its result of another
        length than the padded parameter's comes back as the call's rows of k (one row of k for
        one dimension), the padded one in the call's shape, a scalar whole."""
        prog = parmc.compile("import \"topk\"\n"
                             "entry top3 (xs : [2^4][2^6]i32 pad min) : [3] = topk_rows desc 4 2 xs\n"
                             "entry first3 (xs : [2^6]i32 pad 0) : [3] = (half 16 0 (half 32 0 xs), xs, reduce (+) 0 xs)\n",
                             target="c")
        for shape in ((5, 40), (16, 64), (1, 3)):
            xs = rng.integers(-1000, 1000, shape, dtype=np.int32)
            top = prog.top3(xs)
            self.assertEqual(top.shape, (shape[0], 3))
            np.testing.assert_array_equal(top, -np.sort(-xs, axis=-1)[:, :3])
        for n in (3, 10, 64):
            xs = rng.integers(-1000, 1000, n, dtype=np.int32)
            first, same, total = prog.first3(xs)
            np.testing.assert_array_equal(first, xs[:3])
            np.testing.assert_array_equal(same, xs)
            self.assertEqual(int(total[0]) if np.ndim(total) else int(total), int(xs.sum()))

    def test_result_row_length_one_dimension_any_shape(self):
        """A one-dimensional entry with a result row length takes an array of any shape as its
        flat elements, one row: the cut result is (k,), all of it written by the call, the
        result of the padded length in the argument's shape (before: the argument's shape with
        its last dimension k, (2, 3) of which the call wrote 3 elements, the rest the heap's)."""
        prog = parmc.compile("entry first3 (xs : [2^3]i32 pad 0) : [3] = half 4 0 xs\n"
                             "entry both (xs : [2^3]i32 pad 7) : [3] = (half 4 0 xs, xs)\n", target="c")
        for shape in ((2, 4), (2, 2, 2), (8, 1), (1, 5), (2, 1), (0, 3), ()):
            xs = np.arange(1, 1 + int(np.prod(shape)), dtype=np.int32).reshape(shape)
            want = np.concatenate([xs.ravel(), np.zeros(3, np.int32)])[:3]
            for _ in range(3):     # the checked call, then the same call again
                got = prog.first3(xs)
                self.assertEqual(got.shape, (3,), shape)
                np.testing.assert_array_equal(got, want)
                first, same = prog.both(xs)
                self.assertEqual((first.shape, same.shape), ((3,), xs.shape))
                np.testing.assert_array_equal(first, np.concatenate([xs.ravel(), np.full(3, 7, np.int32)])[:3])
                np.testing.assert_array_equal(same, xs)

    def test_torch_fake_shapes(self):
        """The custom op's fake implementation (what torch.compile traces: _torch_op._fake)
        gives the shapes the call gives, a cut result among them (it gave the uncut length,
        (4,) for (3,)), run with a stand-in torch module in a process of its own."""
        code = textwrap.dedent("""
            import sys, types
            import numpy as np
            torch = types.ModuleType("torch")
            for name in ("int32", "int64", "float32"):
                setattr(torch, name, name)
            sys.modules["torch"] = torch

            class T:
                def __init__(self, a):
                    self.a, self.shape = a, a.shape
                def numel(self):
                    return self.a.size
                def new_empty(self, shape, dtype):
                    return types.SimpleNamespace(shape=tuple(shape), dtype=dtype)

            import parmc
            from parmc import _torch_op
            prog = parmc.compile('import "topk"\\nentry first3 (xs : [2^3]i32 pad 0) : [3] = half 4 0 xs\\n'
                                 'entry top3 (xs : [2^4][2^6]i32 pad min) : [3] = (topk_rows desc 4 2 xs, xs)\\n'
                                 'entry sort (xs : [2^6]i32 pad max) = bitonic_sort asc 6 xs\\n', target="c")
            calls = [(prog.entries[name], (np.zeros(shape, np.int32),)) for name, shape in (
                ("first3", (2, 4)), ("first3", (5,)), ("top3", (3, 40)), ("top3", (2, 3, 7)), ("sort", (4, 9)))]
            seg = parmc.compile(sys.argv[1], target="c")
            four = np.zeros(4, np.int32)
            calls += [(seg.seg, (np.zeros((3, 5), np.float32), np.zeros(16, np.int64), np.zeros(16, np.int32))),
                      (seg.after, (four, four, np.zeros(30, np.int32))),
                      (seg.more, (np.zeros(20, np.int32), four, four, np.zeros(8, np.int32), 1)),
                      (seg.top3, (np.zeros(20, np.int32), four.astype(np.int64), four.astype(np.int64)))]
            for ef, args in calls:
                name, shape = ef.name, args[0].shape
                got = ef(*args)
                got = got if isinstance(got, tuple) else (got,)
                fake = _torch_op._fake(ef, tuple(T(a) if isinstance(a, np.ndarray) else a for a in args), len(got))
                fake = fake if isinstance(fake, tuple) else (fake,)
                assert [f.shape for f in fake] == [g.shape for g in got], (name, shape, fake, [g.shape for g in got])
            print("ok")
            """)
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        p = subprocess.run([sys.executable, "-c", code, SEGMENTS], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual((p.returncode, p.stdout.strip()), (0, "ok"), p.stderr[-3000:])

    def test_rows(self):
        for shape in ((3, 50), (16, 64), (1, 1), (5, 7)):
            xs = rng.integers(-1000, 1000, shape, dtype=np.int32)
            out = self.rows.main(xs)
            self.assertEqual(out.shape, shape)
            np.testing.assert_array_equal(out, np.sort(xs, axis=-1))
        for shape, text in (((17, 10), "has 17 rows of 10; the entry accepts up to 16 rows of up to 64"),
                            ((2, 65), "has 2 rows of 65"),
                            ((5000,), "parameter 'xs' expects a 2-D array of rows (rows, row length), got a 1-D "
                             "array of 5000 elements: one row, and the entry's rows have up to 64")):
            with self.assertRaises(parmc.ArgumentValueError) as e:
                self.rows.main(np.zeros(shape, np.int32))
            self.assertIn(text, str(e.exception))


SEGMENTS = """import "sort"
import "topk"
entry seg (xs : [2^4][2^3]f32 pad (1.0 / 0.0), segments st ln) (st : [2^4]i64) (ln : [2^4]i32) =
    bitonic_sort_rows asc 4 3 xs
entry after (st : [2^2]i32) (ln : [2^2]i32) (xs : [2^2][2^3]i32 pad max, segments st ln) = bitonic_sort_rows asc 2 3 xs
entry more (xs : [2^2][2^3]i32 pad max, segments st ln) (st : [2^2]i32) (ln : [2^2]i32) (w : [2^3]i32) (s : i32) =
    (bitonic_sort_rows asc 2 3 xs, map (\\x -> x + s) w, reduce min 0 xs)
entry top3 (xs : [2^2][2^3]i32 pad min, segments st ln) (st : [2^2]i64) (ln : [2^2]i64) : [3] = topk_rows desc 2 2 xs
"""


def segments_of(n, rows, longest):
    """(starts, lengths) of rows disjoint segments inside n elements, of up to longest each,
    some empty, in no particular order."""
    cuts = np.sort(rng.choice(n + 1, 2 * rows, replace=True))
    starts, ends = cuts[0::2], np.minimum(cuts[1::2], cuts[0::2] + longest)
    order = rng.permutation(rows)
    return starts[order], (ends - starts)[order]


def ref_segments(xs, starts, lens, fill=0):
    """xs's segments sorted in place, every other element fill."""
    out = np.full_like(xs, fill)
    for s, ln in zip(starts, lens):
        out[s:s + ln] = np.sort(xs[s:s + ln])
    return out


class Segments(unittest.TestCase):
    """Entries with segments (docs/language.md 7.3): the padded parameter flat, of any length
    n; the starts and lengths one a row; results of the padded length in its shape, written
    in the segments and zeros elsewhere (never memory the call did not write); cut results
    all the rows of k; the other arrays and scalars as the one size has them. Before, the
    package refused every such entry."""

    @classmethod
    def setUpClass(cls):
        cls.prog = parmc.compile(SEGMENTS, target="c")

    def test_sort_in_segments(self):
        for n in (100, 128, 7, 0, 1000):
            xs = rng.standard_normal(n).astype(np.float32)
            st, ln = segments_of(n, 16, 8)
            for _ in range(2):
                got = self.prog.seg(xs, st.astype(np.int64), ln.astype(np.int32))
                self.assertEqual((got.shape, got.dtype), ((n,), np.float32))
                np.testing.assert_array_equal(got, ref_segments(xs, st, ln))
        xs = rng.standard_normal((10, 12)).astype(np.float32)     # any shape: its flat elements
        st, ln = segments_of(120, 16, 8)
        got = self.prog.seg(xs, st, ln.astype(np.int32), n=120)
        self.assertEqual(got.shape, (10, 12))
        np.testing.assert_array_equal(got.ravel(), ref_segments(xs.ravel(), st, ln))
        self.assertIn("in 16 segments of up to 8 elements", self.prog.seg.__doc__)

    def test_padded_after_the_segments(self):
        xs = rng.integers(-99, 99, 30, dtype=np.int32)
        st, ln = np.array([20, 0, 9, 30], np.int32), np.array([8, 5, 3, 0], np.int32)
        np.testing.assert_array_equal(self.prog.after(st, ln, xs), ref_segments(xs, st, ln))
        np.testing.assert_array_equal(self.prog.after(st, ln, xs, n=30), ref_segments(xs, st, ln))

    def test_other_arrays_scalars_and_cut(self):
        xs = rng.integers(-99, 99, 20, dtype=np.int32)
        st, ln = np.array([2, 10, 0, 0], np.int32), np.array([5, 8, 0, 0], np.int32)
        w = np.arange(8, dtype=np.int32)
        out, plus, low = self.prog.more(xs, st, ln, w, 100)
        np.testing.assert_array_equal(out, ref_segments(xs, st, ln))
        np.testing.assert_array_equal(plus, w + 100)
        self.assertEqual(int(low), min(0, int(xs[2:7].min()), int(xs[10:18].min())))
        top = self.prog.top3(xs, st.astype(np.int64), ln.astype(np.int64))
        self.assertEqual(top.shape, (4, 3))
        least = np.iinfo(np.int32).min
        want = [np.concatenate([-np.sort(-xs[s:s + l]), [least] * 3])[:3] for s, l in zip(st, ln)]
        np.testing.assert_array_equal(top, want)

    def test_errors(self):
        p, xs = self.prog, np.zeros(20, np.float32)
        st, ln = np.zeros(16, np.int64), np.zeros(16, np.int32)
        for args, kind, text in (
                ((xs, st[:3], ln), parmc.ArgumentValueError,
                 "parameter 'st' has length 3; it holds the starts of the entry's 16 segments (rows of up to 8 of "
                 "parameter 'xs'), one each, so it must have 16 (give the segments not needed length 0)"),
                ((xs, st, np.zeros(17, np.int32)), parmc.ArgumentValueError, "parameter 'ln' has length 17; it holds "
                 "the lengths of the entry's 16 segments"),
                ((xs, st, ln.astype(np.int64)), parmc.ArgumentTypeError,
                 "parameter 'ln': expected dtype int32, got int64")):
            with self.assertRaises(kind) as e:
                p.seg(*args)
            self.assertIn(text, str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            p.seg(xs, st, ln, n=16)
        self.assertIn("n=16, but parameter 'xs' has length 20; n is the length of the padded parameter of an "
                      "entry with segments (n= may be left out)", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            p.more(np.zeros(20, np.int32), np.zeros(4, np.int32), np.zeros(4, np.int32), np.zeros(4, np.int32), 1)
        self.assertIn("parameter 'w' has length 4; it must be 8", str(e.exception))

    def test_bad_manifests(self):
        """The manifest's 'segments', checked as it is read."""
        with open(self.prog.manifest.path) as f:
            good = json.load(f)
        with tempfile.TemporaryDirectory() as d:
            for change, text in ((lambda e: e["segments"].update(starts=0), "other than the padded one"),
                                 (lambda e: e["segments"].update(lens=9), "other than the padded one"),
                                 (lambda e: e["segments"].update(lens=1), "must differ"),
                                 (lambda e: e["segments"].update(rows="16"), "needs integers"),
                                 (lambda e: e.update(segments=[1, 2]), "must be an object")):
                m = json.loads(json.dumps(good))
                change(m["entries"][0])
                path = os.path.join(d, "bad.json")
                with open(path, "w") as f:
                    json.dump(m, f)
                with self.assertRaises(parmc.ManifestError) as e:
                    parmc.load(self.prog.library_path, path)
                self.assertIn(text, str(e.exception))


class Graphs(unittest.TestCase):
    """Entries with several array parameters and results, scalar results, and none or only
    scalar parameters (tests/backend/graph.parm)."""

    @classmethod
    def setUpClass(cls):
        cls.g = parmc.compile(os.path.join(ROOT, "tests", "backend", "graph.parm"), target="c")

    def test_reduction(self):
        xs = rng.integers(-1000, 1000, 64).astype(np.int64)
        total = self.g.main(xs)
        self.assertEqual((total.shape, total.dtype), ((), np.int64))
        self.assertEqual(int(total), int(xs.sum()))

    def test_two_arrays_in(self):
        keys = rng.integers(-50, 50, 512).astype(np.int32)
        vals = rng.standard_normal(512).astype(np.float32)
        k, v = self.g.kv(keys, vals)
        np.testing.assert_array_equal(k, np.sort(keys))
        self.assertEqual(sorted(zip(k.tolist(), v.tolist())), sorted(zip(keys.tolist(), vals.tolist())))

    def test_keywords(self):
        """Parameters by name (the manifest's names), in any order, after positional ones."""
        keys = rng.integers(-50, 50, 512).astype(np.int32)
        vals = rng.standard_normal(512).astype(np.float32)
        want = self.g.kv(keys, vals)
        for got in (self.g.kv(vals=vals, keys=keys), self.g.kv(keys, vals=vals)):
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
        xs = rng.integers(-100, 100, 256).astype(np.int32)
        np.testing.assert_array_equal(self.g.scaled(xs=xs, s=3), xs * 3 + 1)
        for call, text in ((lambda: self.g.kv(keys, keys=keys), "graph.kv(): parameter 'keys' given twice"),
                           (lambda: self.g.kv(keys, values=vals), "graph.kv() has no parameter 'values' (parameters: "
                            "keys, vals; options: stream=, n=)"),
                           (lambda: self.g.kv(vals=vals), "graph.kv() is missing parameter 'keys' (parameters: keys, "
                            "vals)"),
                           (lambda: self.g.kv(keys, vals, vals, n=1), "graph.kv() takes 2 arguments (keys, vals), got 3")):
            with self.assertRaises(parmc.ArgumentTypeError) as e:
                call()
            self.assertIn(text, str(e.exception))

    def test_n_option(self):
        """n= with array parameters must be the first one's length (which tells it): another is
        an ArgumentValueError, not ignored; without arrays it picks the row; an entry with no
        array at all refuses it; it is an integer, never a bool."""
        keys = rng.integers(-50, 50, 512).astype(np.int32)
        vals = rng.standard_normal(512).astype(np.float32)
        want = self.g.kv(keys, vals)
        for g, w in zip(self.g.kv(keys, vals, n=512), want):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(self.g.kv(keys, vals, n=np.int64(512))[0], want[0])
        xs = rng.integers(-100, 100, 32).astype(np.int32)
        ys = (rng.standard_normal(8).astype(np.float32), rng.integers(0, 255, 8).astype(np.uint8))
        zs = rng.integers(0, 1000, 128).astype(np.uint16)
        np.testing.assert_array_equal(self.g.lengths(xs, ys, 3, zs, n=32)[0], xs * 2)
        for call, exc, text in (
                (lambda: self.g.kv(keys, vals, n=256), parmc.ArgumentValueError,
                 "graph.kv: n=256, but parameter 'keys' has length 512; n is the length of the first array parameter "
                 "(n= may be left out)"),
                (lambda: self.g.lengths(xs, ys, 3, zs, n=128), parmc.ArgumentValueError,
                 "graph.lengths: n=128, but parameter 'xs' has length 32"),
                (lambda: self.g.scaled(3, xs[:256], n=0), parmc.ArgumentValueError,
                 "graph.scaled: n=0, but parameter 'xs' has length 32"),
                (lambda: self.g.kv(keys, vals, n=True), parmc.ArgumentTypeError,
                 "graph.kv: n= expected an integer, got bool"),
                (lambda: self.g.kv(keys, vals, n="512"), parmc.ArgumentTypeError,
                 "graph.kv: n= expected an integer, got str"),
                (lambda: self.g.filled(2.5, 3, n=31), parmc.ArgumentValueError,
                 "graph.filled: n has length 31; the entry accepts 32"),
                (lambda: self.g.scalars(4, 5, n=1), parmc.ArgumentTypeError,
                 "graph.scalars: n= is for an entry with arrays, and this one has none")):
            with self.assertRaises(exc) as e:
                call()
            self.assertIn(text, str(e.exception))
        np.testing.assert_array_equal(self.g.filled(2.5, 3, n=32)[0], np.full(32, 2.5, np.float32))

    def test_arrays_of_several_lengths(self):
        xs = rng.integers(-100, 100, 32).astype(np.int32)
        ys = (rng.standard_normal(8).astype(np.float32), rng.integers(0, 255, 8).astype(np.uint8))
        zs = rng.integers(0, 1000, 128).astype(np.uint16)
        a, b, c, m = self.g.lengths(xs, ys, 3, zs)
        np.testing.assert_array_equal(a, xs * 2)
        np.testing.assert_array_equal(b, ys[0] * np.float32(0.5))
        np.testing.assert_array_equal(c, zs + np.uint16(3))
        self.assertEqual(int(m), int(zs.max()))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.g.lengths(xs, ys, 3, zs[:64])
        self.assertIn("parameter 'zs' has length 64; with n = 32 it must be 128", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.g.lengths(xs, ys, 40000, zs)
        self.assertIn("parameter 's': 40000 is out of range for i16", str(e.exception))

    def test_no_array_parameter(self):
        xs, (ks, fs), x, k2 = self.g.filled(2.5, 3)
        np.testing.assert_array_equal(xs, np.full(32, 2.5, np.float32))
        np.testing.assert_array_equal(ks, np.full(8, 3, np.int8))
        np.testing.assert_array_equal(fs, np.full(8, 2.5, np.float32))
        self.assertEqual((float(x), int(k2)), (2.5, 6))
        self.assertEqual([int(v) for v in self.g.scalars(4, 5)], [7, 5 ^ 9, 17, 4])
        # help() and repr say it has no length (they said "lengths: None"); filled's results have one
        self.assertEqual(repr(self.g.scalars), "<parmc entry graph.scalars(a: i32, b: u8) -> i32, u8, i64, i32; "
                         "lengths: none (no arrays)>")
        self.assertTrue(repr(self.g.filled).endswith("; lengths: 32>"), repr(self.g.filled))


class Examples(unittest.TestCase):
    """The programs that examples/python/ writes, through the C target at small sizes (the
    scripts themselves need a GPU: tests/gpu/python.sh runs them)."""

    def load(self, name):
        sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
        try:
            return __import__(name)
        finally:
            sys.path.pop(0)

    def test_batched_sort_program(self):
        prog = parmc.compile(self.load("batched_sort").program(10, 50), target="c")   # 16 rows of 64 at most
        for shape in ((10, 50), (16, 64), (3, 33)):
            xs = rng.integers(-1000, 1000, shape, dtype=np.int32)
            np.testing.assert_array_equal(prog.main(xs), np.sort(xs, axis=-1))
        self.assertRaises(parmc.ArgumentValueError, prog.main, np.zeros((17, 2), np.int32))

    def test_scripts_without_their_library(self):
        """Each script, where its array library is not installed (as in build/venv), says so
        in one line and exits with an error: sample_topk.py gave a traceback of
        ModuleNotFoundError."""
        import importlib.util
        for script, lib in (("batched_sort", "torch"), ("sample_topk", "torch"), ("permute_cupy", "cupy")):
            if importlib.util.find_spec(lib) is not None:
                continue
            p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "python", script + ".py")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
            self.assertNotEqual(p.returncode, 0)
            self.assertEqual(p.stderr.strip(), f"{script}.py: needs {lib} (pip install "
                             f"{'cupy-cuda12x' if lib == 'cupy' else lib})", p.stderr)

    def test_permute_program(self):
        prog = parmc.compile(self.load("permute_cupy").program(8), target="c")
        xs = rng.standard_normal(256).astype(np.float32)
        np.testing.assert_array_equal(prog.main(xs), xs[bitrev_index(8)])


class Errors(unittest.TestCase):
    """Every bad call raises before anything is allocated or written, naming the entry and
    the parameter."""

    @classmethod
    def setUpClass(cls):
        cls.sort = parmc.compile(sort_source(10), target="c")
        cls.kv = parmc.compile(example("kvsort.parm"), target="c")
        cls.scalars = parmc.compile(os.path.join(ROOT, "tests", "backend", "scalar_params.parm"), target="c")
        cls.name = cls.sort.name

    def raises(self, exc, text, f, *args, **kw):
        with self.assertRaises(exc) as e:
            f(*args, **kw)
        self.assertIsInstance(e.exception, parmc.Error)
        self.assertIn(text, str(e.exception))
        return str(e.exception)

    def test_dtype(self):
        msg = self.raises(TypeError, "expected dtype int32, got float32", self.sort.main, np.zeros(1024, np.float32))
        self.assertIn(f"{self.name}.main: parameter 'xs'", msg)
        self.raises(TypeError, "expected dtype int32, got int64", self.sort.main, np.zeros(1024, np.int64))
        # the other byte order than the machine's: the message says that it is what is refused
        self.raises(TypeError, "parameter 'xs' is big-endian (dtype >i4, byte order '>'); parmc takes arrays in this "
                    "machine's byte order (little-endian): use xs.astype(xs.dtype.newbyteorder('='))", self.sort.main,
                    np.zeros(1024, ">i4"))
        self.raises(TypeError, "parameter 'xs' field 1 is big-endian (dtype >i4, byte order '>'); parmc takes arrays in "
                    "this machine's byte order (little-endian): use xs[1].astype(xs[1].dtype.newbyteorder('='))",
                    self.kv.main, (np.zeros(4096, np.uint32), np.zeros(4096, ">i4")))
        self.raises(TypeError, "parameter 'xs': expected dtype int32, got >f4", self.sort.main, np.zeros(1024, ">f4"))

    def test_not_an_array(self):
        self.raises(TypeError, "expected a NumPy array or a torch CPU tensor (target c), got builtins.list",
                    self.sort.main, [0] * 1024)

    def test_contiguity(self):
        self.raises(ValueError, "not contiguous", self.sort.main, np.zeros(2048, np.int32)[::2])
        self.raises(ValueError, "not contiguous", self.sort.main, np.zeros((32, 32), np.int32).T)

    def test_length(self):
        msg = self.raises(ValueError, "parameter 'xs' has length 1000; the entry accepts 1024", self.sort.main,
                          np.zeros(1000, np.int32))
        self.assertIn(f"{self.name}.main", msg)

    def test_argument_count(self):
        self.raises(TypeError, "main() takes 1 argument (xs), got 0", self.sort.main)
        self.raises(TypeError, "takes 1 argument (xs), got 2", self.sort.main, np.zeros(1024, np.int32), 1)
        self.raises(TypeError, "main() takes 2 arguments (s, xs), got 1", self.scalars.main, np.zeros(256, np.int32))

    def test_scalar_range_and_type(self):
        xs = np.zeros(256, np.int32)
        self.raises(ValueError, "parameter 's': 2147483648 is out of range for i32", self.scalars.main, 2**31, xs)
        self.raises(ValueError, "out of range for i32", self.scalars.main, -2**31 - 1, xs)
        self.raises(TypeError, "parameter 's': expected an integer for i32, got float", self.scalars.main, 1.5, xs)
        self.raises(TypeError, "expected an integer for i32, got str", self.scalars.main, "3", xs)
        self.raises(ValueError, "parameter 't': -1 is out of range for u8 (0..255)", self.scalars.blocks, -1,
                    np.zeros(1024, np.uint8))
        fs = np.zeros(64, np.float32)
        self.raises(ValueError, "parameter 'k': 1e+39 is out of range for f32", self.scalars.after, fs, 1e39, True)
        self.raises(TypeError, "parameter 'k': expected a real number for f32, got str", self.scalars.after, fs, "1", True)
        np.testing.assert_array_equal(self.scalars.after(fs + 1, float("inf"), False), np.full(64, np.inf, np.float32))
        # NumPy's bools (np.bool_, named bool in NumPy 2) and 0-d bool arrays are bools; NumPy's
        # other scalars are named with their module
        for neg in (np.True_, np.array(True), np.False_):
            np.testing.assert_array_equal(self.scalars.after(fs + 1, np.float32(2), neg),
                                          np.full(64, -2.0 if neg else 2.0, np.float32))
        self.raises(TypeError, "parameter 'neg': expected a bool, got numpy.float64", self.scalars.after, fs, 1.0,
                    np.float64(1))
        self.raises(TypeError, "parameter 's': expected an integer for i32, got numpy.float32", self.scalars.main,
                    np.float32(1), xs)

    def test_f32_range(self):
        """An f32 parameter takes every finite value that rounds to a finite float32: float32's
        largest as NumPy prints it (3.4028235e38, a little above it as a double), and up to
        half a last place beyond, each passed as float32's largest; from there on (it rounds
        to infinity) a range error; inf and nan as they are."""
        fs = np.ones(64, np.float32)
        top = np.finfo(np.float32).max
        limit = 2.0 ** 128 - 2.0 ** 103                     # FLT_MAX + half its last place
        for k in (3.4028235e38, float(top), top, np.float64(3.4028235e38), np.nextafter(limit, 0), 3.4028235e38):
            for sign in (1, -1):
                out = self.scalars.after(fs, sign * k, False)
                np.testing.assert_array_equal(out, np.full(64, sign * top, np.float32), repr(k))
        for k in (limit, 3.4028236e38, 1e39, -limit):
            self.raises(parmc.ArgumentValueError, f"parameter 'k': {float(k)!r} is out of range for f32 (it rounds to "
                        "infinity", self.scalars.after, fs, k, False)
        for k in (np.inf, -np.inf):
            np.testing.assert_array_equal(self.scalars.after(fs, k, False), np.full(64, k, np.float32))
        self.assertTrue(np.isnan(self.scalars.after(fs, np.nan, False)).all())

    def test_beyond_a_double(self):
        """A number too large for a double is out of range for f64 and f32 alike, an
        ArgumentValueError naming the parameter, on the first call and after the fast path is
        made: an int (10**400 was ctypes' ArgumentError through an f64's fast path) and a
        finite NumPy longdouble or Decimal that float() makes infinite (it passed as inf);
        their infinities and 2^1023 are taken."""
        import decimal
        prog = parmc.compile("entry f (b : f64) (c : f32) (xs : [2^2]f64) (ys : [2^2]f32) = "
                             "(map (\\x -> x * b) xs, map (\\y -> y * c) ys)\n", target="c")
        xs, ys = np.ones(4), np.ones(4, np.float32)
        for call in range(2):
            for big in (10**400, -10**400, 2**1024, np.longdouble("1e400"), decimal.Decimal("-1e400")):
                for name, args in (("b", (big, 1.0, xs, ys)), ("c", (1.0, big, xs, ys))):
                    msg = self.raises(parmc.ArgumentValueError, f"prog.f: parameter '{name}': ", prog.f, *args)
                    self.assertIn(" is out of range for f", msg)
            for inf in (np.longdouble("inf"), decimal.Decimal("-Infinity"), float("inf")):
                self.assertEqual(prog.f(inf, inf, xs, ys)[0][0], float(inf))
                self.assertEqual(prog.f(inf, inf, xs, ys)[1][0], float(inf))
            self.assertEqual(prog.f(2**1023, 1.0, xs, ys)[0][0], 2.0**1023)
            self.assertEqual(prog.f(3, 2.0, xs, ys)[1].tolist(), [2.0] * 4)

    def test_bools_and_numbers(self):
        """A bool parameter takes a bool alone (Python's, NumPy's, a 0-d bool array), never an
        integer, not even 0 or 1; a number parameter never takes a bool: each an ArgumentTypeError
        naming the parameter, on the first call and after the fast path is made."""
        fs, xs, hs = np.zeros(64, np.float32), np.zeros(256, np.int32), np.zeros(128, np.int16)
        for call in range(2):
            for neg in (1, 0, 2, np.int64(1), np.uint8(0), np.array(1)):
                msg = self.raises(parmc.ArgumentTypeError, "parameter 'neg': expected a bool, got ", self.scalars.after,
                                  fs, 1.0, neg)
                self.assertTrue(msg.endswith(f"got {type(neg).__name__}") or "numpy." in msg, msg)
            for s in (True, False, np.True_, np.array(False)):
                self.raises(parmc.ArgumentTypeError, "parameter 's': expected an integer for i32, got ",
                            self.scalars.main, s, xs)
                self.raises(parmc.ArgumentTypeError, "parameter 'off': expected an integer for i64, got ",
                            self.scalars.widen, hs, s)
                self.raises(parmc.ArgumentTypeError, "parameter 'k': expected a real number for f32, got ",
                            self.scalars.after, fs, s, True)
            self.raises(parmc.ArgumentTypeError, "parameter 's': expected an integer for i32, got bool",
                        self.scalars.main, True, xs)
            self.raises(parmc.ArgumentTypeError, "parameter 'neg': expected a bool, got int", self.scalars.after, fs,
                        1.0, 1)
            np.testing.assert_array_equal(self.scalars.after(fs + 1, 2.0, True), np.full(64, -2, np.float32))
            np.testing.assert_array_equal(self.scalars.main(np.int64(2), xs), np.ones(256, np.int32))

    def test_array_for_scalar(self):
        """An array for a scalar parameter of any type is parmc's TypeError naming the parameter,
        not NumPy's (issue 24); one of one element too. A 0-d array is a scalar."""
        fs, xs = np.zeros(64, np.float32), np.zeros(256, np.int32)
        for k in (np.ones(3), np.ones(1, np.float32), np.ones((2, 2))):
            msg = self.raises(TypeError, "parameter 'k': expected a real number for f32, got ndarray of shape",
                              self.scalars.after, fs, k, True)
            self.assertIn(str(k.shape), msg)
        self.raises(TypeError, "parameter 'off': expected an integer for i64, got ndarray of shape (2,)",
                    self.scalars.widen, np.zeros(128, np.int16), np.arange(2))
        self.raises(TypeError, "parameter 's': expected an integer for i32, got ndarray of shape (1,)",
                    self.scalars.main, np.array([3], np.int32), xs)
        self.raises(TypeError, "parameter 'neg': expected a bool, got ndarray of shape (2,)",
                    self.scalars.after, fs, 1.0, np.array([True, False]))
        self.raises(ValueError, "parameter 'k': 1e+40 is out of range for f32", self.scalars.after, fs, 10**40, True)
        self.raises(ValueError, "parameter 'k': " + str(10**400) + " is out of range for f32", self.scalars.after, fs,
                    10**400, True)
        np.testing.assert_array_equal(self.scalars.after(fs + 1, np.array(2.0), False),
                                      np.full(64, 2, np.float32))
        np.testing.assert_array_equal(self.scalars.main(np.array(2), xs), np.ones(256, np.int32))

    def test_tuple_fields(self):
        k, v = np.zeros(4096, np.uint32), np.zeros(4096, np.int32)
        self.raises(TypeError, "an array of tuples (u32, i32) is passed as a tuple of 2 arrays, one per field; got ndarray",
                    self.kv.main, k)
        self.raises(TypeError, "tuple of 2 arrays", self.kv.main, (k,))
        self.raises(TypeError, "parameter 'xs' field 1: expected dtype int32, got uint32", self.kv.main, (k, k))
        self.raises(ValueError, "parameter 'xs' field 1: 2048 elements, field 0 has 4096", self.kv.main, (k, v[:2048]))

    def test_stream_on_the_c_target(self):
        self.raises(TypeError, "stream= is for the CUDA target", self.sort.main, np.zeros(1024, np.int32), stream=0)

    def test_nothing_written(self):
        xs = rng.integers(-100, 100, 256, dtype=np.int32)
        before = xs.copy()
        for bad in (lambda: self.scalars.main(2**40, xs), lambda: self.scalars.main(1, xs[:128]),
                    lambda: self.scalars.main(1, xs.astype(np.int16))):
            self.assertRaises(parmc.Error, bad)
        np.testing.assert_array_equal(xs, before)


class General(unittest.TestCase):
    """The calling convention beyond today's entries (several arrays, a scalar result, an
    error code) through a hand-written library with its own manifest."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="parmc-fixture-")
        fixtures = os.path.join(os.path.dirname(__file__), "fixtures")
        shutil.copy(os.path.join(fixtures, "multi.json"), cls.dir)
        subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O1", "-shared", "-fPIC",
                        os.path.join(fixtures, "multi.c"), "-o", os.path.join(cls.dir, "libmulti.so")], check=True)
        cls.prog = parmc.load(os.path.join(cls.dir, "libmulti.so"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_several_arrays_and_a_scalar_result(self):
        a0 = np.arange(16, dtype=np.int32) - 8
        a1 = np.linspace(0, 1, 16, dtype=np.float32)
        b = np.array([0, 1, 2, 3], np.uint8)
        (o0, o1), o2, total = self.prog.mix((a0, a1), 0.5, b)
        np.testing.assert_array_equal(o0, a0.astype(np.int64) * 2)
        np.testing.assert_array_equal(o1, a1 + np.float32(0.5))
        np.testing.assert_array_equal(o2, b ^ 1)
        self.assertEqual(total.shape, ())
        self.assertAlmostEqual(float(total), 0.5 + float(a1.astype(np.float64).sum()), places=5)

    def test_length_of_a_second_array(self):
        a = (np.zeros(8, np.int32), np.zeros(8, np.float32))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.prog.mix(a, 1.0, np.zeros(5, np.uint8))
        self.assertIn("parameter 'b' has length 5; with n = 8 it must be 4", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.prog.mix((np.zeros(4, np.int32), np.zeros(4, np.float32)), 1.0, np.zeros(4, np.uint8))
        self.assertIn("parameter 'a' has length 4; the entry accepts 8, 16", str(e.exception))

    def test_error_code(self):
        a = (np.zeros(8, np.int32), np.zeros(8, np.float32))
        with self.assertRaises(parmc.CallError) as e:
            self.prog.mix(a, -1.0, np.zeros(4, np.uint8))
        self.assertEqual(e.exception.code, 7)
        self.assertEqual(str(e.exception), "fx.mix: the fixture refuses a negative s")

    def test_rows(self):
        """An entry over rows (the function takes rows and row_len): any shape up to its size."""
        xs = np.arange(15, dtype=np.int32).reshape(3, 5)
        out = self.prog.shift(xs)
        self.assertEqual(out.shape, (3, 5))
        np.testing.assert_array_equal(out, xs + np.arange(3, dtype=np.int32)[:, None])
        np.testing.assert_array_equal(self.prog.shift(np.arange(7, dtype=np.int32)), np.arange(7))   # one row
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.prog.shift(np.zeros((5, 2), np.int32))
        self.assertIn("fx.shift: parameter 'xs' has 5 rows of 2; the entry accepts up to 4 rows of up to 8",
                      str(e.exception))
        self.assertIn("up to 4 rows of up to 8 elements", self.prog.shift.__doc__)

    def test_bad_manifests(self):
        with open(os.path.join(self.dir, "multi.json")) as f:
            good = json.load(f)
        for change, text in ((lambda m: m.update(version=2), "manifest version 2"),
                             (lambda m: m.update(format="x"), "not a parmc-manifest"),
                             (lambda m: m["entries"][0]["params"][0].update(fields=["i33"]), "element types"),
                             (lambda m: m["entries"][0]["sizes"][0].update(params=[8]), "one length per param"),
                             (lambda m: m["entries"][0].update(symbol="fx_nope"), "no symbol fx_nope")):
            m = json.loads(json.dumps(good))
            change(m)
            path = os.path.join(self.dir, "bad.json")
            with open(path, "w") as f:
                json.dump(m, f)
            with self.assertRaises(parmc.Error) as e:
                parmc.load(os.path.join(self.dir, "libmulti.so"), path)
            self.assertIn(text, str(e.exception))

    def test_any_length(self):
        """An entry that says it takes any length up to max_n (the manifest's optional keys)."""
        with open(os.path.join(self.dir, "multi.json")) as f:
            m = json.load(f)
        m["entries"][0].update(any_length=True, min_n=8, max_n=16)
        m["entries"][0]["sizes"] = [{"n": 16, "params": [16, None, 4], "results": [16, 4, None]}]
        path = os.path.join(self.dir, "any.json")
        with open(path, "w") as f:
            json.dump(m, f)
        prog = parmc.load(os.path.join(self.dir, "libmulti.so"), path)
        self.assertEqual(prog.mix((np.zeros(8, np.int32), np.zeros(8, np.float32)), 0.0, np.zeros(2, np.uint8))[1].shape, (2,))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            prog.mix((np.zeros(17, np.int32), np.zeros(17, np.float32)), 0.0, np.zeros(4, np.uint8))
        self.assertIn("any length from 8 to 16", str(e.exception))


class Compile(unittest.TestCase):
    """parmc.compile: the cache, concurrent builds, errors."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="parmc-compile-")
        self.log = os.path.join(self.dir, "log")
        self.wrapper = os.path.join(self.dir, "parmc")
        with open(self.wrapper, "w") as f:   # parmc, logging its arguments
            f.write(f'#!/bin/sh\necho "$*" >>{self.log}\nexec {PARMC} "$@"\n')
        os.chmod(self.wrapper, 0o755)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_python(self, code, cache, parmc_path=None, check=True):
        env = dict(os.environ, PARMC=parmc_path or self.wrapper, PARMC_CACHE=cache,
                   PYTHONPATH=os.path.join(ROOT, "python"))
        p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if check:
            self.assertEqual(p.returncode, 0, p.stderr)
        return p

    def compiles(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [line for line in f if "--version" not in line]

    def test_cache(self):
        cache = os.path.join(self.dir, "cache")
        code = f"""
            import parmc, numpy as np
            p = parmc.compile({example('permute.parm')!r}, target="c")
            xs = np.arange(1024, dtype=np.int32)
            assert (p.rev(xs) == xs[::-1]).all()
        """
        self.run_python(code, cache)
        self.assertEqual(len(self.compiles()), 1)
        self.run_python(code, cache)           # a new process: from the cache, parmc not run
        self.assertEqual(len(self.compiles()), 1)
        self.run_python(code.replace('target="c"', 'target="c", flags=["-O1"]'), cache)   # other options: built again
        self.assertEqual(len(self.compiles()), 2)
        entries = [d for d in os.listdir(cache)]
        self.assertEqual(len(entries), 2, entries)

    def test_parmc_options(self):
        """$PARMC_OPTIONS goes to parmc (its tuning options) and into the cache's key; a bad
        value is parmc's error, another option the package's."""
        cache = os.path.join(self.dir, "cache")
        code = f"""
            import os, parmc, numpy as np
            os.environ["PARMC_OPTIONS"] = {{options!r}}
            p = parmc.compile({example('permute.parm')!r}, target="c")
            xs = np.arange(1024, dtype=np.int32)
            assert (p.rev(xs) == xs[::-1]).all()
        """
        self.run_python(code.format(options=""), cache)
        self.run_python(code.format(options="--tile-bytes 16K --register-bytes 256"), cache)
        self.assertEqual(len(os.listdir(cache)), 2)
        self.assertIn("--tile-bytes 16K --register-bytes 256", self.compiles()[-1])
        bad = self.run_python(code.format(options="--tile-bytes 3"), cache, check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("tile-bytes", bad.stderr)
        other = self.run_python(code.format(options="--tile-bytes=32K --target=cuda"), cache, check=False)
        self.assertIn("CompileError: $PARMC_OPTIONS: --target=cuda is not one of parmc's tuning options", other.stderr)

    def test_rebuilt_compiler(self):
        """A parmc of the same version but other bytes (a developer's rebuild) builds again."""
        cache, copy = os.path.join(self.dir, "cache"), os.path.join(self.dir, "parmc-copy")
        shutil.copy(PARMC, copy)
        code = f"""
            import parmc
            parmc.compile({example('permute.parm')!r}, target="c")
        """
        self.run_python(code, cache, parmc_path=copy)
        self.run_python(code, cache, parmc_path=copy)
        self.assertEqual(len(os.listdir(cache)), 1)
        with open(copy, "ab") as f:     # bytes after the ELF file's end: the same compiler
            f.write(b"\0")
        self.run_python(code, cache, parmc_path=copy)
        self.assertEqual(len(os.listdir(cache)), 2)

    def test_progress(self):
        """A build says so on stderr once it has taken $PARMC_PROGRESS seconds (0: at once), and
        how long it took; a library from the cache, or PARMC_PROGRESS=off, says nothing."""
        cache = os.path.join(self.dir, "cache")
        code = f"""
            import os, parmc
            os.environ["PARMC_PROGRESS"] = {{setting!r}}
            parmc.compile({example('permute.parm')!r}, target="c")
        """
        first = self.run_python(code.format(setting="0"), cache).stderr.splitlines()
        self.assertEqual(len(first), 2, first)
        self.assertRegex(first[0], r"^parmc: building permute \(parmc, then the C compiler\) into .*cache.* \.\.\.$")
        self.assertRegex(first[1], r"^parmc: built permute in [0-9.]+ s$")
        self.assertEqual(self.run_python(code.format(setting="0"), cache).stderr, "")     # cached
        other = os.path.join(self.dir, "other")
        self.assertEqual(self.run_python(code.format(setting="off"), other).stderr, "")
        self.assertEqual(self.run_python(code.format(setting="60"), os.path.join(self.dir, "third")).stderr, "")
        bad = code.replace(repr(example('permute.parm')), repr("entry main (xs : [2^4]i32) = nope xs"))
        p = self.run_python(bad.format(setting="0"), other, check=False)
        self.assertRegex(p.stderr, r"parmc: building prog .*\nparmc: failed prog in [0-9.]+ s\n")

    def test_cache_follows_imports(self):
        lib = os.path.join(self.dir, "lib")
        os.makedirs(lib)
        with open(os.path.join(lib, "ops.parm"), "w") as f:
            f.write("inc x = x + 1\n")
        code = f"""
            import parmc, numpy as np
            p = parmc.compile('import "ops"\\nentry main (xs : [2^4]i32) = map inc xs\\n', target="c", include=[{lib!r}])
            print(p.main(np.zeros(16, np.int32))[0])
        """
        cache = os.path.join(self.dir, "cache")
        self.assertEqual(self.run_python(code, cache).stdout.strip(), "1")
        with open(os.path.join(lib, "ops.parm"), "w") as f:
            f.write("inc x = x + 2\n")
        self.assertEqual(self.run_python(code, cache).stdout.strip(), "2")
        self.assertEqual(len(self.compiles()), 2)

    def test_concurrent_builds(self):
        cache = os.path.join(self.dir, "cache")
        code = f"""
            import parmc, numpy as np
            p = parmc.compile({example('permute.parm')!r}, target="c")
            xs = np.arange(1024, dtype=np.int32)
            assert (p.rev(xs) == xs[::-1]).all()
        """
        env = dict(os.environ, PARMC=self.wrapper, PARMC_CACHE=cache, PYTHONPATH=os.path.join(ROOT, "python"))
        procs = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
        for p in procs:
            _, err = p.communicate()
            self.assertEqual(p.returncode, 0, err)
        self.assertEqual(len(os.listdir(cache)), 1, os.listdir(cache))   # one entry, no temporary left

    def test_errors(self):
        cache = os.path.join(self.dir, "cache")
        p = self.run_python("import parmc; parmc.compile('entry main (xs : [2^4]i32) = mapp xs\\n', target='c')",
                            cache, check=False)
        self.assertIn("parmc.CompileError: parmc failed (exit 1)", p.stderr)
        self.assertIn("prog.parm:1:", p.stderr)
        self.assertIn("unknown name 'mapp'", p.stderr)
        p = self.run_python("import parmc; parmc.compile('x.parm', target='c')", cache, parmc_path="/no/such/parmc",
                            check=False)
        self.assertIn("parmc.ToolError: PARMC=/no/such/parmc is not an executable file", p.stderr)
        p = self.run_python("import parmc; parmc.compile('/no/such.parm', target='c')", cache, check=False)
        self.assertIn("FileNotFoundError", p.stderr)
        self.assertIn("cannot read the parm program /no/such.parm", p.stderr)
        env = dict(os.environ, PATH="/nonexistent")
        env.pop("PARMC", None)
        p = subprocess.run([sys.executable, "-c", "import parmc; parmc.compile('x.parm')"], env=dict(
            env, PYTHONPATH=os.path.join(ROOT, "python")), stderr=subprocess.PIPE, text=True)
        self.assertIn("cannot find the parmc compiler", p.stderr)
        with self.assertRaises(ValueError):
            parmc.compile(example("permute.parm"), target="opencl")

    def test_same_text_other_names(self):
        """Two files of one text under other names, and that text itself, are three libraries
        (each named by its file, "prog" for text, which is also its API prefix): the key held
        the text alone, so in a new process the second name found the first's cache entry and
        looked there for its own manifest (ManifestError: cannot read .../b.json)."""
        cache = os.path.join(self.dir, "cache")
        src = 'import "sort"\nentry main (xs : [2^4]i32) = bitonic_sort asc 4 xs\n'
        for name in ("a", "b"):
            with open(os.path.join(self.dir, f"{name}.parm"), "w") as f:
                f.write(src)
        for what in ("a.parm", "b.parm", None):
            arg = repr(os.path.join(self.dir, what)) if what else repr(src)
            p = self.run_python(f"""
                import parmc, numpy as np
                p = parmc.compile({arg}, target="c")
                assert p.name == {repr(what[0] if what else "prog")}, p.name
                assert (p.main(np.arange(16, dtype=np.int32)[::-1].copy()) == np.arange(16)).all()
            """, cache, check=False)
            self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(self.compiles()), 3)

    def test_argument_errors(self):
        """compile's own bad arguments are parmc's exceptions naming the argument, before
        parmc runs (a flags=3 was Python's "'int' object is not iterable", a None among the
        flags subprocess's TypeError, a bad target a plain ValueError); one path or flag
        string is taken as a sequence of one, as before."""
        src = "entry main (xs : [2^2]i32) = map (\\x -> x * 3) xs\n"
        bad = ((parmc.ArgumentValueError, dict(target="opencl"), "argument 'target' must be 'cuda' or 'c', got 'opencl'"),
               (parmc.ArgumentValueError, dict(prefix="1x"), "argument 'prefix' must be a C identifier, got '1x'"),
               (parmc.ArgumentTypeError, dict(flags=3), "argument 'flags': expected a string or a sequence of strings, "
                "got int"),
               (parmc.ArgumentTypeError, dict(flags=["-O1", None]), "argument 'flags': expected a string or a sequence "
                "of strings, got a list holding NoneType"),
               (parmc.ArgumentTypeError, dict(include=None), "argument 'include': expected a path or a sequence of "
                "paths, got NoneType"),
               (parmc.ArgumentTypeError, dict(include=[self.dir, 3]), "argument 'include': expected a path or a "
                "sequence of paths, got a list holding int"))
        for exc, kw, text in bad:
            with self.assertRaises(exc) as e:
                parmc.compile(src, **dict(dict(target="c", cache_dir=self.dir), **kw))
            self.assertIn("parmc.compile: " + text, str(e.exception))
        with mock.patch.dict(os.environ, PARMC_TARGET="cpu"):
            # the bad target is the environment's, which the message names (it said argument 'target')
            with self.assertRaises(parmc.ArgumentValueError) as e:
                parmc.compile(src, cache_dir=self.dir)
            self.assertIn("parmc.compile: $PARMC_TARGET (target=None takes it) must be 'cuda' or 'c', got 'cpu'",
                          str(e.exception))
            with self.assertRaises(parmc.ArgumentValueError) as e:
                parmc.compile(src, target="gpu", cache_dir=self.dir)
            self.assertIn("argument 'target' must be 'cuda' or 'c', got 'gpu'", str(e.exception))
        # a program that cannot be read raises OSError's own class (a directory was a FileNotFoundError)
        os.mkdir(os.path.join(self.dir, "d.parm"))
        with self.assertRaises(IsADirectoryError) as e:
            parmc.compile(os.path.join(self.dir, "d.parm"), target="c", cache_dir=self.dir)
        self.assertIn("cannot read the parm program", str(e.exception))
        os.rmdir(os.path.join(self.dir, "d.parm"))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.compile(b"x.parm", target="c")
        self.assertIn("parmc.compile: argument 'source': expected a path or source text, got bytes", str(e.exception))
        self.assertEqual(os.listdir(self.dir), ["parmc"])     # nothing built into cache_dir
        for kw in (dict(include=self.dir), dict(include=(self.dir, pathlib.Path(self.dir))), dict(flags=("-O1",))):
            prog = parmc.compile(src, target="c", cache_dir=os.path.join(self.dir, "cache"), **kw)
            self.assertEqual(prog.main(np.arange(4, dtype=np.int32)).tolist(), [0, 3, 6, 9])


class Targets(unittest.TestCase):
    """The target chosen, the prefix, and the CUDA build where nvcc is (loaded, not run: no
    GPU is needed until a call)."""

    def test_auto_target(self):
        env = dict(os.environ)
        try:
            os.environ["PARMC_TARGET"] = "c"
            self.assertEqual(parmc.auto_target(), "c")
            del os.environ["PARMC_TARGET"]
            os.environ["NVCC"] = "/no/such/nvcc"
            os.environ["PATH"] = "/nonexistent"       # no nvidia-smi either
            if "torch" not in sys.modules and "cupy" not in sys.modules:
                self.assertEqual(parmc.auto_target(), "c")
        finally:
            os.environ.clear()
            os.environ.update(env)

    def test_find_parmc(self):
        """$PARMC first, then the parmc that pip built into the package (parmc/_bin), then PATH."""
        from parmc import _build
        env, bundled = dict(os.environ), _build.BUNDLED
        d = tempfile.mkdtemp()
        try:
            on_path, in_package = os.path.join(d, "parmc"), os.path.join(d, "_bin", "parmc")
            for exe in (on_path, in_package):
                os.makedirs(os.path.dirname(exe), exist_ok=True)
                with open(exe, "w") as f:
                    f.write("#!/bin/sh\n")
                os.chmod(exe, 0o755)
            _build.BUNDLED = in_package
            os.environ["PATH"] = d
            self.assertEqual(parmc.find_parmc(), PARMC)
            del os.environ["PARMC"]
            self.assertEqual(parmc.find_parmc(), in_package)
            _build.BUNDLED = os.path.join(d, "none", "parmc")
            self.assertEqual(parmc.find_parmc(), on_path)
        finally:
            _build.BUNDLED = bundled
            os.environ.clear()
            os.environ.update(env)
            shutil.rmtree(d)

    def test_prefix(self):
        prog = parmc.compile(example("permute.parm"), target="c", prefix="perm10")
        self.assertEqual((prog.name, prog.manifest.prefix), ("perm10", "perm10"))
        self.assertEqual(prog.rev.entry.symbol, "perm10_rev")
        xs = np.arange(1024, dtype=np.int32)
        np.testing.assert_array_equal(prog.rev(xs), xs[::-1])
        with self.assertRaises(ValueError):
            parmc.compile(example("permute.parm"), target="c", prefix="no-dash")

    def test_cuda_library(self):
        if not shutil.which("nvcc"):
            self.skipTest("nvcc is not installed")
        prog = parmc.compile("entry main (xs : [2^4]i32) = map (\\x -> x + 1) xs\n", target="cuda", arch="sm_90")
        self.assertEqual(prog.target, "cuda")
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            prog.main(np.zeros(16, np.int32))
        self.assertIn("expected a torch CUDA tensor or a CuPy array (target cuda), got numpy.ndarray", str(e.exception))


class Overhead(unittest.TestCase):
    """The cost of a call through the package over calling the C function through ctypes
    (bench/python_overhead.py prints it; the bound here is loose for a loaded CI machine)."""

    def test_overhead(self):
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import python_overhead
        us, raw = python_overhead.measure(calls=10000)
        self.assertLess(us - raw, 200.0, f"{us:.1f} us a call, {raw:.1f} us through ctypes alone")


if __name__ == "__main__":
    unittest.main()
