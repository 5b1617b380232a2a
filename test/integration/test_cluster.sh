#!/usr/bin/env bash
# The local cluster itself: it starts N nodes with fake GPUs, runs a GPU job
# with CUDA_VISIBLE_DEVICES set, loads the suite's plugins from the build
# tree, scales to 32 nodes, and leaves no daemon behind when stopped.
. "$(dirname "$0")/lib.sh"

ours() { pgrep -f -- "$CLUSTER_DIR/etc/slurm.conf" >/dev/null || pgrep -f -- "$CLUSTER_DIR/munge" >/dev/null; }
nothing_left() { if ours; then pgrep -a -f -- "$CLUSTER_DIR"; return 1; fi; }

cluster_start -n 4
check "4 nodes idle with 8 GPUs each" \
  poll 10 bash -c '[ "$(sinfo -h -N -o "%N %G %T" | grep -c "gpu:8 idle")" -eq 4 ]'

out=$CLUSTER_DIR/gpu-job.out
id=$(submit --gres=gpu:3 -o "$out" --wrap 'echo "CVD=$CUDA_VISIBLE_DEVICES"') || fail_now "sbatch a GPU job"
check "a 3-GPU job completes" wait_state "$id" COMPLETED 30
check "the job sees 3 GPUs in CUDA_VISIBLE_DEVICES" grep -qx 'CVD=0,1,2' "$out"

plugins=$(scontrol show config)
check "job_submit/contract is active" grep -Eq "^JobSubmitPlugins *= contract" <<<"$plugins"
check "the SPANK plugin is on the plugin stack (plugstack.conf.d/contract.conf)" \
  grep -qx "required $CLUSTER_DIR/plugins/spank_contract.so" "$CLUSTER_DIR/etc/plugstack.conf.d/contract.conf"

cluster_stop
check "stop leaves no daemon of the cluster" nothing_left

cluster_start -n 32
check "32 nodes come up idle" \
  poll 30 bash -c '[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 32 ]'
cluster_stop
check "stop leaves none of the 32 slurmd" nothing_left

finish
