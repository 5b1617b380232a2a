#!/usr/bin/env bash
# Faults of the controller's state, on a real cluster (one 8-GPU node, a
# 1-day window of 5-s buckets, a pass every 2 s). Ended jobs of both teams
# leave usage in the ledger; the node is then drained, so the usage is
# frozen and four pending jobs have a fixed order. The ledger is then padded
# with 40 full-window series of paths outside the tree (2.8 MB, so that a
# save takes long enough for kills to land inside it).
#   - slurmctld killed with -9 while it writes the ledger (the kill is fired
#     by an inotify watch the moment budget_ledger.dat.tmp is created, and
#     counted as mid-write only if the temp file is still there after the
#     controller died), three times: after each restart the stale temp file
#     is removed (the log says so), the usage is the same to the GPU-second
#     and the pending order is identical;
#   - a byte flipped in the newest ledger generation (budget_ledger.dat):
#     the restarted plugin falls back to budget_ledger.dat.1, the log says
#     how many seconds were lost, the usage of the ended jobs is intact and
#     the order identical; the damaged file is kept aside;
#   - a BudgetTree URL that accepts connections and never answers: the
#     passes keep their 2-s interval (measured from the per-pass log lines
#     of DebugFlags=Priority) through two fetches that each time out after
#     TreeFetchTimeout=6 s, and the log says the fetch timed out and the
#     last good tree is kept.
# The figures (usage lost, passes delayed) are printed as "figure:" lines.
. "$(dirname "$0")/lib.sh"

export PRIORITY_TYPE=priority/budget
export SLURM_CONF_EXTRA="DebugFlags=Priority"
TREE=$CLUSTER_DIR/etc/budget-tree.json
LOG=$CLUSTER_DIR/log/slurmctld.log
STATE=$CLUSTER_DIR/state
ledger=$STATE/budget_ledger.dat
report=$STATE/budget_report.json
good_tree=$(mktemp /tmp/test_faults.tree.XXXXXX)
two_team_tree "$good_tree"
export BUDGET_TREE_JSON=$good_tree
budget_conf() {  # budget_conf TREE_SOURCE
  budget_conf_text "BudgetTree=$1" "LookbackWindow=1-0" "LedgerBucket=0:05" \
    "RecalcInterval=2" "BudgetRefresh=0:03" "TreeConnectTimeout=2" "TreeFetchTimeout=6" "UnknownAccount=unallocated"
}
export BUDGET_CONF=$(budget_conf "$TREE")

cluster_start -n 1 -g 8

log_count() { grep -c -- "$1" "$LOG" 2>/dev/null || true; }
log_has() { grep -q -- "$1" "$LOG" || { echo "no '$1' in $LOG"; return 1; }; }
log_count_above() { [ "$(log_count "$1")" -gt "$2" ] || { echo "'$1' seen $(log_count "$1") times, want > $2"; return 1; }; }
ledger_stamp() { stat -c %.9Y "$ledger" 2>/dev/null; }
stamp_changed() { [ "$(ledger_stamp)" != "$1" ]; }
# next_pass: returns after a pass that started after this call (each pass
# ends by saving the ledger).
next_pass() { local i; for i in 1 2; do poll 20 stamp_changed "$(ledger_stamp)" || return 1; done; }
pending_order() { squeue -h -t PD -o '%Q %i' | sort -k1,1nr -k2,2n | awk '{print $2}' | tr '\n' ' '; }
# usage: "teama teamb" window usage in GPU-seconds, from the report snapshot
# the last pass wrote (written after every cheap pass).
usage() {
  python3 - "$report" <<'PY'
import json, sys
nodes = {n["path"]: n["window_usage"] for n in json.load(open(sys.argv[1]))["nodes"]}
print("%.0f %.0f" % (nodes.get("teama", 0), nodes.get("teamb", 0)))
PY
}
same() { [ "$1" = "$2" ] || { echo "got '$2', want '$1'"; return 1; }; }
lost() {  # lost "A B" "A B": GPU-s lost in total (before - after)
  python3 -c 'import sys; b=sum(map(float, sys.argv[1].split())); a=sum(map(float, sys.argv[2].split())); print("%.0f" % max(0, b - a))' "$1" "$2"
}
job() {  # job ACCOUNT SECONDS: an 8-GPU allocated job
  submit -o /dev/null -A "$1" --gres=gpu:8 --min-runtime=1 --wrap "sleep $2"
}

check "priority/budget is loaded with the tree" \
  poll 30 log_has "priority/budget: loaded the allocation tree from $TREE: 3 nodes"

# --- usage from ended jobs, then frozen ---------------------------------------
ja=$(job teama 6) || fail_now "submit teama's job"
jb=$(job teamb 3) || fail_now "submit teamb's job"
check "teama's job ends" wait_state "$ja" COMPLETED 60
check "teamb's job ends" wait_state "$jb" COMPLETED 60
scontrol update nodename=n1 state=drain reason=test_faults
pending=()
for account in teama teamb teama teamb; do
  pending+=("$(job "$account" 600)") || fail_now "submit a pending job"
done
check "two passes after the ends" next_pass
check "a third" next_pass
next_pass
usage0=$(usage)
order0=$(pending_order)
echo "     usage (teama teamb GPU-s): $usage0; pending order: $order0"
nonzero() { case $1 in "0 "*|*" 0") echo "usage '$1' has a zero"; return 1 ;; esac; }
check "both teams have usage from their ended jobs" nonzero "$usage0"
next_pass
check "the usage is frozen (no job runs)" same "$usage0" "$(usage)"

# --- a ledger large enough to be killed in the middle of its write -------------
kill -9 "$(cat "$CLUSTER_DIR/run/slurmctld.mypid")"
while kill -0 "$(cat "$CLUSTER_DIR/run/slurmctld.mypid")" 2>/dev/null; do sleep 0.1; done
rm -f "$CLUSTER_DIR/run/slurmctld.mypid"
# Prepends 40 paths "archive/pN" to the file's payload (ledger_file.h's
# format: the decoder takes paths in any order), each with a full window of
# allocated buckets, and rewrites the envelope's length and CRC.
python3 - "$ledger" <<'PY'
import struct, sys, time, zlib
path = sys.argv[1]
data = open(path, "rb").read()
assert data[:8] == b"SBLEDGER"
payload = data[20:-4]
window, width, report_width = struct.unpack_from("<qqq", payload, 0)
(count,) = struct.unpack_from("<I", payload, 24)
buckets = window // width
head = int(time.time()) // width
extra = b""
for n in range(40):
    name = b"archive/p%d" % n
    extra += struct.pack("<I", len(name)) + name
    extra += b"\x01" + struct.pack("<qI", head, buckets) + struct.pack("<f", 0.001) * buckets
    extra += b"\x00\x00"
payload = payload[:24] + struct.pack("<I", count + 40) + extra + payload[28:]
body = b"SBLEDGER" + struct.pack("<IQ", 1, len(payload)) + payload
open(path, "wb").write(body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF))
PY
"$CLUSTER" restart-ctld > /dev/null || fail_now "slurmctld restarts with the padded ledger"
check "the padded ledger loads (42 paths)" poll 30 log_has "loaded the ledger from $ledger: 42 paths"
check "a pass saves it" next_pass
echo "     ledger: $(stat -c %s "$ledger") bytes"
check "the usage is unchanged ($usage0 GPU-s)" same "$usage0" "$(usage)"
check "the pending order is unchanged" same "$order0" "$(pending_order)"

# --- kill -9 during a ledger write ----------------------------------------------
# Waits for budget_ledger.dat.tmp to be created, kills slurmctld at once,
# and prints "mid-write ..." if the temp file outlived the controller (the
# kill came between the save's open and its rename; with how much of it was
# written), else "after-write".
kill_during_save() {
  python3 - "$STATE" "$(cat "$CLUSTER_DIR/run/slurmctld.mypid")" <<'PY'
import ctypes, os, signal, struct, sys, time, zlib
state, pid = sys.argv[1], int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
IN_CREATE = 0x100
if fd < 0 or libc.inotify_add_watch(fd, state.encode(), IN_CREATE) < 0:
    sys.exit("inotify failed")
deadline = time.time() + 30
while time.time() < deadline:
    data = os.read(fd, 4096)
    off = 0
    while off < len(data):
        wd, mask, cookie, length = struct.unpack_from("iIII", data, off)
        name = data[off + 16: off + 16 + length].rstrip(b"\0").decode()
        off += 16 + length
        if name == "budget_ledger.dat.tmp":
            os.kill(pid, signal.SIGKILL)
            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.01)
            tmp = os.path.join(state, name)
            if not os.path.exists(tmp):
                print("after-write")
                sys.exit(0)
            # How far the save got: all its bytes (header length and CRC
            # agree: killed in the fsync or the rotation) or a part.
            data = open(tmp, "rb").read()
            complete = (len(data) >= 24 and data[:8] == b"SBLEDGER" and
                        struct.unpack_from("<Q", data, 12)[0] + 24 == len(data) and
                        zlib.crc32(data[:-4]) & 0xFFFFFFFF == struct.unpack_from("<I", data, len(data) - 4)[0])
            print("mid-write %s" % ("all %d bytes written, not yet renamed" % len(data) if complete
                                    else "%d bytes written" % len(data)))
            sys.exit(0)
sys.exit("no ledger save seen in 30 s")
PY
}
mid_writes=0
for round in 1 2 3; do
  removed_before=$(log_count "removed $ledger.tmp, left by a ledger save")
  landed=$(kill_during_save) || fail_now "kill -9 during a ledger save (round $round)"
  case $landed in mid-write*) mid_writes=$((mid_writes + 1)); landed="mid-write: ${landed#mid-write }" ;; esac
  echo "     kill $round: $landed"
  rm -f "$CLUSTER_DIR/run/slurmctld.mypid"
  "$CLUSTER" restart-ctld > /dev/null || fail_now "slurmctld restarts after kill -9 (round $round)"
  if [ "${landed%%:*}" = mid-write ]; then
    check "kill $round (mid-write): the stale temp file is removed, and the log says so" \
      poll 30 log_count_above "removed $ledger.tmp, left by a ledger save" "$removed_before"
  fi
  check "kill $round: the restarted plugin completes passes" next_pass
  usage_k=$(usage)
  check "kill $round: the usage is intact ($usage0 GPU-s)" same "$usage0" "$usage_k"
  check "kill $round: the pending order is identical" same "$order0" "$(pending_order)"
  echo "     figure: kill -9 round $round ($landed): usage lost $(lost "$usage0" "$usage_k") GPU-s"
done
check "at least two kills of three landed mid-write ($mid_writes did)" test "$mid_writes" -ge 2
echo "     figure: $mid_writes of 3 kills landed mid-write (temp file left behind)"

# --- a byte flipped in the newest ledger -----------------------------------------
next_pass
check "two ledger generations are on disk" test -f "$ledger.1"
kill -9 "$(cat "$CLUSTER_DIR/run/slurmctld.mypid")"
while kill -0 "$(cat "$CLUSTER_DIR/run/slurmctld.mypid")" 2>/dev/null; do sleep 0.1; done
rm -f "$CLUSTER_DIR/run/slurmctld.mypid"
size=$(stat -c %s "$ledger")
python3 - "$ledger" <<'PY'
import sys
path = sys.argv[1]
import os
# As a disk would flip it: the file's mtime (its save time) unchanged.
st = os.stat(path)
data = bytearray(open(path, "rb").read())
data[len(data) // 2] ^= 0x40
open(path, "wb").write(bytes(data))
os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
PY
fallbacks_before=$(log_count "fell back to the previous ledger generation $ledger.1")
"$CLUSTER" restart-ctld > /dev/null || fail_now "slurmctld restarts with a damaged ledger"
check "the plugin falls back to the previous generation, and says so" \
  poll 30 log_count_above "fell back to the previous ledger generation $ledger.1" "$fallbacks_before"
check "the log names the damage (checksum)" log_has "cannot load the ledger: ledger file '$ledger': checksum mismatch"
check "the damaged file is kept aside" bash -c "ls $ledger.corrupt.* >/dev/null"
seconds_lost=$(grep "fell back to the previous ledger generation" "$LOG" | tail -n 1 | sed -n 's/.*in the \([0-9]*\) s after its save.*/\1/p')
echo "     figure: byte flip in a $size-byte ledger: the fallback generation was ${seconds_lost:-?} s older"
check "the restarted plugin completes passes" next_pass
usage_f=$(usage)
check "the usage of the ended jobs is intact ($usage0 GPU-s)" same "$usage0" "$usage_f"
check "the pending order is identical" same "$order0" "$(pending_order)"
echo "     figure: byte flip in the newest ledger: usage lost $(lost "$usage0" "$usage_f") GPU-s"

# --- a black-holed BudgetTree URL -------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
url="http://127.0.0.1:$port/tree.json"
# Accepts every connection and never answers (timeout: it cannot outlive
# the test).
timeout 300 python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64)
held = []
while True:
    c, _ = s.accept(); held.append(c)
' "$port" > /dev/null 2>&1 &
hole=$!
# curl's exit 28 is a timeout: connected, no answer (7, refused, would mean
# the listener is not up yet).
answers_nothing() { curl -s -m 1 -o /dev/null "$url"; local rc=$?; [ "$rc" = 28 ] || { echo "curl exit $rc, want 28"; return 1; }; }
check "the black hole accepts and never answers" poll 10 answers_nothing
timeouts_before=$(log_count "refused tree: $url: timed out")
budget_conf "$url" > "$CLUSTER_DIR/etc/budget.conf"
hole_start=$(date +%s.%N)
scontrol reconfigure
check "a fetch times out, and the log says so (with the budget.conf keys)" \
  poll 30 log_count_above "refused tree: $url: timed out (TreeConnectTimeout=2 s, TreeFetchTimeout=6 s)" "$timeouts_before"
check "the log says the last good tree is kept" log_has "keeping the last good tree (3 nodes, from "
check "a second fetch times out" poll 30 log_count_above "refused tree: $url: timed out" "$((timeouts_before + 1))"
hole_end=$(date +%s.%N)
# The gaps between consecutive passes while the URL was black-holed, from
# the log's millisecond stamps of the per-pass lines.
gaps=$(python3 - "$LOG" "$hole_start" "$hole_end" <<'PY'
import datetime, re, sys
log, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
stamps = []
for line in open(log, errors="replace"):
    m = re.match(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3})\] priority/budget: pass \d+: ", line)
    if m:
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f").timestamp()
        if start <= t <= end:
            stamps.append(t)
gaps = [b - a for a, b in zip(stamps, stamps[1:])]
if not gaps:
    print("0 0 0")
else:
    print("%d %.2f %.2f" % (len(stamps), max(gaps), sum(gaps) / len(gaps)))
PY
)
read -r passes max_gap mean_gap <<< "$gaps"
echo "     figure: black-holed URL for $(python3 -c "print('%.1f' % ($hole_end - $hole_start))") s: $passes passes, gap between passes max ${max_gap} s, mean ${mean_gap} s (RecalcInterval=2, TreeFetchTimeout=6)"
below() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)' "$1" "$2" || { echo "$1 is not below $2"; return 1; }; }
# A pass stalled by a fetch would wait >= 6 s; on a loaded machine a pass
# may start a little late, never by a fetch timeout.
check "passes keep their interval through the fetches (max gap $max_gap s < 4 s)" below "$max_gap" 4
check "... and there were passes all along ($passes)" test "$passes" -ge 5
check "the order stays" same "$order0" "$(pending_order)"
# BudgetRefresh (3 s) < TreeFetchTimeout (6 s): a fetch is nearly always in
# flight; slurmctld's shutdown cancels it instead of waiting for it.
"$CLUSTER" stop > /dev/null
cancel=$(python3 - "$LOG" <<'PY'
import datetime, re, sys
stamp = lambda l: datetime.datetime.strptime(l[1:24], "%Y-%m-%dT%H:%M:%S.%f").timestamp()
term = cancel = None
for line in open(sys.argv[1], errors="replace"):
    if "Terminate signal" in line:
        term, cancel = stamp(line), None
    elif "cancelled the tree fetch" in line and term is not None:
        cancel = stamp(line)
print("%.2f" % (cancel - term) if cancel is not None else "none")
PY
)
if [ "$cancel" = none ]; then
  echo "     figure: no fetch was in flight at the shutdown"
else
  echo "     figure: the fetch in flight was cancelled $cancel s after slurmctld's SIGTERM"
  check "the shutdown cancels a fetch in flight within 3 s (took $cancel s)" below "$cancel" 3
fi
kill "$hole" 2>/dev/null; wait "$hole" 2>/dev/null

rm -f "$good_tree"
finish
