/**
 * Session workspaces: files kept across execs, the files API (paths, the 8 MiB write cap,
 * listing), quotas (tmpfs and watched plain directories) and snapshots.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  FileTooLargeError,
  InvalidRunSpecError,
  MAX_FILE_WRITE_BYTES,
  WorkspacePathError,
  WorkspaceQuotaError,
  parseWorkspacePath,
} from "../../../src/domains/sandboxes/runner/index.ts";
import { decode, plainWorkspace, sandboxRunner } from "../../support/sandbox-runner.ts";

const { ready, root } = sandboxRunner();
const enc = new TextEncoder();

async function pathError(p: Promise<unknown>): Promise<WorkspacePathError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkspacePathError);
  return err as WorkspacePathError;
}

describe("sessions", () => {
  test("files persist across execs; each exec is a fresh sandbox (no process of an earlier exec is in it)", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    try {
      const first = await runner.run({ language: "bash", code: "echo one > notes.txt; (sleep 30 &) ; echo $$", workspaceDir: ws.dir });
      expect(first.status).toBe("ok");
      const second = await runner.run({ language: "bash", code: "cat notes.txt; ps -e -o comm= | grep -c sleep || true", workspaceDir: ws.dir });
      expect(second.status).toBe("ok");
      expect(second.stdout).toBe("one\n0\n");
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
    expect(existsSync(ws.dir)).toBe(false);
  });

  test("files given with a session exec are written into the workspace first", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    try {
      const r = await runner.run({ language: "python", code: "import helper\nprint(helper.X)", files: { "helper.py": "X = 42\n" }, workspaceDir: ws.dir });
      expect(r.stdout).toBe("42\n");
      expect(decode(await runner.files(ws.dir).read("helper.py"))).toBe("X = 42\n");
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });

  test("the files API and the program see the same files", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    const files = runner.files(ws.dir);
    try {
      await files.write("in/data.txt", enc.encode("from api"));
      const r = await runner.run({ language: "bash", code: "cat in/data.txt; echo -n from-code > in/out.txt; mkdir -p deep/er", workspaceDir: ws.dir });
      expect(r.stdout).toBe("from api");
      expect(decode(await files.read("in/out.txt"))).toBe("from-code");
      // The program may change what the API wrote: both belong to the sandbox uid.
      const edit = await runner.run({ language: "bash", code: "echo changed > in/data.txt && cat in/data.txt", workspaceDir: ws.dir });
      expect(edit.stdout).toBe("changed\n");
      expect(await files.list()).toEqual([
        { name: "deep", type: "directory", size: 0 },
        { name: "in", type: "directory", size: 0 },
      ]);
      expect(await files.list("in")).toEqual([
        { name: "data.txt", type: "file", size: 8 },
        { name: "out.txt", type: "file", size: 9 },
      ]);
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });
});

describe("workspace roots", () => {
  test("runs, the files API and removal accept only directories under the workspace root", async () => {
    const runner = await ready;
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "s");
    for (const dir of [outside, "/etc", join(root, "workspaces"), join(root, "workspaces", ".svc-etc"), join(root, "workspaces", "..", "outside")]) {
      await expect(runner.run({ language: "bash", code: "true", workspaceDir: dir })).rejects.toBeInstanceOf(InvalidRunSpecError);
      await expect(runner.files(dir).read("secret.txt")).rejects.toBeInstanceOf(InvalidRunSpecError);
      await expect(runner.files(dir).list()).rejects.toBeInstanceOf(InvalidRunSpecError);
      await expect(runner.removeWorkspace(dir)).rejects.toBeInstanceOf(InvalidRunSpecError);
    }
    // A symlink under the root that points outside is resolved first, and refused.
    symlinkSync(outside, join(root, "workspaces", "link"));
    await expect(runner.run({ language: "bash", code: "true", workspaceDir: join(root, "workspaces", "link") })).rejects.toBeInstanceOf(InvalidRunSpecError);
    await expect(runner.files(join(root, "workspaces", "link")).read("secret.txt")).rejects.toBeInstanceOf(InvalidRunSpecError);
    expect(existsSync(join(outside, "secret.txt"))).toBe(true);
    expect(lstatSync(outside).uid).toBe(process.getuid!());
  });
});

describe("workspace paths", () => {
  test("parse: relative names only", () => {
    expect(parseWorkspacePath("a//b/./c/")).toEqual(["a", "b", "c"]);
    expect(parseWorkspacePath("")).toEqual([]);
    for (const bad of ["../x", "a/../../b", "/etc/passwd", "a\0b", "x/".repeat(3000)]) {
      expect(() => parseWorkspacePath(bad)).toThrow(WorkspacePathError);
    }
  });

  test("missing files, directories read as files, files used as directories", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    const files = runner.files(ws.dir);
    try {
      await files.write("f.txt", enc.encode("x"));
      await files.write("d/g.txt", enc.encode("y"));
      expect((await pathError(files.read("nope.txt"))).problem).toBe("not_found");
      expect((await pathError(files.read("nope.txt"))).status).toBe(404);
      expect((await pathError(files.read("d"))).problem).toBe("not_a_file");
      expect((await pathError(files.read("f.txt/x"))).problem).toBe("not_a_directory");
      expect((await pathError(files.write("f.txt/x", enc.encode("z")))).problem).toBe("not_a_directory");
      expect((await pathError(files.write("d", enc.encode("z")))).problem).toBe("not_a_file");
      expect((await pathError(files.list("f.txt"))).problem).toBe("not_a_directory");
      expect((await pathError(files.read("../etc/passwd"))).problem).toBe("invalid_path");
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });

  test("writes: exactly 8 MiB is accepted, one byte more is refused", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace(32 * 1024 * 1024);
    const files = runner.files(ws.dir);
    try {
      expect(MAX_FILE_WRITE_BYTES).toBe(8 * 1024 * 1024);
      const max = new Uint8Array(MAX_FILE_WRITE_BYTES).fill(97);
      await files.write("big.bin", max);
      expect((await files.read("big.bin")).byteLength).toBe(MAX_FILE_WRITE_BYTES);
      const err = await files.write("bigger.bin", new Uint8Array(MAX_FILE_WRITE_BYTES + 1)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FileTooLargeError);
      expect((err as FileTooLargeError).limitBytes).toBe(MAX_FILE_WRITE_BYTES);
      expect((err as FileTooLargeError).status).toBe(413);
      expect((await files.list()).map((e) => e.name)).toEqual(["big.bin"]);
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });

  test("a write replaces a file whole and leaves no temporary behind", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    const files = runner.files(ws.dir);
    try {
      await files.write("a.txt", enc.encode("long content"));
      await files.write("a.txt", enc.encode("short"));
      expect(decode(await files.read("a.txt"))).toBe("short");
      expect((await files.list()).map((e) => e.name)).toEqual(["a.txt"]);
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });
});

describe("quotas", () => {
  test("a tmpfs workspace stops writes at its quota, from the program and from the API", async () => {
    const runner = await ready;
    if (runner.posture().workspace_quota !== "tmpfs") return; // covered by the watched case below
    const ws = await runner.createWorkspace(2 * 1024 * 1024);
    try {
      const r = await runner.run({ language: "bash", code: "head -c 5000000 /dev/zero > fill.bin; echo rc=$?; stat -c %s fill.bin", workspaceDir: ws.dir });
      expect(r.stdout).toMatch(/^rc=1\n/);
      expect(Number(r.stdout.split("\n")[1])).toBeLessThanOrEqual(2 * 1024 * 1024);
      const err = await runner.files(ws.dir).write("more.bin", new Uint8Array(1024 * 1024)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkspaceQuotaError);
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });

  test("a plain-directory workspace is watched: a run that overfills it is killed", async () => {
    const runner = await ready;
    const dir = plainWorkspace(root, "plain-quota");
    const r = await runner.run({
      language: "bash",
      // Writes in 1 MiB steps well past the quota, then waits; the watch must stop it.
      code: "for i in $(seq 1 40); do head -c 1048576 /dev/zero > f$i.bin; done; sleep 20",
      workspaceDir: dir,
      limits: { workspaceBytes: 4 * 1024 * 1024 },
    });
    expect(r.status).toBe("killed");
    expect(r.killed_reason).toBe("workspace_quota");
    const err = await runner.files(dir, 4 * 1024 * 1024).write("x.bin", new Uint8Array(1024)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceQuotaError);
  });

  test("a run that ends over the quota between two measurements is still caught", async () => {
    const runner = await ready;
    const dir = plainWorkspace(root, "plain-quota-fast");
    const r = await runner.run({
      language: "bash",
      code: "head -c 3000000 /dev/zero > f.bin",
      workspaceDir: dir,
      limits: { workspaceBytes: 2 * 1024 * 1024 },
    });
    expect(r.status).toBe("killed");
    expect(r.killed_reason).toBe("workspace_quota");
  });
});

describe("snapshots", () => {
  test("a snapshot restores the workspace exactly as it was", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    const other = await runner.createWorkspace();
    const archive = join(root, "snap.tar.gz");
    try {
      const setup = await runner.run({
        language: "bash",
        code: "mkdir -p src && echo 'print(1)' > src/main.py && printf '\\x00\\x01bin' > data.bin && chmod 700 src/main.py && ln -s src/main.py link",
        workspaceDir: ws.dir,
      });
      expect(setup.status).toBe("ok");
      const { bytes } = await runner.snapshot(ws.dir, archive);
      expect(bytes).toBe(statSync(archive).size);
      expect((statSync(archive).mode & 0o777).toString(8)).toBe("600");
      // Restoring replaces what was there.
      await runner.files(other.dir).write("stale.txt", enc.encode("old"));
      await runner.restore(archive, other.dir);
      const check = await runner.run({ language: "bash", code: "ls -A; cat src/main.py; od -An -c data.bin; stat -c %a src/main.py; readlink link", workspaceDir: other.dir });
      expect(check.stdout).toBe("data.bin\nlink\nsrc\nprint(1)\n  \\0 001   b   i   n\n700\nsrc/main.py\n");
    } finally {
      await runner.removeWorkspace(ws.dir);
      await runner.removeWorkspace(other.dir);
    }
  });

  test("a snapshot never overwrites an existing file", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    const archive = join(root, "exists.tar.gz");
    writeFileSync(archive, "keep");
    try {
      await expect(runner.snapshot(ws.dir, archive)).rejects.toThrow();
      expect(readFileSync(archive, "utf8")).toBe("keep");
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });

  test("restoring an archive bigger than the quota fails with a quota error", async () => {
    const runner = await ready;
    if (runner.posture().workspace_quota !== "tmpfs") return;
    const big = await runner.createWorkspace(16 * 1024 * 1024);
    const small = await runner.createWorkspace(2 * 1024 * 1024);
    const archive = join(root, "big.tar.gz");
    try {
      await runner.run({ language: "bash", code: "head -c 6000000 /dev/urandom > r.bin", workspaceDir: big.dir });
      await runner.snapshot(big.dir, archive);
      const err = await runner.restore(archive, small.dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkspaceQuotaError);
    } finally {
      await runner.removeWorkspace(big.dir);
      await runner.removeWorkspace(small.dir);
    }
  });

  test("workspaces are owned by the sandbox uid, tmpfs ones are mount points", async () => {
    const runner = await ready;
    const ws = await runner.createWorkspace();
    try {
      const st = lstatSync(ws.dir);
      if (process.getuid!() === 0) expect(st.uid).toBe(65534);
      expect((st.mode & 0o777).toString(8)).toBe("700");
      if (ws.quota === "tmpfs") expect(readFileSync("/proc/self/mounts", "utf8")).toContain(` ${ws.dir} tmpfs `);
    } finally {
      await runner.removeWorkspace(ws.dir);
    }
  });
});
