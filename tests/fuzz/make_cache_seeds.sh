#!/usr/bin/env bash
# Regenerates the seed corpus of fuzz_cache_file (corpus/cache_file/): small
# real cache files (512-byte pages) made by this build's own code, plus
# variants a fuzzer would take long to find: rows of the wrong type or out of
# range, the old schema version, a foreign application_id, a newer schema,
# WAL mode. Needs sqlite3 (CLI) and a built autogemm_cache tool.
#   tests/fuzz/make_cache_seeds.sh [build dir, default build]
set -euo pipefail
cd "$(dirname "$0")"
tool=${1:-../../build}/tools/autogemm_cache
out=corpus/cache_file
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/in.json" <<'JSON'
{"format":"autogemm-tuning-cache","format_version":1,"devices":[
 {"name":"NVIDIA H200","cc_major":9,"cc_minor":0,"sm_count":132,
  "driver_version":13000,"nvrtc_version":13000,
  "winners":[{"m":256,"n":256,"k":256,"trans_a":false,"trans_b":true,"aligned":true,
              "config":"tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=1",
              "template_hash":"9f1c2e","median_ms":0.02,"spread_ms":0.001,"gflops":1600.5,
              "tuned_at":1700000000}],
  "trials":[{"m":256,"n":256,"k":256,"trans_a":false,"trans_b":true,"aligned":true,
             "template_hash":"9f1c2e",
             "config":"tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=1",
             "status":"ok","median_ms":0.02,"spread_ms":0.001,"gflops":1600.5,"detail":"",
             "recorded_at":1700000000},
            {"m":256,"n":256,"k":256,"trans_a":false,"trans_b":true,"aligned":true,
             "template_hash":"9f1c2e","config":"generic ta=0 tb=1","status":"compile_failed",
             "median_ms":0,"spread_ms":0,"gflops":0,"detail":"error: x","recorded_at":1700000001}]}]}
JSON

# A real cache, compacted to 512-byte pages, rollback journal.
AUTOGEMM_CACHE="$tmp/base.db" "$tool" import --db "$tmp/base.db" --in "$tmp/in.json" >/dev/null
sqlite3 "$tmp/base.db" "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;" >/dev/null
cp "$tmp/base.db" "$out/valid.db"

variant() {  # variant <name> <sql>
  cp "$tmp/base.db" "$tmp/v.db"
  sqlite3 "$tmp/v.db" "$2" >/dev/null
  sqlite3 "$tmp/v.db" "VACUUM;" >/dev/null
  cp "$tmp/v.db" "$out/$1.db"
}
variant bad_rows "INSERT INTO devices (name, cc_major, cc_minor, sm_count, driver_version, nvrtc_version, first_seen) VALUES ('', -1, 'x', 3000000000, 1.5, 'v', 0);
  UPDATE winners SET m = 'big', median_ms = -1; UPDATE trials SET status = 'weird', k = 0 WHERE status = 'ok';
  INSERT INTO trials SELECT device_id, 1, 2, 3, 7, 0, 1, x'00ff', '', 'ok', 1e999, 0, 0, 5, -5 FROM trials LIMIT 1;
  INSERT INTO cubins VALUES ('9f1c2e', 'generic ta=0 tb=1', 'sm_90', 13000, x'7f454c46', 0);"
# An older schema: the v2 file written by release 8235a95 (tests/cache/data).
cp ../cache/data/v2_release.db "$out/old_version.db"
variant foreign_app "PRAGMA application_id=1234;"
variant newer_version "PRAGMA user_version=99;"
variant wal_mode "PRAGMA journal_mode=WAL;"
# An empty database (tables of another program) and a zero-byte file.
sqlite3 "$tmp/other.db" "PRAGMA page_size=512; CREATE TABLE t(x);" >/dev/null
cp "$tmp/other.db" "$out/no_app_id.db"
: > "$out/empty.db"
ls -l "$out"
