#!/usr/bin/env python3
"""Writes an allocation tree (BudgetTree) from Slurm's association tree.

A site moving from Fair Tree (doc/admin-guide.md, "Moving from Fair Tree and
QOS to the suite, and back") already has its shares in slurmdbd. Run

  sacctmgr -n -P show assoc where cluster=NAME format=Account,ParentName,User,Fairshare \\
    | scripts/tree_from_sacctmgr.py > budget-tree.json

and review the result before BudgetTree names it. The mapping:
  account A with parent P, Fairshare=N  a node "A" under P's node, share N,
                                        bound to account A (jobs of A that
                                        no user node takes are charged here)
  user U of account A, Fairshare=N      a node "U" under A's node, share N,
                                        bound to user U
  user U with Fairshare=parent          no node: U's jobs are charged to A
  account root                          the tree's root (its users: none)
An account with Fairshare=parent (Fair Tree then ranks its children with
its parent's) is written with share 1 and named on stderr: decide its share.
A node name keeps only [A-Za-z0-9._-] (others become '_'); siblings must
still differ, which budget-sim --tree or the plugin checks.
Refused, as BudgetTree=slurmdbd refuses them
(src/libbudget/state/tree_from_associations.h): an account listed twice
(several clusters: add where cluster=NAME), an account whose parent is not
listed or whose parents loop, a user of an account that is not listed.
"""
import json
import re
import sys


def share(text, who):
    if text.isdigit():
        return int(text)
    print(f"tree_from_sacctmgr: {who}: Fairshare={text} written as share 1: decide its share",
          file=sys.stderr)
    return 1


def node_name(text):
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


def check_hierarchy(parents, users):
    problems = [f"account {a}: its parent {p} is not listed" for a, p in sorted(parents.items())
                if p != "root" and p not in parents]
    for account in sorted(parents):
        seen, at = set(), account
        while at in parents and at not in seen:
            seen.add(at)
            at = parents[at]
        if at in seen:
            problems.append(f"account {account}: its parents form a cycle that never reaches root")
    problems += [f"user {u}: their account {a} is not listed" for a in sorted(users)
                 if a != "root" and a not in parents for u, _ in sorted(users[a])]
    if problems:
        sys.exit("\n".join("tree_from_sacctmgr: " + p for p in problems))


def main():
    parents, account_shares, users = {}, {}, {}
    for number, line in enumerate(sys.stdin, 1):
        fields = line.rstrip("\n").split("|")
        if len(fields) != 4:
            sys.exit(f"tree_from_sacctmgr: line {number}: expected Account|ParentName|User|Fairshare, got {line!r}")
        account, parent, user, fairshare = fields
        if user:
            users.setdefault(account, []).append((user, fairshare))
        elif account != "root":
            if account in parents:
                sys.exit(f"tree_from_sacctmgr: line {number}: account {account} listed twice "
                         "(several clusters? add where cluster=NAME)")
            parents[account] = parent
            account_shares[account] = fairshare
    check_hierarchy(parents, users)

    def subtree(account):
        children = [subtree(a) for a in sorted(parents) if parents[a] == account]
        children += [{"name": node_name(u), "share": int(s), "user": u}
                     for u, s in sorted(users.get(account, [])) if s.isdigit()]
        node = {"name": node_name(account), "share": share(account_shares[account], account),
                "account": account}
        if children:
            node["children"] = children
        return node

    top = [subtree(a) for a in sorted(parents) if parents[a] == "root"]
    if not top:
        sys.exit("tree_from_sacctmgr: no account under root in the input")
    json.dump({"name": "cluster", "children": top}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
