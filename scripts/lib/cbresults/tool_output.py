"""What the libraries' own tools print, read once for the baseline scripts that run them
(scripts/baselines) and for the studies that compare with them (ceilings.alternating)."""

# ucx_perftest's "MB/s" are MiB/s; the suite's MB are 10^6 bytes.
MIB_TO_MB = 1048576 / 1e6


def parse_np_out(text):
    """[(bytes, Mbps, one_way_seconds)] from a NetPIPE output file (its best trial per
    size)."""
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        try:
            out.append((int(float(parts[0])), float(parts[1]), float(parts[2])))
        except ValueError:
            continue
    return out
