// A vitest pool of worker threads that outlive a run (suite-session.ts): vitest's own 'threads' pool
// ends every worker when a run's queue is empty, so each run would start a thread and load the
// suite's modules again (the OpenAPI document, its compiled validators: ~0.5 s of CPU). Here a
// thread that finished its files cleanly is kept, idle, and the next run of the same vitest instance
// takes it: the module runner in it keeps every module it evaluated, and vitest re-evaluates the
// test files of each run (and the files the run invalidates) itself.
import { Worker } from 'node:worker_threads';
import path from 'node:path';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker } from 'vitest/node';

type Listener = (arg: any) => void;

/** The threads one vitest instance keeps between its runs. */
export class KeptThreads {
  private idle: Worker[] = [];
  /** The list of files to invalidate each thread applied last (kept-thread-worker's send). */
  readonly invalidated = new WeakMap<Worker, unknown>();
  private closed = false;
  /** Threads started so far (a kept one taken again is not counted). */
  started = 0;

  /** The pool to give vitest (`pool:` of its configuration). */
  readonly pool: PoolRunnerInitializer = {
    name: 'conformance-kept-threads',
    createPoolWorker: (options) => new KeptThreadWorker(this, options),
  };

  take(): Worker | undefined {
    return this.idle.pop();
  }

  /** A thread back from a run that ended cleanly; after close() it ends instead. */
  keep(thread: Worker): void {
    if (this.closed) return void thread.terminate();
    this.idle.push(thread);
    // a thread that ends while idle is not handed out again
    thread.once('exit', () => (this.idle = this.idle.filter((t) => t !== thread)));
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.idle.splice(0);
    await Promise.all(threads.map((t) => t.terminate()));
  }
}

/**
 * One vitest pool worker over a kept thread. The thread is set up once ('start'); vitest's 'stop'
 * at the end of a run is answered here without reaching the thread, which goes back to the keeper
 * — unless it is in the middle of a file (a cancelled or timed-out run): then it ends, as vitest's
 * own thread would.
 */
class KeptThreadWorker implements PoolWorker {
  readonly name = 'conformance-kept-threads';
  private thread?: Worker;
  private started = false;
  private busy = false;
  private stopRequested = false;
  /** vitest's 'stop' reached the thread (it was mid-file): it tore itself down and cannot be kept. */
  private stopForwarded = false;
  private listeners: Array<[string, Listener]> = [];
  private readonly entrypoint: string;

  constructor(
    private readonly keeper: KeptThreads,
    private readonly options: PoolOptions,
  ) {
    this.entrypoint = path.resolve(options.distPath, 'workers/threads.js');
  }

  private get t(): Worker {
    if (!this.thread) throw new Error('kept-threads: the worker thread is not running');
    return this.thread;
  }

  on(event: string, cb: Listener): void {
    this.listeners.push([event, cb]);
    this.t.on(event, cb);
  }

  off(event: string, cb: Listener): void {
    this.listeners = this.listeners.filter(([e, l]) => e !== event || l !== cb);
    this.t.off(event, cb);
  }

  /** Answers as the thread would (a message to this worker's 'message' listeners). */
  private answer(type: 'started' | 'stopped'): void {
    const msg = { type, __vitest_worker_response__: true };
    setImmediate(() => {
      for (const [e, l] of [...this.listeners]) if (e === 'message') l(msg);
    });
  }

  send(message: any): void {
    if (message?.type === 'start' && this.started) return this.answer('started');
    if (message?.type === 'stop') {
      this.stopRequested = true;
      if (!this.busy) return this.answer('stopped');
      this.stopForwarded = true;
    }
    if (message?.type === 'run' || message?.type === 'collect') {
      this.busy = true;
      // vitest gives every file of a run the same list of files to invalidate: a thread applies
      // it before its first file of the run only, so that within a run its modules live on from
      // file to file as in a thread of vitest's own pool
      const inv = message.context?.invalidates;
      if (inv?.length && this.keeper.invalidated.get(this.t) === inv)
        message = { ...message, context: { ...message.context, invalidates: [] } };
      else if (inv) this.keeper.invalidated.set(this.t, inv);
    }
    this.t.postMessage(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    if (this.thread) return;
    const kept = this.keeper.take();
    this.started = kept !== undefined;
    if (!kept) this.keeper.started++;
    this.thread =
      kept ??
      new Worker(this.entrypoint, {
        env: this.options.env as NodeJS.ProcessEnv,
        execArgv: this.options.execArgv,
        stdout: true,
        stderr: true,
      });
    this.thread.removeAllListeners('exit');
    const logger = this.options.project.vitest.logger;
    for (const [from, to] of [
      [this.thread.stdout, logger.outputStream],
      [this.thread.stderr, logger.errorStream],
    ] as const) {
      to.setMaxListeners(to.getMaxListeners() + 1);
      from.pipe(to);
    }
    // the first 'started' and every 'testfileFinished' come from the thread itself
    this.on('message', this.track);
  }

  private readonly track = (msg: any): void => {
    if (msg?.type === 'started' && !msg.error) this.started = true;
    if (msg?.type === 'testfileFinished') this.busy = false;
  };

  async stop(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.thread = undefined;
    for (const [e, l] of this.listeners) thread.off(e, l);
    this.listeners = [];
    const logger = this.options.project.vitest.logger;
    for (const [from, to] of [
      [thread.stdout, logger.outputStream],
      [thread.stderr, logger.errorStream],
    ] as const) {
      from.unpipe(to);
      to.setMaxListeners(to.getMaxListeners() - 1);
    }
    // kept only when it finished its files and was set up; a thread stopped mid-file ends
    if (this.started && !this.busy && this.stopRequested && !this.stopForwarded) this.keeper.keep(thread);
    else await thread.terminate();
  }
}
