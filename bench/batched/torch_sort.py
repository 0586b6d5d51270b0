# torch_sort.py: torch.sort(x, dim=-1) on 2^16 rows of 2^10 int32, CUDA events,
# three rounds of the median of 25 (the snippet of tests/gpu/run.sh).
import torch
x = torch.randint(-2**31, 2**31 - 1, (1 << 16, 1 << 10), dtype=torch.int32, device="cuda")
for _ in range(3):
    torch.sort(x, dim=-1)
res = []
for r in range(3):
    times = []
    for _ in range(25):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); torch.sort(x, dim=-1); b.record(); b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    res.append(times[12])
print("| torch.sort(dim=-1), 2^16 x 2^10 int32 (values and indices), medians of 3 rounds | %s |" % " ".join("%.4f" % t for t in res))
