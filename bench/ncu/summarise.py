#!/usr/bin/env python3
"""bench/ncu/summarise.py: one line per kernel from `ncu --csv --page raw`
(bench/ncu/where_time_goes.sh's metrics): time, DRAM and SM throughput,
shared-memory pipe, occupancy, and the largest warp stall reasons."""
import csv
import sys

STALLS = {
    "long_scoreboard": "global wait",
    "barrier": "barrier",
    "mio_throttle": "shared queue",
    "short_scoreboard": "shared wait",
    "lg_throttle": "global queue",
    "drain": "drain",
}


def metric(row, name):
    value = row.get(name, "").replace(",", "")
    try:
        return float(value)
    except ValueError:
        return float("nan")


def stall_text(row):
    stalls = []
    for key, label in STALLS.items():
        name = "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % key
        stalls.append((metric(row, name), label))
    stalls.sort(reverse=True)
    return ", ".join("%s %.1f" % (label, v) for v, label in stalls[:3])


def main(path):
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    rows = list(csv.DictReader(lines))
    if rows and not rows[0].get("ID", "").isdigit():
        rows = rows[1:]  # the units row
    for row in rows:
        ns = metric(row, "gpu__time_duration.sum")
        moved = metric(row, "dram__bytes_read.sum") + metric(row, "dram__bytes_write.sum")
        print("%-40.40s %9.1f us  dram %5.1f%% (%6.1f MB)  sm %5.1f%%  shared pipe %5.1f%%  occupancy %5.1f%%  thread instructions %.3gG  regs %3.0f  grid %s x %s  stalls/issue: %s" % (
            row.get("Kernel Name", "?"), ns / 1000.0,
            metric(row, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), moved / 1e6,
            metric(row, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            metric(row, "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"),
            metric(row, "sm__warps_active.avg.pct_of_peak_sustained_active"),
            metric(row, "smsp__inst_executed.sum") * 32 / 1e9,
            metric(row, "launch__registers_per_thread"),
            row.get("launch__grid_size", "?"), row.get("launch__block_size", "?"),
            stall_text(row)))


if __name__ == "__main__":
    main(sys.argv[1])
