#!/usr/bin/env bash
# A mixed fleet: every preemption frees GPUs the waiting job can use
# (libbudget/policy/eligibility.h). Four 8-GPU nodes, two B200 and two H100
# (typed GRES, each node's type also a node feature), a debug partition on
# one node of each type, the suite as in test_timeslice.sh (time-compressed:
# a pass every 2 s, protections of 20 s). In each case teama fills every
# node, the jobs on the nodes the waiting job may NOT use started last, so
# a choice blind to eligibility (victims: the youngest first) would take
# them; teamb, which has used nothing, then waits:
#   - `--gres=gpu:b200:8`, with the B200 nodes first and then last in node
#     order: a B200 job is preempted and teamb's job starts within a pass
#     of that job's protection end; no H100 job is requeued;
#   - `-C b200` with untyped GPUs: the same, through the constraint;
#   - the B200 nodes protected for minutes: nothing is preempted at all
#     (the H100 work past its protection is of no use to the job);
#   - a reservation on one B200 node: the other one is freed;
#   - a 1-GPU quick-start job in the debug partition: its victim is on a
#     debug node.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/timeslice_lib.sh"
SLURM_CONF_EXTRA="$SLURM_CONF_EXTRA
PartitionName=debug Nodes=n2,n4 MaxTime=30 State=UP"

# fill_nodes MIN_RUNTIME NODE...: one 8-GPU teama job on each NODE, in that
# order, each started before the next is submitted (so the last is the
# youngest); prints the job ids.
fill_nodes() {
  local min=$1 node id ids=(); shift
  for node in "$@"; do
    id=$(job teama "$min" 1 --resumable -w "$node") || return 1
    wait_state "$id" RUNNING 30 >/dev/null || { echo "job $id on $node did not start" >&2; return 1; }
    ids+=("$id")
    sleep 1  # distinct start times: the victim order's age is whole seconds
  done
  echo "${ids[@]}"
}
never_requeued() { local id; for id in "$@"; do [ "$(restarts "$id")" = 0 ] || { echo "job $id was requeued"; return 1; }; done; }
one_of_requeued() { requeued "$1" >/dev/null || requeued "$2"; }
# first_free ID...: the first second one of the jobs is no longer protected
# (protected through start + 20: src/libbudget/policy/contract.h).
first_free() { local id first=0 e; for id in "$@"; do e=$(( $(start_epoch "$id") + 20 + 1 )); { [ "$first" = 0 ] || [ "$e" -lt "$first" ]; } && first=$e; done; echo "$first"; }
node_of() { job_field "$1" NodeList; }
typed_nodes_are() { local got; got=$(sinfo -h -N -p gpu -o '%N %G' | awk '/b200/ {print $1}' | sort | xargs); [ "$got" = "$1" ] || { echo "b200 nodes: $got"; return 1; }; }
node_is_one_of() { local n; n=$(node_of "$1"); case " $2 " in *" $n "*) return 0 ;; esac; echo "job $1 runs on $n, want one of $2"; return 1; }

# run_typed_case LABEL ELIGIBLE_NODES OTHER_NODES SBATCH_ARGS...: the B200
# case above with the given nodes and request.
run_typed_case() {
  local label=$1 eligible=($2) others=($3); shift 3
  local filled ids
  filled=$(fill_nodes 0:20 "${eligible[@]}" "${others[@]}") || fail_now "$label: fill the nodes"
  ids=($filled)
  local e1=${ids[0]} e2=${ids[1]} o1=${ids[2]} o2=${ids[3]}
  local free_at; free_at=$(first_free "$e1" "$e2")
  local b; b=$(submit -o /dev/null -A teamb -N 1 --min-runtime=0:40 --resumable "$@" --wrap 'sleep 600') \
    || fail_now "$label: submit teamb's job"
  check "$label: teamb's job starts once a protection ends" wait_state "$b" RUNNING 60
  local started; started=$(start_epoch "$b")
  echo "     $label: started $((started - free_at)) s after the first protection on its nodes ended"
  check "$label: it runs on a node it may use (${eligible[*]})" node_is_one_of "$b" "${eligible[*]}"
  check "$label: a job on those nodes was requeued for it" one_of_requeued "$e1" "$e2"
  check "$label: no job on the other nodes (${others[*]}) was requeued" never_requeued "$o1" "$o2"
  check "$label: their jobs still run" state_is "$o2" RUNNING
  check "$label: it started within a few passes of the protection end" test "$started" -le "$((free_at + 10))"
  scancel --quiet "$b"
  clear_jobs
}

for order in "b200 b200 h100 h100" "h100 h100 b200 b200"; do
  export GPU_TYPES=$order
  if [ "$order" = "b200 b200 h100 h100" ]; then b200="n1 n2" h100="n3 n4"; else b200="n3 n4" h100="n1 n2"; fi
  cluster_start -n 4 -g 8
  check "[$order] the nodes carry their GPU types ($b200: b200)" poll 10 typed_nodes_are "$b200"
  run_typed_case "[$order] --gres=gpu:b200:8" "$b200" "$h100" --gres=gpu:b200:8
  if [ "$order" = "b200 b200 h100 h100" ]; then
    run_typed_case "[$order] -C b200" "$b200" "$h100" --gres=gpu:8 -C b200

    # --- No eligible node can be freed: no preemption at all ---------------
    ids=($(fill_nodes 10:00 n1 n2)) || fail_now "protect the B200 nodes"
    others=($(fill_nodes 0:05 n3 n4)) || fail_now "fill the H100 nodes"
    b=$(submit -o /dev/null -A teamb -N 1 --min-runtime=0:40 --gres=gpu:b200:8 --wrap 'sleep 600') || fail_now "submit"
    sleep 12  # six passes after the H100 work's protection ended
    check "no eligible node can be freed: teamb's B200 job waits" state_is "$b" PENDING
    check "and no job at all was requeued for it" never_requeued "${ids[@]}" "${others[@]}"
    scancel --quiet "$b"
    clear_jobs

    # --- A reservation on n1: the other B200 node is freed ------------------
    # n1's job is the youngest B200 job, so without the reservation it would go.
    ids=($(fill_nodes 0:20 n3 n4 n2 n1)) || fail_now "fill for the reservation"
    check "a maintenance reservation on n1" scontrol create reservation ReservationName=maint Nodes=n1 \
      StartTime=now Duration=30 Users=root Flags=MAINT,IGNORE_JOBS
    b=$(submit -o /dev/null -A teamb -N 1 --min-runtime=0:40 --resumable --gres=gpu:b200:8 --wrap 'sleep 600') \
      || fail_now "submit"
    check "reservation: teamb's B200 job starts" wait_state "$b" RUNNING 60
    check "reservation: on n2, not the reserved n1" node_is_one_of "$b" "n2"
    check "reservation: n1's job was not requeued" never_requeued "${ids[3]}" "${ids[0]}" "${ids[1]}"
    scancel --quiet "$b"
    scontrol delete reservation maint
    clear_jobs

    # --- A quick start in the debug partition (n2, n4) ---------------------
    # The youngest jobs run on n1 and n3, outside the partition.
    ids=($(fill_nodes 0:05 n2 n4 n1 n3)) || fail_now "fill for the quick start"
    sleep 6  # every protection over
    q=$(submit -o /dev/null -A teamb -p debug -N 1 --gres=gpu:1 --min-runtime=0:10 --wrap 'sleep 600') \
      || fail_now "submit the debug job"
    check "quick start: the 1-GPU debug job starts" wait_state "$q" RUNNING 30
    check "quick start: on a debug node" node_is_one_of "$q" "n2 n4"
    check "quick start: no job outside the partition was requeued" never_requeued "${ids[2]}" "${ids[3]}"
    check "quick start: the rule is quick start" \
      poll 5 eval 'notes_have "${ids[0]}" "(rule: quick start)" >/dev/null || notes_have "${ids[1]}" "(rule: quick start)"'
    clear_jobs
  fi
  cluster_stop
  trap - EXIT
done
finish
