// Following a session file while its agent writes it: a File System Access handle read again as
// it changes (`getFile()`), what the file gained imported incrementally (`IncrementalImport`),
// the log so far handed on after each change. Nothing here draws; the CLI's `import --follow`
// reads a file through it too (with a handle over Node's file system).

/** How many of the last bytes read are read again with what a file grew by, to tell a rewrite. */
const SEEN = 1024;

/**
 * Follows `handle` (a `FileSystemFileHandle`, or anything with `getFile()`): every `interval` ms,
 * what the file gained is imported — the bytes it grew by, or the whole file when its agent
 * rewrites it whole, it shrank or its last bytes read changed (it was rewritten), or its format is
 * not told yet. `onLog({log, added, rewound, report})`
 * gets what to show after each change — `log`: the log so far with the records the file may
 * still change (its last model turn) after it — and `added`, what the stored log gains (settled
 * records only: each request once); `report()` is the whole import's report, made when called.
 * `onError(e)` gets a read or import that failed (following goes on). Resolves, after the first
 * read, to `{stop()}`: stopping settles the pending records, and `onLog` gets them as `added`
 * (its `report()` gives the report while `onLog` runs, null after).
 */
export async function followFile(cv, handle, { interval = 1000, format = null, onLog, onError }) {
  const { IncrementalImport } = await cv.loadLazyModule();
  const follower = new IncrementalImport(format);
  let read = 0;
  let modified = -1;
  let log = '';
  let pending = '';
  let busy = false;
  let stopped = false;
  let decoder = new TextDecoder();
  // The last bytes read (up to SEEN of them).
  let seen = new Uint8Array(0);
  const report = () => (stopped ? null : follower.report());
  function gained(appended) {
    if (appended.log === '' && appended.pending === pending) return;
    log += appended.log;
    pending = appended.pending;
    onLog({ log: log + pending, added: appended.log, rewound: appended.rewound, report });
  }
  async function look() {
    if (busy || stopped) return;
    busy = true;
    try {
      const file = await handle.getFile();
      if (stopped || (file.size === read && file.lastModified === modified)) return;
      let appended;
      // What it grew by, read with the last bytes read before it: when those changed, the agent
      // rewrote the file (at its old size or larger), which is read whole again.
      const grown = follower.readsWhole || file.size < read ? null : new Uint8Array(await file.slice(read - seen.length).arrayBuffer());
      if (grown === null || !seen.every((b, i) => grown[i] === b)) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        if (stopped) return;
        // (A character the read cut in half waits for its next bytes, as with a push.)
        decoder = new TextDecoder();
        appended = follower.replace(decoder.decode(bytes, { stream: true }));
        seen = bytes.slice(-SEEN);
      } else {
        if (stopped) return;
        appended = follower.push(decoder.decode(grown.subarray(seen.length), { stream: true }));
        seen = grown.slice(-SEEN);
      }
      read = file.size;
      modified = file.lastModified;
      gained(appended);
    } catch (e) {
      onError(e);
    } finally {
      busy = false;
    }
  }
  await look();
  const timer = setInterval(look, interval);
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      // (Its report is made only if asked for while the follower lives: null once it is freed.)
      let freed = false;
      try {
        const rest = follower.settle();
        if (rest.log === '') return;
        log += rest.log;
        pending = '';
        onLog({ log, added: rest.log, rewound: false, report: () => (freed ? null : follower.report()) });
      } finally {
        freed = true;
        follower.free();
      }
    },
  };
}

/**
 * The inspector's following: `follow(handle, {interval, format})` reads the file and keeps
 * reading it — `opened(name, log, report)` when it first holds a request, `grew(log, report)`
 * each time after — and `unfollow()` stops. `state.following` is `{name, stop}` meanwhile; the
 * page's "Stop following" button (`#follow-stop`) shows while it lasts.
 */
export function followControls({ cv, $, state, setState, fail, publish, opened, grew }) {
  /**
   * Follows a file while its agent writes it (`handle`: a File System Access file handle, read
   * again every `interval` ms): the session opens at its first request and grows with the file.
   */
  async function follow(handle, { interval = 1000, format = null } = {}) {
    if (typeof handle?.getFile !== 'function') throw new cv.ContextviewTypeError('handle', '`handle` must be a file handle (with getFile())');
    unfollow();
    const name = handle.name ?? 'followed file';
    setState('busy', `following ${name}…`);
    let shown = false;
    let last = null;
    const following = await followFile(cv, handle, {
      interval,
      format,
      onLog: ({ log, report }) => {
        // (Stopping settles what was pending: the same log, nothing to draw again.)
        if (log === last) return;
        last = log;
        if (shown) return grew(log, report());
        shown = true;
        opened(name, log, report());
      },
      onError: (e) => fail(`following ${name}`, e),
    });
    state.following = { name, stop: following.stop };
    $('follow-stop').hidden = false;
    if (!shown) setState('ready', `following ${name}: no request yet`);
    publish();
  }

  function unfollow() {
    state.following?.stop();
    state.following = null;
    $('follow-stop').hidden = true;
    publish();
  }

  return { follow, unfollow };
}
