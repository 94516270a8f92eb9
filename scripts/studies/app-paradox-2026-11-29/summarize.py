import csv, glob, statistics, sys, os
d = sys.argv[1]
for app in ("merge", "ts"):
    print("==", app)
    res = {}
    for f in sorted(glob.glob(os.path.join(d, "%s-*.csv" % app))):
        if "-tl-" in f: continue
        tag = os.path.basename(f)[len(app)+1:-4].rsplit("-", 1)[0]
        for r in csv.DictReader(open(f)):
            res.setdefault(tag, []).append((float(r["wall_s"]), float(r.get("comm_s") or 0), float(r.get("wait_s") or 0) if r.get("wait_s") else 0.0, r.get("validated")))
    for tag, v in res.items():
        print("%-10s n=%d wall p50 %.4f [%.4f-%.4f] comm p50 %.4f wait p50 %.4f validated %s" % (tag, len(v), statistics.median(x[0] for x in v), min(x[0] for x in v), max(x[0] for x in v), statistics.median(x[1] for x in v), statistics.median(x[2] for x in v), set(x[3] for x in v)))
