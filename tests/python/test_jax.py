"""Entries and the drop-ins on JAX arrays through XLA's FFI (python/parmc/_jax.py), the C
target on JAX's CPU backend (tests/sections/80-python.sh), or with PARMC_TEST_TARGET=cuda the
CUDA target on JAX's GPU backend (tests/gpu/jax.sh): eagerly, under jax.jit and
jax.vmap, against NumPy and JAX's own sort and top-k; scalars as static attributes, tuple
fields, several results, lengths that are not powers of two; indices int32 as JAX gives them
without jax_enable_x64 and int64 with it; and the errors. Skipped where jax is missing."""
import os
import subprocess
import sys
import unittest

import numpy as np

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None

from common import ROOT, setUpModule, tearDownModule  # noqa: F401 (the module fixtures)
import parmc  # noqa: E402

TARGET = os.environ.get("PARMC_TEST_TARGET", "c")
rng = np.random.default_rng(44)


def backend(name):
    return os.path.join(ROOT, "tests", "backend", name)


@unittest.skipIf(jax is None, "jax is not installed")
class Entries(unittest.TestCase):
    """Compiled entries called on JAX arrays."""

    @classmethod
    def setUpClass(cls):
        cls.sort = parmc.compile(os.path.join(ROOT, "examples", "sort.parm"), target=TARGET)
        cls.kv = parmc.compile(os.path.join(ROOT, "examples", "kvsort.parm"), target=TARGET)
        cls.scalars = parmc.compile(backend("scalar_params.parm"), target=TARGET)

    def test_eager_and_jit(self):
        xs = rng.integers(-2**31, 2**31, 1 << 20, dtype=np.int32)
        out = self.sort.main(jnp.asarray(xs))
        self.assertIsInstance(out, jax.Array)
        np.testing.assert_array_equal(np.asarray(out), np.sort(xs))
        twice = jax.jit(lambda a: self.sort.main(a) * 2)
        np.testing.assert_array_equal(np.asarray(twice(jnp.asarray(xs))), np.sort(xs) * 2)

    def test_any_length(self):
        prog = parmc.compile('import "sort"\nentry main (xs : [2^10]i32 pad max) = bitonic_sort asc 10 xs\n'
                             'entry rows (xs : [2^4][2^6]i32 pad max) = rows 4 (bitonic_sort asc 6) xs\n', target=TARGET)
        for n in (1000, 3, 1):
            xs = rng.integers(-1000, 1000, n, dtype=np.int32)
            np.testing.assert_array_equal(np.asarray(jax.jit(prog.main)(jnp.asarray(xs))), np.sort(xs))
        xs = rng.integers(-1000, 1000, (5, 40), dtype=np.int32)
        np.testing.assert_array_equal(np.asarray(prog.rows(jnp.asarray(xs))), np.sort(xs, axis=-1))

    def test_segments(self):
        """An entry with segments: its result of the padded length written in the segments and
        zeros elsewhere (the zeros an input that XLA gives the call as the result's buffer),
        eagerly and under jit; a cut result all the rows of k."""
        prog = parmc.compile('import "sort"\nimport "topk"\n'
                             'entry seg (xs : [2^2][2^3]i32 pad max, segments st ln) (st : [2^2]i32) (ln : [2^2]i32) '
                             '= bitonic_sort_rows asc 2 3 xs\n'
                             'entry top3 (xs : [2^2][2^3]i32 pad min, segments st ln) (st : [2^2]i32) '
                             '(ln : [2^2]i32) : [3] = (topk_rows desc 2 2 xs, xs)\n', target=TARGET)
        xs = rng.integers(-99, 99, 30, dtype=np.int32)
        st, ln = np.array([20, 0, 9, 30], np.int32), np.array([8, 5, 3, 0], np.int32)
        want = np.zeros(30, np.int32)
        for s, n in zip(st, ln):
            want[s:s + n] = np.sort(xs[s:s + n])
        for f in (prog.seg, jax.jit(prog.seg)):
            np.testing.assert_array_equal(np.asarray(f(jnp.asarray(xs), jnp.asarray(st), jnp.asarray(ln))), want)
        top, same = jax.jit(prog.top3)(jnp.asarray(xs), jnp.asarray(st), jnp.asarray(ln))
        self.assertEqual((top.shape, same.shape), ((4, 3), (30,)))
        least = np.iinfo(np.int32).min
        np.testing.assert_array_equal(np.asarray(top), [np.concatenate([-np.sort(-xs[s:s + n]), [least] * 3])[:3]
                                                        for s, n in zip(st, ln)])
        inside = np.zeros(30, bool)
        for s, n in zip(st, ln):
            inside[s:s + n] = True
        np.testing.assert_array_equal(np.asarray(same), np.where(inside, xs, 0))

    def test_result_row_length(self):
        """A result row length: (k,) for a one-dimensional entry whatever the argument's shape,
        the argument's rows of k for an entry over rows (as NumPy's calls, test_numpy)."""
        prog = parmc.compile('import "topk"\nentry first3 (xs : [2^3]i32 pad 0) : [3] = half 4 0 xs\n'
                             'entry top3 (xs : [2^4][2^6]i32 pad min) : [3] = topk_rows desc 4 2 xs\n', target=TARGET)
        xs = np.arange(1, 9, dtype=np.int32).reshape(2, 4)
        for f in (prog.first3, jax.jit(prog.first3)):
            got = f(jnp.asarray(xs))
            self.assertEqual(got.shape, (3,))
            np.testing.assert_array_equal(np.asarray(got), [1, 2, 3])
        xs = rng.integers(-1000, 1000, (2, 3, 40), dtype=np.int32)
        got = jax.jit(prog.top3)(jnp.asarray(xs))
        self.assertEqual(got.shape, (2, 3, 3))
        np.testing.assert_array_equal(np.asarray(got), -np.sort(-xs, axis=-1)[..., :3])

    def test_vmap(self):
        prog = parmc.compile('import "sort"\nentry main (xs : [2^8]i32) = bitonic_sort asc 8 xs\n', target=TARGET)
        rows = rng.integers(-1000, 1000, (3, 256), dtype=np.int32)
        out = jax.vmap(prog.main)(jnp.asarray(rows))
        np.testing.assert_array_equal(np.asarray(out), np.sort(rows, axis=-1))

    def test_tuple_fields(self):
        keys = rng.integers(0, 50, 4096, dtype=np.uint32)
        vals = np.arange(4096, dtype=np.int32)
        k, v = self.kv.main((jnp.asarray(keys), jnp.asarray(vals)))
        k, v = np.asarray(k), np.asarray(v)
        np.testing.assert_array_equal(k, np.sort(keys))
        np.testing.assert_array_equal(keys[v], k)

    def test_static_scalars(self):
        p = self.scalars
        xs = rng.integers(-1000, 1000, 256, dtype=np.int32)
        np.testing.assert_array_equal(np.asarray(p.main(3, jnp.asarray(xs))), xs * 3 + 1)
        fs = rng.standard_normal(64).astype(np.float32)
        scaled = jax.jit(lambda a: p.after(a, 2.5, True))
        np.testing.assert_array_equal(np.asarray(scaled(jnp.asarray(fs))), (0 - fs * np.float32(2.5)).astype(np.float32))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            jax.jit(lambda a, s: p.main(s, a))(jnp.asarray(xs), jnp.int32(3))
        self.assertIn("under JAX a scalar parameter is static", str(e.exception))
        if not jax.config.jax_enable_x64:     # an int64 result would be an int32 buffer: refused
            with self.assertRaises(parmc.ArgumentTypeError) as e:
                p.widen(jnp.zeros(128, jnp.int16), 2**40)
            self.assertIn("a result of dtype int64 needs jax_enable_x64", str(e.exception))

    def test_several_results(self):
        g = parmc.compile(backend("graph.parm"), target=TARGET)
        keys = rng.integers(-50, 50, 512).astype(np.int32)
        vals = rng.standard_normal(512).astype(np.float32)
        k, v = jax.jit(g.kv)(jnp.asarray(keys), jnp.asarray(vals))
        np.testing.assert_array_equal(np.asarray(k), np.sort(keys))
        self.assertEqual(sorted(zip(np.asarray(k).tolist(), np.asarray(v).tolist())),
                         sorted(zip(keys.tolist(), vals.tolist())))

    def test_errors(self):
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            self.sort.main(jnp.zeros(16, jnp.float32))
        self.assertIn("expected dtype int32, got float32", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.sort.main(jnp.zeros((1 << 20) + 1, jnp.int32))
        self.assertIn("has length 1048577", str(e.exception))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            self.kv.main((jnp.zeros(16, jnp.uint32), np.zeros(16, np.int32)))
        self.assertIn("among JAX arrays", str(e.exception))
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.sort.main(jnp.zeros(1 << 20, jnp.int32), n=1 << 10)
        self.assertIn("n=1024, but parameter 'xs' has length 1048576", str(e.exception))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            self.sort.main(jnp.zeros(16, jnp.int32), stream=0)
        self.assertIn("stream= is not for JAX arrays", str(e.exception))


@unittest.skipIf(jax is None, "jax is not installed")
class DropIns(unittest.TestCase):
    """parmc.sort, argsort and topk on JAX arrays against jnp.sort, jnp.argsort (stable) and
    jax.lax.top_k."""

    def test_topk(self):
        for shape, k in (((8, 1000), 5), ((4, 64), 64), ((1 << 10,), 7)):
            x = jnp.asarray(rng.standard_normal(shape).astype(np.float32))
            v, i = parmc.topk(x, k)
            tv, ti = jax.lax.top_k(x, k)
            self.assertEqual((v.dtype, i.dtype), (jnp.float32, jnp.int32))
            np.testing.assert_array_equal(np.asarray(v), np.asarray(tv))
            np.testing.assert_array_equal(np.asarray(i), np.asarray(ti))

    def test_topk_under_jit(self):
        x = jnp.asarray(rng.integers(-9, 9, (16, 300), dtype=np.int32))
        v, i = jax.jit(lambda a: parmc.topk(a, 10, largest=False))(x)
        ref = np.argsort(np.asarray(x), axis=-1, kind="stable")[:, :10]
        np.testing.assert_array_equal(np.asarray(i), ref)
        np.testing.assert_array_equal(np.asarray(v), np.take_along_axis(np.asarray(x), ref, -1))

    def test_sort_every_dim(self):
        x = jnp.asarray(rng.standard_normal((6, 20, 8)).astype(np.float32))
        for d in (0, 1, 2, -1):
            s = parmc.sort(x, dim=d, descending=d == 1)
            ref = jnp.sort(x, axis=d, descending=d == 1, stable=True)
            np.testing.assert_array_equal(np.asarray(s.values), np.asarray(ref))
            idx = jnp.argsort(x, axis=d, descending=d == 1, stable=True)
            np.testing.assert_array_equal(np.asarray(s.indices), np.asarray(idx))

    def test_argsort_and_bfloat16(self):
        x = jnp.asarray(rng.standard_normal((5, 77)).astype(np.float32)).astype(jnp.bfloat16)
        f = jax.jit(lambda a: parmc.argsort(a, descending=True))
        np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(jnp.argsort(x, axis=-1, descending=True,
                                                                                stable=True)))
        np.testing.assert_array_equal(np.asarray(parmc.sort(x).values), np.asarray(jnp.sort(x)))

    def test_traced_arguments(self):
        """Under jax.jit the int and bool arguments must be static: a traced one (a jit argument)
        is parmc's ArgumentTypeError naming it, k and dim as descending, largest and stable,
        for the segmented drop-ins too (a traced array of ks: the result's shape would depend
        on it); static ones, and a concrete JAX scalar eagerly, are taken."""
        x = jnp.asarray(rng.standard_normal((2, 8)).astype(np.float32))
        offsets = jnp.asarray(np.array([0, 3, 16], np.int32))
        flag, two = jnp.bool_(True), jnp.int32(2)
        calls = [("k", "an integer", "int", lambda a, v: parmc.topk(a, v), two),
                 ("dim", "an integer", "int", lambda a, v: parmc.sort(a, dim=v), jnp.int32(0)),
                 ("largest", "a bool", "bool", lambda a, v: parmc.topk(a, 2, largest=v), flag),
                 ("sorted", "a bool", "bool", lambda a, v: parmc.topk(a, 2, sorted=v), flag),
                 ("descending", "a bool", "bool", lambda a, v: parmc.sort(a, descending=v), flag),
                 ("descending", "a bool", "bool", lambda a, v: parmc.argsort(a, descending=v), flag),
                 ("stable", "a bool", "bool", lambda a, v: parmc.sort(a, stable=v), flag),
                 ("descending", "a bool", "bool", lambda a, v: parmc.segmented_sort(a.ravel(), offsets, v), flag),
                 ("largest", "a bool", "bool", lambda a, v: parmc.segmented_topk(a.ravel(), offsets, 2, v), flag),
                 ("max_length", "an integer", "int",
                  lambda a, v: parmc.segmented_topk(a.ravel(), offsets, 2, max_length=v), jnp.int32(13))]
        for name, kind, static, f, value in calls:
            with self.assertRaises(parmc.ArgumentTypeError, msg=name) as e:
                jax.jit(f)(x, value)
            self.assertIn(f": argument '{name}': expected {kind}, got a traced JAX value", str(e.exception))
            self.assertIn(f"under jax.jit it must be static, a Python or NumPy {static}", str(e.exception))
            f(x, value)                                       # eagerly, a concrete value is taken
            jax.jit(f, static_argnums=1)(x, bool(value) if static == "bool" else int(value))
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            jax.jit(lambda a, k: parmc.segmented_topk(a.ravel(), offsets, k))(x, jnp.asarray([1, 2]))
        self.assertIn("argument 'k': a traced JAX array of one k per segment (under jax.jit)", str(e.exception))
        ks = jnp.asarray([1, 2])
        top = jax.jit(lambda a: parmc.segmented_topk(a.ravel(), offsets, ks))(x)
        self.assertEqual(top.values.shape, (2, 2))

    def test_out_refused(self):
        x = jnp.zeros((2, 4), jnp.float32)
        with self.assertRaises(parmc.ArgumentTypeError) as e:
            parmc.topk(x, 2, out=(jnp.zeros((2, 2)), jnp.zeros((2, 2), jnp.int32)))
        self.assertIn("out= is not for JAX arrays", str(e.exception))

    def test_int64_indices_with_x64(self):
        """With jax_enable_x64 (set before anything else, in a process of its own) the indices
        are int64, as the programs write them."""
        code = ("import jax; jax.config.update('jax_enable_x64', True)\n"
                "import jax.numpy as jnp, numpy as np, parmc\n"
                "x = jnp.asarray(np.arange(40, 0, -1, dtype=np.int64).reshape(2, 20))\n"
                "v, i = parmc.topk(x, 3)\n"
                "print(v.dtype, i.dtype, np.asarray(i).tolist(), np.asarray(parmc.argsort(x)[0, :3]).tolist())\n"
                f"p = parmc.compile({backend('scalar_params.parm')!r}, target={TARGET!r})\n"
                "print(np.asarray(p.widen(jnp.arange(128, dtype=jnp.int16), 2**40))[:2].tolist())\n")
        env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertEqual(out.stdout.strip(), "int64 int64 [[0, 1, 2], [0, 1, 2]] [19, 18, 17]\n"
                                             "[1099511627776, 1099511627777]")


if __name__ == "__main__":
    unittest.main()
