/**
 * Receipt signatures off the event loop. A signature with its EIP-191 keccak costs ~60 µs of CPU
 * with libsecp256k1 and ~200 µs with noble (bench/README.md); on a machine
 * with a core to spare, `svc serve` signs on worker threads while the loop serves other calls.
 *
 * Requests go round-robin to the workers; each answer is matched to its request by id. A
 * worker that dies fails its pending requests (the caller then signs inline: a receipt is never
 * skipped). In the compiled binary a worker is loaded from its own entrypoint of the build
 * (package.json "build": src/core/sign-worker.ts), which Bun resolves from the project root;
 * from source it is the file beside this one.
 */
import { workerEntry } from "./compiled.ts";
import type { SignAnswer, SignerChoice, SignRequest } from "./sign-worker.ts";

const WORKER = workerEntry("src/core/sign-worker.ts", new URL("./sign-worker.ts", import.meta.url));

interface Pending {
  resolve: (signature: string) => void;
  reject: (err: Error) => void;
  worker: Worker;
}

export class SigningPool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private turn = 0;
  private closed = false;

  /** `secp256k1`: the receipts.secp256k1 setting, so the threads sign with what the loop signs with. */
  constructor(
    readonly size: number,
    private readonly secp256k1 = "auto",
  ) {
    for (let i = 0; i < size; i++) this.workers.push(this.spawn());
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER);
    // Messages are handled in order: the choice is made before the first request.
    worker.postMessage({ use: this.secp256k1 } satisfies SignerChoice);
    worker.onmessage = (event: MessageEvent<SignAnswer>) => {
      const answer = event.data;
      const p = this.pending.get(answer.id);
      if (!p) return;
      this.pending.delete(answer.id);
      if ("signature" in answer) p.resolve(answer.signature);
      else p.reject(new Error(answer.error));
    };
    worker.onerror = (event) => this.fail(worker, new Error(`signing worker failed: ${event.message}`));
    // A worker must not keep `svc serve` alive once everything else has stopped.
    worker.unref();
    return worker;
  }

  private fail(worker: Worker, err: Error): void {
    for (const [id, p] of this.pending) {
      if (p.worker !== worker) continue;
      this.pending.delete(id);
      p.reject(err);
    }
    const i = this.workers.indexOf(worker);
    if (i >= 0 && !this.closed) this.workers[i] = this.spawn();
  }

  /** The EIP-191 signature of `message` with `key`, from a worker. */
  sign(key: Uint8Array, message: string): Promise<string> {
    if (this.closed) return Promise.reject(new Error("the signing pool is closed"));
    const worker = this.workers[this.turn++ % this.workers.length]!;
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker });
      worker.postMessage({ id, key, message } satisfies SignRequest);
    });
  }

  /** Resolves once every worker has signed a probe (throws when a worker cannot load). */
  async ready(): Promise<void> {
    const key = new Uint8Array(32).fill(7);
    await Promise.all(this.workers.map(() => this.sign(key, "svc signing pool probe")));
  }

  close(): void {
    this.closed = true;
    for (const w of this.workers) w.terminate();
    for (const [, p] of this.pending) p.reject(new Error("the signing pool is closed"));
    this.pending.clear();
  }
}
