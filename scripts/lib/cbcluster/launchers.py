"""Running MPI jobs across the virtual hosts. Both launchers run *inside* host 0 (MPICH's
proxies and Open MPI's daemons call back to the launcher's address, which must be on the
cluster's network) and reach the other hosts through an ssh-compatible agent that enters
the target host's namespaces instead of logging in.

Three rules make the hosts real hosts:
- the transports are forced onto the network: UCX_TLS=tcp (UCX finds shared memory across
  namespaces otherwise) and Open MPI's tcp BTL without vader;
- everything is steered to the cluster's interface (Open MPI oob/btl, MPICH -iface,
  UCX_NET_DEVICES);
- nothing is bound to a CPU: every virtual host shares the same physical cores, and Open
  MPI's default binding puts each host's rank on *its* core 0, so ranks time-share one core
  (4 ms per message, measured)."""

import json
import os

from cbresults.launch import LAUNCHERS, steering_args

from .namespaces import IFACE


def agent_path(state_dir):
    return os.path.join(state_dir, "rsh")


def hostfile_path(state_dir, flavor):
    return os.path.join(state_dir, "hosts.%s" % flavor)


def write_files(state_dir, hosts):
    """The agent and one hostfile per launcher. Hostfiles name hosts by address (no
    /etc/hosts entries are needed); the agent accepts an address or a hostname."""
    cases = "\n".join('  %s|%s) ns=%s; uts=%s ;;' % (h["address"], h["hostname"], h["netns"],
                                                     h["uts"]) for h in hosts)
    agent = """#!/bin/sh
# ssh-compatible launcher agent of virtual cluster %(dir)s (written by scripts/vcluster):
#   rsh [ssh options] [user@]HOST COMMAND...  runs COMMAND inside HOST's namespaces.
while [ $# -gt 0 ]; do
  case "$1" in
    -o|-p|-l|-i|-F|-E|-b|-c|-m|-e) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "vcluster rsh: no host" >&2; exit 255; }
host=${1#*@}; shift
case "$host" in
%(cases)s
  *) echo "vcluster rsh: '$host' is not a host of this cluster" >&2; exit 255 ;;
esac
exec nsenter --net=/run/netns/"$ns" --uts="$uts" -- /bin/sh -c "$*"
""" % {"dir": state_dir, "cases": cases}
    path = agent_path(state_dir)
    with open(path, "w") as f:
        f.write(agent)
    os.chmod(path, 0o755)
    # Open MPI: map-by node spreads ranks round robin; slots only bound the total.
    with open(hostfile_path(state_dir, "openmpi"), "w") as f:
        f.writelines("%s slots=64\n" % h["address"] for h in hosts)
    # Hydra: ':1' places one rank per host per round, so ranks spread round robin too.
    with open(hostfile_path(state_dir, "mpich"), "w") as f:
        f.writelines("%s:1\n" % h["address"] for h in hosts)


# Open MPI on virtual hosts (MCA parameter, value): the tcp BTL without shared memory
# (namespaces share /dev/shm, real hosts do not) and no CPU binding (the hosts share this
# machine's cores). mpirun passes them as --mca; a Slurm job gets them as OMPI_MCA_*.
OPENMPI_HOST_MCA = (("btl", "tcp,self"), ("hwloc_base_binding_policy", "none"))


def openmpi_host_env():
    """OPENMPI_HOST_MCA as environment variables, for launchers other than our mpirun
    (srun, or Open MPI's mpirun inside a Slurm allocation)."""
    return {"OMPI_MCA_" + k: v for k, v in OPENMPI_HOST_MCA}


def link_env(state):
    """What every rank of a run over this cluster gets in its environment. COMMBENCH_LINK
    (the link model and, over the emulator, its measured own cost) lands in every sidecar:
    the binaries record COMMBENCH_* variables."""
    link = dict(state["link"])
    emu = state.get("emulator") or {}
    if emu.get("cost"):
        link["emulator_cost"] = emu["cost"]
    link["cluster"] = state["name"]
    link["hosts"] = len(state["hosts"])
    env = {"COMMBENCH_LINK": json.dumps(link, separators=(",", ":"), sort_keys=True),
           "COMMBENCH_INTERFACE": IFACE}
    # Respect a user's own transport choice; otherwise force UCX onto the network.
    if "UCX_TLS" not in os.environ:
        env["UCX_TLS"] = "tcp"
    if "UCX_NET_DEVICES" not in os.environ:
        env["UCX_NET_DEVICES"] = IFACE
    return env


def mpirun_argv(state_dir, state, flavor, launcher_args, cmd, nprocs=None):
    """The launcher command (to run inside host 0) and the extra environment."""
    if flavor not in LAUNCHERS:
        raise ValueError("launcher '%s': openmpi or mpich" % flavor)
    hosts = state["hosts"]
    env = link_env(state)
    has_np = any(a in ("-np", "-n", "--np", "-c") for a in launcher_args)
    np_args = [] if has_np else ["-np", str(nprocs or len(hosts))]
    agent = agent_path(state_dir)
    # Running as root is allowed through the environment (launch.mpi_env), as everywhere.
    if flavor == "openmpi":
        argv = [LAUNCHERS[flavor], "--oversubscribe", "--map-by", "node",
                "--hostfile", hostfile_path(state_dir, flavor), "--mca", "plm_rsh_agent", agent]
        for k, v in OPENMPI_HOST_MCA:
            argv += ["--mca", k, v]
        # A daemon on a host that is lost or cut off is noticed after at most 2 s idle +
        # 4 unanswered 1 s probes (Open MPI's default, 300 s + 9 x 20 s, left mpirun
        # waiting for it long after the ranks had failed); four probes, so that 5% loss
        # does not end a healthy job (two did).
        argv += ["--mca", "oob_tcp_keepalive_time", "2", "--mca", "oob_tcp_keepalive_intvl", "1",
                 "--mca", "oob_tcp_keepalive_probes", "4"]
        for k, v in sorted(env.items()):
            argv += ["-x", "%s=%s" % (k, v)]
    else:
        argv = [LAUNCHERS[flavor], "-launcher", "ssh", "-launcher-exec", agent,
                "-f", hostfile_path(state_dir, flavor)]
        for k, v in sorted(env.items()):
            argv += ["-genv", k, v]
    argv += steering_args(flavor, IFACE)
    return argv + np_args + list(launcher_args) + list(cmd), env
