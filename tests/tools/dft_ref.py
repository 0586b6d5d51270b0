#!/usr/bin/env python3
"""Reference for stdlib/fft.parm: a direct O(n^2) DFT in double precision.

dft_ref.py gen COUNT SEED          COUNT random complex numbers (re im per line)
dft_ref.py check MODE LOGROW TOL IN OUT
    MODE fft: OUT is the forward DFT of each row of 2^LOGROW elements of IN
    (X[k] = sum_j x[j] exp(-2 pi i jk / N)); ifft: the inverse (exp(+...),
    scaled by 1/N); rfft: the forward DFT of the real parts; same: OUT is IN
    (a round trip). Passes when
    max |OUT - ref| / max |ref| <= TOL over each row; prints "ok" or why not.
    MODE conv: IN is two arrays of reals (xs, then hs), OUT is the cyclic
    convolution of each row of xs with the same row of hs, computed directly
    (out[k] = sum_j x[j] h[(k - j) mod N])."""
import cmath
import random
import sys


def read_complex(path):
    vals = [float(v) for v in open(path).read().split()]
    return [complex(vals[i], vals[i + 1]) for i in range(0, len(vals), 2)]


def dft(xs, sign):
    n = len(xs)
    w = [cmath.exp(sign * 2j * cmath.pi * k / n) for k in range(n)]
    return [sum(x * w[(j * k) % n] for j, x in enumerate(xs)) for k in range(n)]


def read_reals(path):
    return [float(v) for v in open(path).read().split()]


def check_conv(logrow, tol, inp, out):
    vals, ys = read_reals(inp), read_reals(out)
    half = len(vals) // 2
    xs, hs = vals[:half], vals[half:]
    if len(ys) != half:
        print("%d outputs for %d inputs" % (len(ys), half))
        return 1
    n = 1 << logrow
    for r in range(0, half, n):
        x, h = xs[r:r + n], hs[r:r + n]
        ref = [sum(x[j] * h[(k - j) % n] for j in range(n)) for k in range(n)]
        scale = max(abs(v) for v in ref) or 1.0
        err = max(abs(a - b) for a, b in zip(ref, ys[r:r + n])) / scale
        if not err <= tol:
            print("row %d: relative error %.3g > %g" % (r // n, err, tol))
            return 1
    print("ok")
    return 0


def reference(mode, row):
    if mode == "fft":
        return dft(row, -1)
    if mode == "rfft":
        return dft([complex(x.real, 0) for x in row], -1)
    if mode == "ifft":
        return [x / len(row) for x in dft(row, 1)]
    return row


def main():
    if sys.argv[1] == "gen":
        rng = random.Random(int(sys.argv[3]))
        for _ in range(int(sys.argv[2])):
            print("%.7f %.7f" % (rng.uniform(-1, 1), rng.uniform(-1, 1)))
        return 0
    mode, logrow, tol, inp, out = sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
    if mode == "conv":
        return check_conv(logrow, tol, inp, out)
    xs, ys = read_complex(inp), read_complex(out)
    if len(xs) != len(ys):
        print("%d outputs for %d inputs" % (len(ys), len(xs)))
        return 1
    n = 1 << logrow
    worst = 0.0
    for r in range(0, len(xs), n):
        ref = reference(mode, xs[r:r + n])
        scale = max(abs(v) for v in ref) or 1.0
        err = max(abs(a - b) for a, b in zip(ref, ys[r:r + n])) / scale
        if not err <= tol:
            print("row %d: relative error %.3g > %g" % (r // n, err, tol))
            return 1
        worst = max(worst, err)
    print("ok")
    return 0


sys.exit(main())
