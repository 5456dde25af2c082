# Sourced by the benchmarks that compare two builds in one run (bench-likes, bench-ceiling,
# bench-import, bench-nearby, bench-search, bench-feed, bench-clusters, bench-tiles), from the repository's root, with the products they run:
#   . scripts/bench_builds.sh burgermap [burgermap-bench]
# Takes /tmp/burgermap-bench.lock (one benchmark at a time, builds included; or runs under a
# `flock` that holds it), installs what benchmarks need (scripts/setup), and sets:
#   bin     BIN (a folder with a release burgermap and burgermap-bench built elsewhere, for example
#           with --scratch-path), else this tree's release build, built here;
#   builds  the burgermap binaries each run measures, in this order: BEFORE (another build's
#           burgermap; its burgermap-bench is the file beside it) when set, then "$bin/burgermap";
#   labels  their names: before, after;
#   runs    RUNS, runs per build (default 3);
#   tmp     a temporary folder, removed at exit with the `servers` (process ids) still running and
#           the PostgreSQL cluster of `postgres_start`.
lock=/tmp/burgermap-bench.lock
held=""
for fd in /proc/$$/fd/*; do
  if [ "$(readlink "$fd" 2>/dev/null)" = "$lock" ]; then held=1; fi
done
if [ -z "$held" ]; then
  exec 9>"$lock"
  flock -n 9 || { echo "waiting for $lock (another benchmark)" >&2; flock 9; }
fi

scripts/setup
if [ -n "${BIN:-}" ]; then
  bin="$BIN"
else
  for product in "$@"; do swift build -c release --product "$product" >/dev/null; done
  bin="$(swift build -c release --show-bin-path)"
fi
runs="${RUNS:-3}"
builds=("$bin/burgermap")
labels=(after)
if [ -n "${BEFORE:-}" ]; then
  builds=("$BEFORE" "$bin/burgermap")
  labels=(before after)
fi
for build in "${builds[@]}"; do
  for product in "$@"; do
    file="$(dirname "$build")/$product"
    if [ "$product" = burgermap ]; then file="$build"; fi
    [ -x "$file" ] || { echo "no $product at $file" >&2; exit 1; }
  done
done

tmp="$(mktemp -d)"
servers=()
cluster=""
cleanup() {
  for server in "${servers[@]}"; do kill "$server" 2>/dev/null || true; done
  if [ -n "$cluster" ]; then scripts/postgres --stop "$cluster"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# The folder (burgermap-bench's --data-dir) of BUILD's cached benchmark databases (1,000,000
# places). The database migrates when a build opens it and stays migrated, and a build must not run
# on a schema another build migrated (the after build may add migrations the before build does not
# know): the after build's is bench-data/nearby, shared with the other benchmarks; the before
# build's is bench-data/nearby-before, built by its own burgermap-bench, and built again when that
# burgermap-bench changes.
nearby_data() {  # BUILD
  build_data "$1" nearby
}

# The same for any benchmark database folder: bench-data/NAME for this tree's build,
# bench-data/NAME-before for the other.
build_data() {  # BUILD NAME
  if [ "$1" = "$bin/burgermap" ]; then echo "bench-data/$2"; return; fi
  local folder="bench-data/$2-before" stamp
  stamp="$(sha256sum "$(dirname "$1")/burgermap-bench" | cut -c1-16)"
  if [ "$(cat "$folder/build" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$folder"
    mkdir -p "$folder"
    echo "$stamp" >"$folder/build"
  fi
  echo "$folder"
}

# An in-process benchmark with each build's burgermap-bench: `burgermap-bench ARGUMENT…
# --data-dir FOLDER`, FOLDER the build's own (`build_data`, NAME). One build: once. Two (BEFORE=):
# RUNS times each, alternating, every output headed by its run and build. With --postgres first,
# each one runs under scripts/postgres (a throw-away cluster of its own).
bench_each_build() {  # [--postgres] NAME ARGUMENT…
  local wrap=() name rounds=1 run i
  if [ "$1" = --postgres ]; then wrap=(scripts/postgres); shift; fi
  name="$1"
  shift
  [ "${#builds[@]}" -gt 1 ] && rounds="$runs"
  for run in $(seq 1 "$rounds"); do
    for i in "${!builds[@]}"; do
      [ "${#builds[@]}" -gt 1 ] && echo "== run $run of $rounds, ${labels[$i]}: ${builds[$i]}"
      "${wrap[@]}" "$(dirname "${builds[$i]}")/burgermap-bench" "$@" --data-dir "$(build_data "${builds[$i]}" "$name")"
    done
  done
}

# Starts a throw-away PostgreSQL cluster (scripts/postgres --print-url), stopped at exit: sets
# pg_url, postgres://burgermap@127.0.0.1:PORT (append /DATABASE). `pg PROGRAM ARGUMENT…` runs one
# of its client programs (createdb, dropdb, psql) against it.
postgres_start() {
  local url
  read -r url cluster < <(scripts/postgres --print-url)
  pg_url="${url%/*}"
}
pg() {
  local hostport="${pg_url#postgres://burgermap@}"
  "/usr/lib/postgresql/15/bin/$1" -h "${hostport%:*}" -p "${hostport#*:}" -U burgermap "${@:2}"
}

# Prints the medians of FILE's lines "LABEL VALUE METRIC…" per metric (in the order they first
# appear) and build, and with two builds the ratio after/before.
compare_builds() {  # FILE
  local build_paths=()
  for i in "${!builds[@]}"; do build_paths+=("${labels[$i]}=${builds[$i]}"); done
  python3 - "$1" "$runs" "${build_paths[@]}" <<'PY'
import statistics, sys
path, runs, *builds = sys.argv[1:]
labels = [build.split("=", 1)[0] for build in builds]
values = {}
for line in open(path):
    label, value, metric = line.rstrip("\n").split(" ", 2)
    values.setdefault(metric, {}).setdefault(label, []).append(float(value))
print(f"medians of {runs} run(s) per build" + (", alternating run by run" if len(labels) > 1 else ""))
for build in builds:
    print("  %s: %s" % tuple(build.split("=", 1)))
width = max(map(len, values), default=0) + 2
fmt = lambda v: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}"
print(" " * width + "".join(f"{label:>12}" for label in (labels if len(labels) > 1 else ["median"]))
      + ("  after/before" if len(labels) > 1 else ""))
for metric, by_label in values.items():
    m = [statistics.median(by_label[label]) if label in by_label else float("nan") for label in labels]
    ratio = f"{m[1] / m[0]:>14.2f}" if len(m) > 1 and m[0] else ""
    print(f"{metric:<{width}}" + "".join(f"{fmt(v):>12}" for v in m) + ratio)
PY
}
