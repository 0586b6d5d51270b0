"""The parmc Python package on a GPU (tests/gpu/python.sh runs it): PyTorch tensors against
torch.sort, the caller's stream, the checks of device arrays, torch.compile; CuPy arrays
against cupy.sort when CuPy is installed (skipped with the reason when it is not)."""
import os
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import parmc  # noqa: E402

os.environ.setdefault("PARMC", os.path.join(ROOT, "build", "parmc"))

try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
    WHY_NO_TORCH = "PyTorch sees no CUDA device"
except ImportError:
    HAVE_TORCH, WHY_NO_TORCH = False, "PyTorch is not installed"
try:
    import cupy
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
    WHY_NO_CUPY = "CuPy sees no CUDA device"
except ImportError:
    HAVE_CUPY, WHY_NO_CUPY = False, "CuPy is not installed (pip install cupy-cuda12x to run these)"
except Exception as e:  # a CuPy that cannot reach the driver
    HAVE_CUPY, WHY_NO_CUPY = False, f"CuPy cannot start: {e}"


def example(name):
    return os.path.join(ROOT, "examples", name)


def batched_source(rows_log, length_log):
    """examples/batched.parm sorting 2^rows_log rows of 2^length_log keys."""
    with open(example("batched.parm")) as f:
        lines = [line for line in f if not line.startswith("entry ")]
    lines.append(f"entry main (xs : [2^{rows_log + length_log}]i32) = rows {rows_log} (bsort {length_log}) xs\n")
    return "".join(lines)


def any_rows_source(rows_log, length_log):
    """examples/batched_any.parm taking up to 2^rows_log rows of up to 2^length_log keys."""
    with open(example("batched_any.parm")) as f:
        lines = [line for line in f if not line.startswith("entry ")]
    lines.append(f"entry main (xs : [2^{rows_log}][2^{length_log}]i32 pad max) = rows {rows_log} (bsort {length_log}) xs\n")
    return "".join(lines)


@unittest.skipUnless(HAVE_TORCH, WHY_NO_TORCH)
class Torch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.batched = parmc.compile(batched_source(10, 10), target="cuda")     # 2^10 rows of 2^10
        cls.kv = parmc.compile(example("kvsort.parm"), target="cuda")
        cls.gen = torch.Generator(device="cuda").manual_seed(1)

    def keys(self, *shape):
        return torch.randint(-2**31, 2**31 - 1, shape, dtype=torch.int32, device="cuda", generator=self.gen)

    def test_rows_against_torch_sort(self):
        xs = self.keys(1024, 1024)
        out = self.batched.main(xs)
        self.assertEqual((out.shape, out.dtype, out.device), (xs.shape, torch.int32, xs.device))
        torch.testing.assert_close(out, torch.sort(xs, dim=-1).values, rtol=0, atol=0)

    def test_rows_of_any_length(self):
        prog = parmc.compile(any_rows_source(10, 10), target="cuda")
        for shape in ((1000, 1000), (1024, 1024), (3, 7), (1, 1), (1024, 1)):
            xs = self.keys(*shape)
            out = prog.main(xs)
            self.assertEqual(out.shape, xs.shape)
            torch.testing.assert_close(out, torch.sort(xs, dim=-1).values, rtol=0, atol=0)
        with self.assertRaises(parmc.ArgumentValueError) as e:
            prog.main(self.keys(1025, 3))
        self.assertIn("has 1025 rows of 3; the entry accepts up to 1024 rows of up to 1024", str(e.exception))

    def test_key_value(self):
        keys = torch.randint(0, 100, (4096,), dtype=torch.int64, device="cuda", generator=self.gen)
        vals = torch.arange(4096, dtype=torch.int32, device="cuda")
        k, v = self.kv.main((keys.to(torch.uint32), vals))
        self.assertEqual(k.dtype, torch.uint32)
        k = k.to(torch.int64)
        torch.testing.assert_close(k, torch.sort(keys).values, rtol=0, atol=0)
        torch.testing.assert_close(keys[v.long()], k, rtol=0, atol=0)

    def test_current_stream(self):
        """The call runs on torch's current stream: an input written on a side stream after a
        long sleep there is read only once written."""
        src = self.keys(1024, 1024)
        ref = torch.sort(src, dim=-1).values
        side = torch.cuda.Stream()
        torch.cuda.synchronize()
        for _ in range(3):
            with torch.cuda.stream(side):
                xs = torch.empty_like(src)
                torch.cuda._sleep(100_000_000)     # some 50 ms of spinning before xs is written
                xs.copy_(src)
                out = self.batched.main(xs)
                check = out.clone()             # also ordered after the call on the side stream
            side.synchronize()
            torch.testing.assert_close(check, ref, rtol=0, atol=0)

    def test_default_stream(self):
        """On torch's default stream (handle 0, passed as cudaStreamLegacy): ordered with it."""
        src = self.keys(1024, 1024)
        ref = torch.sort(src, dim=-1).values
        xs = torch.empty_like(src)
        torch.cuda.synchronize()
        torch.cuda._sleep(100_000_000)
        xs.copy_(src)
        torch.testing.assert_close(self.batched.main(xs), ref, rtol=0, atol=0)

    def test_stream_argument(self):
        src = self.keys(1024, 1024)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        out = self.batched.main(src, stream=s)
        s.synchronize()
        torch.testing.assert_close(out, torch.sort(src, dim=-1).values, rtol=0, atol=0)
        out = self.batched.main(src, stream=s.cuda_stream)     # a raw handle
        s.synchronize()
        torch.testing.assert_close(out, torch.sort(src, dim=-1).values, rtol=0, atol=0)
        with self.assertRaises(parmc.ArgumentTypeError):
            self.batched.main(src, stream="fast")

    @unittest.skipUnless(HAVE_TORCH and torch.cuda.device_count() > 1, "one GPU: no stream of another device")
    def test_other_device(self):
        with self.assertRaises(parmc.ArgumentValueError) as e:
            with torch.cuda.device(1):
                s1 = torch.cuda.Stream()
            self.batched.main(self.keys(1024, 1024), stream=s1)
        self.assertIn("the stream is on cuda:1, the arrays on cuda:0", str(e.exception))
        xs = self.keys(1024, 1024).to("cuda:1")            # arrays on a device that is not current
        torch.testing.assert_close(self.batched.main(xs), torch.sort(xs, dim=-1).values, rtol=0, atol=0)
        with self.assertRaises(parmc.ArgumentValueError) as e:
            self.kv.main((torch.zeros(4096, dtype=torch.uint32, device="cuda:0"),
                          torch.zeros(4096, dtype=torch.int32, device="cuda:1")))
        self.assertIn("on cuda:1, other arrays on cuda:0", str(e.exception))

    def test_errors(self):
        xs = self.keys(1024, 1024)
        cases = [((xs.cpu(),), parmc.ArgumentValueError, "the tensor is on cpu; this program was compiled for CUDA"),
                 ((xs.float(),), parmc.ArgumentTypeError, "expected dtype torch.int32, got torch.float32"),
                 ((xs.t(),), parmc.ArgumentValueError, "not contiguous"),
                 ((xs[:1000],), parmc.ArgumentValueError, "has length 1024000; the entry accepts 1048576"),
                 ((xs.cpu().numpy(),), parmc.ArgumentTypeError, "expected a torch CUDA tensor or a CuPy array"),
                 ((xs, 1), parmc.ArgumentTypeError, "takes 1 argument")]
        before = xs.clone()
        for args, exc, text in cases:
            with self.assertRaises(exc) as e:
                self.batched.main(*args)
            self.assertIn(text, str(e.exception))
            self.assertIn("parameter 'xs'" if len(args) == 1 else "main()", str(e.exception))
        torch.testing.assert_close(xs, before, rtol=0, atol=0)

    def test_custom_op(self):
        xs = self.keys(1024, 1024)
        torch.testing.assert_close(self.batched.main.op(xs), torch.sort(xs, dim=-1).values, rtol=0, atol=0)

    def test_torch_compile(self):
        xs = self.keys(1024, 1024)
        f = torch.compile(lambda x: self.batched.main(x) + 1, fullgraph=True)
        torch.testing.assert_close(f(xs), torch.sort(xs, dim=-1).values + 1, rtol=0, atol=0)
        k = torch.randint(0, 100, (4096,), dtype=torch.int32, device="cuda", generator=self.gen)
        g = torch.compile(lambda a, b: self.kv.main((a, b))[1] * 2, fullgraph=True)
        out = g(k.to(torch.uint32), torch.arange(4096, dtype=torch.int32, device="cuda"))
        torch.testing.assert_close(k.long()[out.long() // 2], torch.sort(k.long()).values, rtol=0, atol=0)

    def test_overhead(self):
        import python_overhead
        us, raw = python_overhead.measure(calls=10000, target="cuda")
        print(f"\n    torch on the GPU: {us:.2f} us a call through parmc, {raw:.2f} us through ctypes alone",
              file=sys.stderr)
        self.assertLess(us - raw, 20.0)


@unittest.skipUnless(HAVE_CUPY, WHY_NO_CUPY)
class Cupy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.batched = parmc.compile(batched_source(10, 10), target="cuda")
        cls.perm = parmc.compile(example("permute.parm"), target="cuda")

    def test_sort_against_cupy(self):
        xs = cupy.random.randint(-2**31, 2**31 - 1, (1024, 1024), dtype=cupy.int32)
        out = self.batched.main(xs)
        self.assertIsInstance(out, cupy.ndarray)
        cupy.testing.assert_array_equal(out, cupy.sort(xs, axis=-1))

    def test_permutations(self):
        xs = cupy.arange(1024, dtype=cupy.int32)
        i = cupy.arange(1024)
        rev = sum(((i >> b) & 1) << (9 - b) for b in range(10))
        cupy.testing.assert_array_equal(self.perm.main(xs), xs[rev])
        cupy.testing.assert_array_equal(self.perm.rev(xs), xs[::-1])

    def test_current_stream(self):
        src = cupy.random.randint(-1000, 1000, (1024, 1024), dtype=cupy.int32)
        ref = cupy.sort(src, axis=-1)
        s = cupy.cuda.Stream(non_blocking=True)
        cupy.cuda.runtime.deviceSynchronize()
        with s:
            xs = cupy.empty_like(src)
            xs[...] = src
            out = self.batched.main(xs)
            check = out.copy()
        s.synchronize()
        cupy.testing.assert_array_equal(check, ref)

    def test_errors(self):
        xs = cupy.zeros((1024, 1024), cupy.int32)
        for args, exc, text in (((xs.astype(cupy.int64),), TypeError, "expected dtype int32, got int64"),
                                ((xs.T,), ValueError, "not contiguous"),
                                ((xs[:5],), ValueError, "the entry accepts 1048576")):
            with self.assertRaises(exc) as e:
                self.batched.main(*args)
            self.assertIn("parameter 'xs'", str(e.exception))
            self.assertIn(text, str(e.exception))


if __name__ == "__main__":
    unittest.main()
