"""parmc.topk against jax.lax.top_k on JAX's GPU backend, both under jax.jit (tests/gpu/jax.sh).
Each shape is checked first (values equal, and indices equal, on random float32 rows where
ties are rare), then timed: 20 calls queued back to back and waited for once, the time per
call the median of 7 such runs (XLA's own dispatch included, as a JAX user sees it)."""
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

import parmc

SHAPES = [(4096, 16384, 8), (1024, 50257, 8), (128, 128256, 64), (65536, 256, 8)]


def per_call(f, x, calls=20, runs=7):
    f(x)[0].block_until_ready()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            out = f(x)
        out[0].block_until_ready()
        times.append((time.perf_counter() - t) / calls * 1e3)
    return statistics.median(times)


def main():
    print("| rows × row, k | parmc.topk ms | jax.lax.top_k ms | jax / parmc | checked |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(5)
    for rows, n, k in SHAPES:
        x = jnp.asarray(rng.standard_normal((rows, n), dtype=np.float32))
        ours = jax.jit(lambda a, k=k: tuple(parmc.topk(a, k)))
        theirs = jax.jit(lambda a, k=k: jax.lax.top_k(a, k))
        (v, i), (tv, ti) = ours(x), theirs(x)
        same = bool((v == tv).all()) and bool((i == ti).all())
        a, b = per_call(ours, x), per_call(theirs, x)
        print(f"| {rows} × {n}, {k} | {a:.4f} | {b:.4f} | {b / a:.2f} | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
