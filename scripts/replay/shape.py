"""The shape a job takes on the cluster, as the simulator gives it
(ShapeFor in src/sim/cluster.h): one node if it fits in one, else the
fewest nodes with the GPUs spread evenly (rounded up). The replay submits
every job in this shape (sbatch -N, --gres=gpu:), so that both sides hold
the same GPUs for it, and counts busy GPUs by it."""


def shape_for(gpus, gpus_per_node):
    """(node_count, gpus_per_node) of a job of `gpus` GPUs."""
    if gpus <= gpus_per_node:
        return 1, gpus
    nodes = -(-gpus // gpus_per_node)
    return nodes, -(-gpus // nodes)


def held_gpus(gpus, gpus_per_node):
    """GPUs the job holds while it runs (>= gpus when they do not spread evenly)."""
    nodes, per_node = shape_for(gpus, gpus_per_node)
    return nodes * per_node
