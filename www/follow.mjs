// Following a session file while its agent writes it: a File System Access handle read again as
// it changes (`getFile()`), what the file gained imported incrementally (`IncrementalImport`),
// the log so far handed on after each change. Nothing here draws; the CLI's `import --follow`
// reads a file through it too (with a handle over Node's file system).

/** Formats whose file the agent rewrites whole: read whole again each time it changes. */
const DOCUMENTS = ['cline', 'roo-code', 'kilo-code', 'opencode'];

function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Follows `handle` (a `FileSystemFileHandle`, or anything with `getFile()`): every `interval` ms,
 * what the file gained is imported — the bytes it grew by, or the whole file when its agent
 * rewrites it, it shrank, or its format is not told yet. `onLog({log, added, rewound, report})`
 * gets the log so far and what it gained after each change (`report()`: the whole import's
 * report, made when called); `onError(e)` a read or import that failed (following goes on).
 * Resolves, after the first read, to `{stop()}`.
 */
export async function followFile(cv, handle, { interval = 1000, format = null, onLog, onError }) {
  const { IncrementalImport } = await cv.loadLazyModule();
  const follower = new IncrementalImport(format);
  let read = 0;
  let modified = -1;
  let log = '';
  let whole = true;
  let busy = false;
  let stopped = false;
  let decoder = new TextDecoder();
  async function look() {
    if (busy || stopped) return;
    busy = true;
    try {
      const file = await handle.getFile();
      if (file.size === read && file.lastModified === modified) return;
      let appended;
      if (whole || file.size < read) {
        const text = await file.text();
        appended = follower.replace(text);
        decoder = new TextDecoder();
        const told = follower.format;
        // (A Gemini CLI recording is one JSON document up to v0.37, JSON Lines since.)
        whole = told === null || DOCUMENTS.includes(told) || (told === 'gemini-cli' && !isJson(text.trimStart().split('\n', 1)[0]));
      } else {
        appended = follower.push(decoder.decode(await file.slice(read).arrayBuffer(), { stream: true }));
      }
      read = file.size;
      modified = file.lastModified;
      if (appended.log === '' || stopped) return;
      log += appended.log;
      onLog({ log, added: appended.log, rewound: appended.rewound, report: () => follower.report() });
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
      stopped = true;
      clearInterval(timer);
      follower.free();
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
    const following = await followFile(cv, handle, {
      interval,
      format,
      onLog: ({ log, report }) => {
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
