#!/usr/bin/env bash
# Builds the libFuzzer targets of Sources/UrnaFuzz with swiftc and runs each for a set time.
#
#   Sources/UrnaFuzz/run-fuzzers.sh [--seconds N] [--build-only] [target ...]
#
# Targets: csv (CSVReader + TSE layout recognition), xml (XMLRecordReader), predicate
# (QueryPredicate.parse, compiled and run against a small store), schema (SchemaDescriptor.decode,
# then the tables of every accepted schema are created), zip (ZipArchive + ZipEntryByteSource, seeded
# with real zips and small zip bombs). Default: all five, one after the other.
#
# Environment:
#   FUZZ_SECONDS  seconds per target (default 60; --seconds wins)
#   FUZZ_WORK     build products, growing corpora and crash files (default .build/fuzz)
#   FUZZ_FLAGS    extra libFuzzer flags, e.g. "-jobs=2" or "-seed=1"
#
# Each target starts from its seed corpus (Sources/UrnaFuzz/corpus/<target>, checked in) plus the
# corpus earlier runs grew in $FUZZ_WORK/corpus/<target>. Fuzzing runs in libFuzzer's fork mode with
# crashes ignored, so one crash does not end the run: every crashing input is kept under
# $FUZZ_WORK/crashes/<target>/ and summarised (one line per distinct failure) at the end.
# Reproduce one with: $FUZZ_WORK/bin/fuzz-<target> <crash file>   (SWIFT_BACKTRACE=enable=no).
# Exit status: 0 when no target crashed, 1 when one did, 2 when a target did not build.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fuzz_dir="$root/Sources/UrnaFuzz"
seconds="${FUZZ_SECONDS:-60}"
work="${FUZZ_WORK:-$root/.build/fuzz}"
build_only=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="${2:-}"; shift; [ $# -gt 0 ] && shift ;;
        --build-only) build_only=1; shift ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        csv|xml|predicate|schema|zip) targets+=("$1"); shift ;;
        *) echo "Error: unknown argument '$1' (targets: csv xml predicate schema zip)" >&2; exit 64 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(csv xml predicate schema zip)
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
    echo "Error: --seconds (or FUZZ_SECONDS) must be a positive whole number, not '$seconds'" >&2
    exit 64
fi
case "$work" in /*) ;; *) work="$root/$work" ;; esac

export PATH="/opt/swift/usr/bin:$PATH"
# Swift's own crash backtracer fights libFuzzer's signal handler (and confuses ASan): libFuzzer reports.
export SWIFT_BACKTRACE=enable=no

if ! ls /opt/swift/usr/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 &&
    ! ls "$(dirname "$(command -v swiftc)")"/../lib/clang/*/lib/*/libclang_rt.fuzzer*.a >/dev/null 2>&1; then
    echo "Error: this Swift toolchain has no libFuzzer runtime (libclang_rt.fuzzer); use the swift.org Linux toolchain" >&2
    exit 2
fi

# target -> module name, library sources, harness folder, C module flags, link flags, max input length
module_of() { case "$1" in csv|xml|zip) echo UrnaRecords ;; predicate|schema) echo UrnaStore ;; esac; }
harness_of() {
    case "$1" in
        csv) echo CSVReaderFuzzer ;; xml) echo XMLRecordReaderFuzzer ;;
        predicate) echo PredicateParserFuzzer ;; schema) echo SchemaDescriptorFuzzer ;;
        zip) echo ZipArchiveFuzzer ;;
    esac
}
# zip: the seed archives (real TSE zips cut to their small members, bombs) are up to 200 KB.
max_len_of() { case "$1" in csv|xml|schema) echo 8192 ;; predicate) echo 2048 ;; zip) echo 262144 ;; esac; }
# Leak checks only where they hold: a Swift weak reference keeps its side table behind a pointer that
# is packed into the object's reference count, which LeakSanitizer cannot see (store targets).
asan_options_of() {
    case "$1" in csv|xml|zip) echo "detect_leaks=1" ;; predicate|schema) echo "detect_leaks=0" ;; esac
}

build() {
    local target="$1" module harness binary
    module="$(module_of "$target")"
    harness="$(harness_of "$target")"
    binary="$work/bin/fuzz-$target"
    mkdir -p "$work/bin" "$work/obj-$target"
    local sources=()
    while IFS= read -r f; do sources+=("$f"); done < <(
        find "$root/Sources/$module" "$fuzz_dir/Support" "$fuzz_dir/$harness" -name '*.swift' | sort)
    local newest
    newest="$(ls -t "${sources[@]}" "$0" | head -1)"
    if [ -x "$binary" ] && [ "$binary" -nt "$newest" ]; then return 0; fi
    echo "== building fuzz-$target (module $module, $(( ${#sources[@]} )) files)"
    # The harness is compiled into the library's module: it sees internal API, as @testable tests do.
    (cd "$work/obj-$target" && swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g -use-ld=lld -suppress-warnings \
        -module-name "$module" -module-cache-path "$work/module-cache" \
        -I "$root/Sources/CSQLite" -I "$root/Sources/CLibXML2" -I "$root/Sources/CZlib" \
        -Xcc -I/usr/include/libxml2 -lsqlite3 -lxml2 -lz \
        "${sources[@]}" -o "$binary")
}

summarise_crashes() {
    local target="$1" dir="$2" binary="$3" shown=0
    local files=()
    while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -maxdepth 1 -type f \
        \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) -newer "$4" | sort)
    [ ${#files[@]} -gt 0 ] || return 0
    echo "   kept inputs: ${#files[@]} in $dir"
    # One line per distinct failure: rerun the first 25 inputs and keep the first line that says why.
    for f in "${files[@]:0:25}"; do
        ASAN_OPTIONS="${ASAN_OPTIONS:-$(asan_options_of "$target")}" timeout 60 "$binary" -rss_limit_mb=2048 -timeout=20 "$f" 2>&1 |
            grep -m1 -E 'Fatal error|fuzz invariant|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' |
            sed -E 's/0x[0-9a-f]+/0x…/g; s/==[0-9]+==//' | sed "s|^|   $(basename "$f"): |" || true
        shown=$((shown + 1))
    done | sort -t: -k2 -u
}

status=0
for target in "${targets[@]}"; do
    if ! build "$target"; then
        echo "Error: fuzz-$target did not build (see the swiftc output above)" >&2
        exit 2
    fi
done
[ "$build_only" = 1 ] && { echo "built: ${targets[*]} in $work/bin"; exit 0; }

printf '%-10s %12s %8s %10s %8s\n' target executions seconds "corpus" crashes > "$work/summary.txt"
for target in "${targets[@]}"; do
    binary="$work/bin/fuzz-$target"
    corpus="$work/corpus/$target"
    crashes="$work/crashes/$target"
    log="$work/logs/$target.log"
    mkdir -p "$corpus" "$crashes" "$work/logs"
    stamp="$work/logs/$target.start"
    touch "$stamp"
    dict=()
    [ -f "$fuzz_dir/dictionaries/$target.dict" ] && dict=(-dict="$fuzz_dir/dictionaries/$target.dict")
    echo "== fuzzing $target for ${seconds}s (log: $log)"
    # shellcheck disable=SC2086
    ASAN_OPTIONS="${ASAN_OPTIONS:-$(asan_options_of "$target")}" "$binary" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len="$(max_len_of "$target")" \
        -artifact_prefix="$crashes/" "${dict[@]}" ${FUZZ_FLAGS:-} \
        "$corpus" "$fuzz_dir/corpus/$target" >"$log" 2>&1 || true
    last="$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)"
    executions="$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")"
    failures="$(sed -nE 's/.*oom\/timeout\/crash: ([0-9]+)\/([0-9]+)\/([0-9]+).*/\1 \2 \3/p' <<<"$last")"
    read -r ooms timeouts crashed <<<"${failures:-0 0 0}"
    total=$((ooms + timeouts + crashed))
    corpus_size="$(find "$corpus" -type f | wc -l)"
    printf '%-10s %12s %8s %10s %8s\n' "$target" "${executions:-0}" "$seconds" "$corpus_size" "$total" \
        | tee -a "$work/summary.txt"
    if [ "$total" -gt 0 ]; then
        echo "   oom/timeout/crash: $ooms/$timeouts/$crashed"
        summarise_crashes "$target" "$crashes" "$binary" "$stamp"
        status=1
    fi
done
echo
cat "$work/summary.txt"
exit $status
