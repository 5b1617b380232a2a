# Accounting for a local cluster of scripts/cluster.sh (sourced, not run): a
# private MariaDB and a private slurmdbd. bench/priority_budget_bench.sh uses
# it so that priority/multifactor computes fair share over real
# associations, as every production site runs it;
# test/integration/test_accounts.sh (through lib.sh's accounting_start) so
# that Slurm refuses an account the user is not a member of.
#
#   dbd_ready                    the packages are there (installs them if not)
#   dbd_start DIR                MariaDB, then slurmdbd, both under DIR
#   dbd_slurm_conf               the slurm.conf lines that point slurmctld at it
#   dbd_load_tree TREE_JSON      cluster, accounts and user root, with the
#                                tree's shares as fair-share values
#   dbd_stop                     slurmdbd, then MariaDB
#
# Nothing here touches the system's MariaDB or slurmdbd: the database has its
# own datadir and socket under DIR and listens on 127.0.0.1 only, on a port
# derived like scripts/cluster.sh derives its own; slurmdbd reads its own
# slurmdbd.conf (0600, owned by SlurmUser root). dbd_stop kills only the two
# pids dbd_start started.
#
# REQUIRES: root; CLUSTER_DIR set; the caller defines say() (one line to
# stderr). slurmdbd authenticates through the cluster's munged, so dbd_start
# runs after scripts/cluster.sh has started munged, and slurmctld must be
# (re)started after dbd_start with dbd_slurm_conf in its slurm.conf.

dbd_dir=
dbd_mariadb_pid=
dbd_slurmdbd_pid=

# The cluster's ports are 20000 + (cksum of CLUSTER_DIR % 126) * 100 and the
# next ones (one per slurmd, 64 at most): slurmdbd and MariaDB take the last
# two of that block of 100.
dbd_cluster_port() {
  echo "${CLUSTER_PORT:-$((20000 + $(printf '%s' "$CLUSTER_DIR" | cksum | cut -d' ' -f1) % 126 * 100))}"
}
dbd_port() { echo $(($(dbd_cluster_port) + 98)); }
dbd_mariadb_port() { echo $(($(dbd_cluster_port) + 99)); }

dbd_have_packages() {
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null &&
    command -v mariadb >/dev/null && command -v slurmdbd >/dev/null &&
    command -v sacctmgr >/dev/null && command -v sshare >/dev/null
}

# dbd_ready: true when MariaDB and slurmdbd are installed, installing them
# with apt-get (Debian 12) when they are not.
dbd_ready() {
  dbd_have_packages && return 0
  command -v apt-get >/dev/null || return 1
  say "installing mariadb-server and slurmdbd with apt-get (not installed)"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server slurmdbd >/dev/null 2>&1 ||
    { say "apt-get install mariadb-server slurmdbd failed"; return 1; }
  dbd_have_packages
}

# dbd_wait SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds.
dbd_wait() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

dbd_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# dbd_fail WHAT LOG: says WHAT failed with the end of LOG (which goes away
# with the caller's work dir); returns 1.
dbd_fail() {
  say "$1: $(tail -n 3 "$2" 2>/dev/null | tr '\n' ' ')"
  return 1
}

# dbd_sql SQL: as MariaDB's root, through the socket; SQL goes on stdin so
# that the password made below never shows in a command line.
dbd_sql() { printf '%s\n' "$1" | mariadb --no-defaults --socket="$dbd_dir/mariadb.sock" -u root; }
dbd_mariadb_up() {
  dbd_alive "$dbd_mariadb_pid" || return 1
  dbd_sql 'SELECT 1'
}

# dbd_start_mariadb: a new datadir, the server on 127.0.0.1 and a socket of
# its own, and a user `slurm` for slurmdbd with a password made here. The
# InnoDB settings are the ones slurmdbd checks for (its docs' recommended
# values), so its log does not warn about them; the log is flushed once a
# second rather than at each commit, which only speeds up loading 2,000
# associations and 20,000 job records (slurmctld's CPU does not depend on it).
dbd_start_mariadb() {
  mkdir -p "$dbd_dir/mariadb"
  mariadb-install-db --no-defaults --datadir="$dbd_dir/mariadb" --user=root \
    --auth-root-authentication-method=socket --skip-test-db \
    > "$dbd_dir/mariadb-install.log" 2>&1 ||
    dbd_fail "mariadb-install-db failed" "$dbd_dir/mariadb-install.log"
  setsid mariadbd --no-defaults --datadir="$dbd_dir/mariadb" --user=root \
    --socket="$dbd_dir/mariadb.sock" --port="$(dbd_mariadb_port)" \
    --bind-address=127.0.0.1 --skip-name-resolve \
    --pid-file="$dbd_dir/mariadb.pid" --log-error="$dbd_dir/mariadb.log" \
    --innodb-buffer-pool-size=1G --innodb-log-file-size=64M \
    --innodb-lock-wait-timeout=900 --innodb-flush-log-at-trx-commit=2 \
    < /dev/null >> "$dbd_dir/mariadb.log" 2>&1 &
  dbd_mariadb_pid=$!
  dbd_wait 60 dbd_mariadb_up ||
    dbd_fail "MariaDB did not come up" "$dbd_dir/mariadb.log"
  dbd_password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  # The database is created here, not by slurmdbd: slurmdbd creates it on a
  # second connection and then retries its first, failed connection on the
  # same handle, and MariaDB's client library 11.8 (Debian 13) leaves such a
  # handle unable to read any result ("Number of columns in result (=1) ...
  # exceeds maximum allowed number of columns (=0)"), which slurmdbd 24.11
  # takes for a defective server (fatal: _check_mysql_concat_is_sane).
  dbd_sql "CREATE DATABASE slurm_acct_db;
           CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$dbd_password';
           GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" ||
    { say "cannot create MariaDB user slurm"; return 1; }
}

dbd_up() {
  dbd_alive "$dbd_slurmdbd_pid" || return 1
  (exec 3<>"/dev/tcp/127.0.0.1/$(dbd_port)") 2>/dev/null
}

# dbd_start_slurmdbd: slurmdbd reads slurmdbd.conf from the directory of
# $SLURM_CONF, so it gets a directory of its own.
dbd_start_slurmdbd() {
  mkdir -p "$dbd_dir/etc"
  local conf=$dbd_dir/etc/slurmdbd.conf
  (umask 077 && cat > "$conf" <<CONF
# Written by scripts/slurmdbd_env.sh: slurmdbd of a local cluster.
AuthType=auth/munge
AuthInfo=socket=$CLUSTER_DIR/munge/munge.socket.2
DbdHost=$(hostname -s)
DbdAddr=127.0.0.1
DbdPort=$(dbd_port)
SlurmUser=root
DebugLevel=info
LogFile=$dbd_dir/slurmdbd.log
PidFile=$dbd_dir/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$(dbd_mariadb_port)
StorageUser=slurm
StoragePass=$dbd_password
StorageLoc=slurm_acct_db
CONF
  )
  chown root:root "$conf" && chmod 0600 "$conf"
  SLURM_CONF=$dbd_dir/etc/slurm.conf setsid slurmdbd -D \
    < /dev/null >> "$dbd_dir/slurmdbd.stdout" 2>&1 &
  dbd_slurmdbd_pid=$!
  dbd_wait 60 dbd_up ||
    dbd_fail "slurmdbd did not come up" "$dbd_dir/slurmdbd.log"
}

dbd_start() {
  dbd_dir=$1
  mkdir -p "$dbd_dir"
  dbd_start_mariadb && dbd_start_slurmdbd
}

dbd_slurm_conf() {
  cat <<CONF
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$(dbd_port)
AccountingStoragePass=socket=$CLUSTER_DIR/munge/munge.socket.2
CONF
}

# dbd_load_tree TREE_JSON: one `sacctmgr load` of a flat file that mirrors the
# tree: every node an account (parent: its parent node, or root), Fairshare =
# its share; user root in every leaf account, Fairshare=1 (one user per
# account: the account's share decides). Needs slurm.conf (SLURM_CONF) to
# name slurmdbd already: sacctmgr talks to slurmdbd, not to slurmctld.
dbd_load_tree() {
  local cluster
  cluster=$(sed -n 's/^ClusterName=//p' "$SLURM_CONF")
  # The bench's tree is written one node per line ({"name": .., "share": ..,
  # then "account" for a leaf or "children": [ for an inner node); a node's
  # children end with "]". The tree's root is Slurm's account root.
  awk -v cluster="$cluster" '
    BEGIN { print "Cluster - \047" cluster "\047:Fairshare=1:QOS=\047normal\047"
            print "Parent - \047root\047"
            print "User - \047root\047:DefaultAccount=\047root\047:AdminLevel=\047Administrator\047:Fairshare=1" }
    /"name"/ {
      name = $0; sub(/.*"name": *"/, "", name); sub(/".*/, "", name)
      if (depth && $0 ~ /"share"/) {
        if ($0 ~ /"account"/) { name = $0; sub(/.*"account": *"/, "", name); sub(/".*/, "", name) }
        share = $0; sub(/.*"share": *"?/, "", share); sub(/[^0-9].*/, "", share)
        accounts[++n] = name; parents[n] = depth > 1 ? stack[depth] : "root"
        shares[n] = share; leaf[n] = ($0 ~ /"account"/)
      }
      if ($0 ~ /"children"/) stack[++depth] = name
    }
    { depth -= gsub(/\]/, "]") }
    END {
      for (i = 1; i <= n; i++) {
        if (parents[i] != last) { print "Parent - \047" parents[i] "\047"; last = parents[i] }
        print "Account - \047" accounts[i] "\047:Description=\047bench\047:Organization=\047bench\047:Fairshare=" shares[i]
      }
      for (i = 1; i <= n; i++) if (leaf[i]) {
        print "Parent - \047" accounts[i] "\047"
        print "User - \047root\047:DefaultAccount=\047root\047:Fairshare=1"
      }
    }' "$1" > "$dbd_dir/associations.cfg"
  sacctmgr -i load file="$dbd_dir/associations.cfg" > "$dbd_dir/sacctmgr-load.log" 2>&1 ||
    dbd_fail "sacctmgr load failed" "$dbd_dir/sacctmgr-load.log"
}

# dbd_stop: slurmdbd first (it may still be writing), then MariaDB; only the
# pids dbd_start started, SIGKILL after 30 s.
dbd_stop() {
  local pid deadline
  for pid in "$dbd_slurmdbd_pid" "$dbd_mariadb_pid"; do
    dbd_alive "$pid" || continue
    kill "$pid" 2>/dev/null
    deadline=$((SECONDS + 30))
    while dbd_alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    dbd_alive "$pid" && kill -9 "$pid" 2>/dev/null
  done
  dbd_slurmdbd_pid=
  dbd_mariadb_pid=
  # Its directory goes with the caller's work dir: say what went wrong first.
  local log=$dbd_dir/slurmdbd.log errors
  [ -f "$log" ] || return 0
  errors=$(grep -cE 'error|fatal' "$log")
  [ "$errors" = 0 ] || say "slurmdbd.log: $errors errors, the last: $(grep -E 'error|fatal' "$log" | tail -n 1)"
}
