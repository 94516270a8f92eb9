"""Message sizes as the benchmarks print them: 1, 512, 4K, 1M (powers of 1024)."""


def fmt_size(b):
    b = int(b)
    for shift, unit in ((30, "G"), (20, "M"), (10, "K")):
        if b >= (1 << shift) and b % (1 << shift) == 0:
            return "%d%s" % (b >> shift, unit)
    return str(b)


def parse_size(text):
    t = str(text).strip().upper().rstrip("B").rstrip("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    if mult != 1:
        t = t[:-1]
    return int(t) * mult


def band(size):
    """The paper's three size bands."""
    if size <= 4096:
        return "1B-4KiB"
    if size <= 512 * 1024:
        return "8KiB-512KiB"
    return ">=1MiB"


BANDS = ("1B-4KiB", "8KiB-512KiB", ">=1MiB")


# Few-point sweep for the slower external tools in the quick profile: covers both latency
# bands and hits the anchor sizes of BRIEF section 2 (8 B, 1 KiB, 4 KiB, 64 KiB, 1 MiB).
SPARSE_LATENCY_SIZES = [1, 8, 64, 512, 1024, 4096, 16384, 65536, 262144, 524288, 1048576]
