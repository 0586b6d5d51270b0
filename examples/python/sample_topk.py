#!/usr/bin/env python3
"""Top-k sampling for a batch of language-model logits on the GPU, with parmc.topk in place of
torch.topk: softmax over the vocabulary, the k most likely tokens, their probabilities
renormalised, one token drawn per row. Compared with the same pipeline on torch.topk (the
same probabilities, the same tokens for the same random draws) and both timed with CUDA events
on PyTorch's current stream. Needs PyTorch and a GPU.

    python3 examples/python/sample_topk.py [--batch 64] [--vocab 131072] [--k 64] [--runs 20]"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import parmc  # noqa: E402


def sample(torch, topk, logits, k, uniform):
    """One token per row: softmax, the top k, renormalised, then drawn by inverse CDF with the
    given uniform numbers (one per row), so that two pipelines can be compared draw for draw."""
    probs = torch.softmax(logits, dim=-1)
    top, idx = topk(probs, k)
    top = top / top.sum(dim=-1, keepdim=True)
    pick = torch.searchsorted(top.cumsum(dim=-1), uniform.unsqueeze(-1)).clamp_(max=k - 1)
    return idx.gather(-1, pick).squeeze(-1), top


def time_ms(torch, f, runs):
    """The median over runs of f's GPU time (CUDA events on the current stream), after a warm-up."""
    f()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=1 << 17)
    ap.add_argument("--k", type=int, default=64)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("sample_topk.py: needs torch (pip install torch)")
    gen = torch.Generator(device="cuda").manual_seed(0)
    logits = torch.randn(args.batch, args.vocab, device="cuda", generator=gen) * 3
    uniform = torch.rand(args.batch, device="cuda", generator=gen)

    ours = lambda: sample(torch, lambda p, k: parmc.topk(p, k), logits, args.k, uniform)           # noqa: E731
    theirs = lambda: sample(torch, lambda p, k: torch.topk(p, k), logits, args.k, uniform)       # noqa: E731
    tokens, probs = ours()          # the first call builds the program (nvcc), then it is cached
    want_tokens, want_probs = theirs()
    # the k probabilities are the same numbers; equal probabilities may be in another order
    # of indices, so tokens are compared where the draw falls between distinct values
    same_probs = torch.equal(probs, want_probs)
    same_tokens = (tokens == want_tokens).float().mean().item()
    print(f"{args.batch} rows of {args.vocab} logits, k = {args.k}: probabilities "
          f"{'equal' if same_probs else 'DIFFER'}, tokens equal in {same_tokens:.1%} of rows")
    a = time_ms(torch, ours, args.runs)
    b = time_ms(torch, theirs, args.runs)
    print(f"sampling with parmc.topk {a:.3f} ms, with torch.topk {b:.3f} ms (median of {args.runs}, "
          f"{torch.cuda.get_device_name()})")
    return 0 if same_probs else 1


if __name__ == "__main__":
    sys.exit(main())
