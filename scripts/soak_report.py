"""The verdict of a soak (scripts/soak.sh), from what it left in OUT: the
bots' JSON report and the server's stats lines. Can be run again on a
finished soak's directory:

  python3 scripts/soak_report.py OUT WARMUP BOTS_STATUS SERVER_ALIVE SERVER_STATUS RELAY_ALIVE RELAY_STATUS

Memory growth is the slope of a least-squares line through every sample
after the warm-up, in MB per hour. Churn moves the server's memory up and
down with the crowd (tens of players come and go each minute), so the
first and last samples alone would judge where the crowd happened to be
at two moments; the slope over hundreds of samples is what a leak moves.
"""
import json
import sys

sys.path.insert(0, "scripts")
from run_checks import conclude  # noqa: E402


def slope_mb_per_hour(points):
    """Least-squares slope of (seconds, KiB) points, in MB per hour."""
    n = len(points)
    if n < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    cov = sum((t - mean_t) * (v - mean_v) for t, v in points)
    return cov / var * 3600.0 / 1024.0


def main(argv):
    out, warmup = argv[1], float(argv[2])
    bots_status, server_alive, server_status, relay_alive, relay_status = (int(x) for x in argv[3:8])
    s = json.load(open(f"{out}/bots.json"))["summary"]
    lines = [json.loads(l) for l in open(f"{out}/server_stats.jsonl") if l.strip()]
    after = [l for l in lines if l["t"] >= warmup]
    span_h = (after[-1]["t"] - after[0]["t"]) / 3600.0 if len(after) > 1 else 0.0
    rss = [(l["t"], l["rss_kb"]) for l in after]
    rss_growth = slope_mb_per_hour(rss)
    peak = max((l["rss_kb"] for l in lines), default=0)
    # What the allocator counts as in use (older servers do not report it).
    heap = [(l["t"], l["heap_kb"]) for l in after if "heap_kb" in l]

    print(f'\nbots: {s["bots"]}, left by script and rejoined {s["left_by_script"]} times')
    print(f'disconnects not asked for: {s["disconnects"]} {s["disconnects_by_reason"]}; '
          f'denials {s["denials_by_reason"]}')
    print(f'rtt p50/p99 {s["rtt_p50_ms"]:.0f}/{s["rtt_p99_ms"]:.0f} ms, '
          f'late inputs {100 * s["late_input_fraction"]:.3f}%')
    if rss:
        print(f"server RSS after warm-up: {len(rss)} samples over {span_h:.2f} h, first {rss[0][1]} KiB, "
              f"last {rss[-1][1]} KiB, range {min(v for _, v in rss)}..{max(v for _, v in rss)} KiB, "
              f"fitted growth {rss_growth:+.3f} MB/h; peak over the whole run {peak} KiB")
    if heap:
        print(f"server heap in use after warm-up: first {heap[0][1]} KiB, last {heap[-1][1]} KiB, "
              f"range {min(v for _, v in heap)}..{max(v for _, v in heap)} KiB, "
              f"fitted growth {slope_mb_per_hour(heap):+.3f} MB/h")
    checks = [
        ("server still running at the end, then exited 0", server_alive == 1 and server_status == 0,
         f"alive {server_alive}, exit {server_status}"),
        ("relay still running at the end, then exited 0", relay_alive == 1 and relay_status == 0,
         f"alive {relay_alive}, exit {relay_status}"),
        ("bots' thresholds held (no disconnect or denial not asked for)", bots_status == 0,
         f"bots exit {bots_status}"),
        ("server memory flat after warm-up (fitted growth < 1 MB/h)", len(rss) > 1 and rss_growth < 1.0,
         f"{rss_growth:+.3f} MB/h over {span_h:.2f} h" if len(rss) > 1 else "no samples after the warm-up"),
    ]
    conclude(checks)


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    main(sys.argv)
