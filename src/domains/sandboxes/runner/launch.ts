/**
 * The command line that starts one sandbox, outermost first:
 *
 *   [sh: join the run's cgroups]     as the gateway's user, before anything untrusted runs,
 *                                    so every later process is born inside them (no race);
 *   prlimit --cpu --as --fsize --nofile --core
 *                                    rlimits inherited by bwrap and everything below it;
 *   [setpriv --reuid --regid ...]    only when the gateway is root: bwrap itself then runs
 *                                    unprivileged, and the sandbox's uid on the host is the
 *                                    sandbox uid, not root (RLIMIT_NPROC never binds root);
 *   bwrap --args FD                  namespaces and mounts (sandbox-args.ts);
 *   sh (inner prelude)               inside the sandbox: sets RLIMIT_NPROC, reports "started",
 *                                    closes the report descriptor, execs the program.
 *
 * Every step execs the next, so the PID the gateway holds is bwrap's, and killing it tears the
 * whole sandbox down (its PID 1 dies with it, and with it the PID namespace).
 *
 * RLIMIT_NPROC is set inside the sandbox on purpose: the kernel counts it per user namespace
 * and uid, and caps each namespace's count by the creator's RLIMIT_NPROC too. Set on bwrap, it
 * would cap the sum over all concurrent sandboxes of the sandbox uid; set inside, it caps this
 * sandbox alone.
 */
import type { Limits } from "./limits.ts";

export interface HostTools {
  sh: string;
  prlimit: string;
  setpriv: string | null;
  bwrap: string;
}

/** The descriptor the inner prelude writes its "started" byte to. */
export const STARTED_FD = 3;
/** The descriptor bwrap reads its options from. */
export const ARGS_FD = 4;

/** Exit status of the outer prelude when it cannot join a cgroup. */
export const JOIN_FAILED = 125;

// `unset PWD`: dash exports PWD even from an empty environment, and whatever this shell
// exports ends up in bwrap's PID 1, readable inside as /proc/1/environ.
const JOIN_SCRIPT = `while [ "$1" != -- ]; do echo $$ > "$1" || exit ${JOIN_FAILED}; shift; done; shift; unset PWD; exec "$@"`;

/**
 * dash spells RLIMIT_NPROC `ulimit -p`, bash and busybox `ulimit -u`; trying -u first is safe
 * because dash rejects it instead of misreading it. The runner verifies at start, from inside
 * a sandbox, that the limit took.
 */
const INNER_SCRIPT = `{ ulimit -u "$0" 2>/dev/null || ulimit -p "$0"; } && printf s >&${STARTED_FD} && exec ${STARTED_FD}>&- && exec "$@"`;

export interface LaunchPlan {
  tools: HostTools;
  limits: Limits;
  addressSpaceBytes: number;
  /** Host uid/gid to drop to before bwrap; null when the gateway is not root. */
  dropTo: { uid: number; gid: number } | null;
  cgroupProcsFiles: string[];
  program: string[];
}

export function launchArgv(plan: LaunchPlan): string[] {
  const { tools, limits } = plan;
  const argv: string[] = [];
  if (plan.cgroupProcsFiles.length > 0) argv.push(tools.sh, "-c", JOIN_SCRIPT, "svc-sandbox-join", ...plan.cgroupProcsFiles, "--");
  const cpuSecs = Math.max(1, Math.ceil(limits.cpuMs / 1000));
  argv.push(
    tools.prlimit,
    // Soft: SIGXCPU; hard one second later: SIGKILL, for a program that handles SIGXCPU.
    `--cpu=${cpuSecs}:${cpuSecs + 1}`,
    `--as=${plan.addressSpaceBytes}`,
    `--fsize=${limits.fileSizeBytes}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
    "--",
  );
  if (plan.dropTo) {
    if (!tools.setpriv) throw new Error("setpriv is required when the gateway runs as root");
    argv.push(
      tools.setpriv,
      `--reuid=${plan.dropTo.uid}`,
      `--regid=${plan.dropTo.gid}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
    );
  }
  argv.push(tools.bwrap, "--args", String(ARGS_FD), "/bin/sh", "-c", INNER_SCRIPT, String(limits.processes), ...plan.program);
  return argv;
}
