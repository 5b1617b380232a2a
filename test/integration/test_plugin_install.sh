#!/usr/bin/env bash
# The plugins as the docs install them, used by a user other than root:
#   - the plugin stack is Debian's layout: plugstack.conf holds only
#     `include .../plugstack.conf.d/*.conf`, and plugstack.conf.d/contract.conf
#     is etc/plugstack.conf.d/contract.conf with the cluster's plugin path;
#   - the cluster's plugin directory holds copies of the plugins, so a build
#     tree that other users cannot traverse (a clone under /root, 0700) does
#     not keep a user's sbatch and srun from loading spank_contract.so.
. "$(dirname "$0")/lib.sh"

USER_NAME=${CONTRACT_TEST_USER:-budgetuser}

# A build tree under a directory only root can traverse: the plugins of
# $BUILD_DIR, where the cluster looks for them (src/*/.libs/*.so).
private=$(mktemp -d /tmp/test_plugin_install.XXXXXX)
chmod 0700 "$private"
(cd "$BUILD_DIR" && find src -path '*/.libs/*.so' -exec cp --parents -L {} "$private/" \;)
export BUILD_DIR=$private

cluster_start -n 1 -g 2

plugins=$CLUSTER_DIR/plugins
no_links() {
  local so n=0
  for so in "$plugins"/*.so; do
    [ -L "$so" ] && { echo "$so is a symbolic link"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -ge 5 ] || { echo "only $n plugins in $plugins"; return 1; }
}
check "the cluster's plugin directory holds copies of the plugins, not links into the build tree" no_links
check "plugstack.conf is Debian's one include line" \
  grep -qx "include $CLUSTER_DIR/etc/plugstack.conf.d/\*.conf" "$CLUSTER_DIR/etc/plugstack.conf"
same_as_shipped() {
  diff <(sed "s|^required .*/spank_contract.so\$|required $plugins/spank_contract.so|" \
           "$REPO/etc/plugstack.conf.d/contract.conf") "$CLUSTER_DIR/etc/plugstack.conf.d/contract.conf"
}
check "plugstack.conf.d/contract.conf is etc/plugstack.conf.d/contract.conf but for the plugin path" same_as_shipped

ensure_test_user "$USER_NAME"
as_user() { su -s /bin/bash "$USER_NAME" -c "cd /tmp && export SLURM_CONF=$SLURM_CONF && $1"; }
check "the build tree is out of the user's reach (the case under test)" \
  bash -c "! su -s /bin/bash '$USER_NAME' -c 'ls $private' >/dev/null 2>&1"
check "the user's sbatch --help lists --min-runtime (spank_contract.so loads)" \
  bash -c "su -s /bin/bash '$USER_NAME' -c 'export SLURM_CONF=$SLURM_CONF; sbatch --help' 2>&1 | grep -q -- --min-runtime"
job=$(as_user "sbatch --parsable -o /dev/null --min-runtime=1 --resumable --wrap true" 2>&1)
check "the user's sbatch --min-runtime=1 --resumable is accepted" bash -c "[[ '$job' =~ ^[0-9]+$ ]] || { echo '$job'; exit 1; }"
check "... its job runs to completion" wait_state "$job" COMPLETED 30
check "... with its contract recorded" \
  bash -c "scontrol show job '$job' | grep -q 'AdminComment=contract:min_runtime=60,resumable=1,declared=1'"
check "the user's srun --min-runtime=0:05 runs" \
  bash -c "su -s /bin/bash '$USER_NAME' -c 'cd /tmp; export SLURM_CONF=$SLURM_CONF; srun --min-runtime=0:05 true' 2>&1"

rm -rf "$private"
finish
