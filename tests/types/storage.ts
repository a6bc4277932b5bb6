// The session-log storage declarations (pkg-template/index.d.ts), compiled by
// `tsc -p tests/types`: usable with precise types, and misuse is a type error.
import {
  durableObjectStorage,
  faultyStorage,
  indexedDbStorage,
  nodeFileStorage,
  StorageError,
  type AppendResult,
  type DurableObjectSqlStorage,
  type LoadedLog,
  type SessionStorage,
  type StorageDiagnostic,
  type StorageErrorCode,
} from 'contextview';

async function use(doStorage: DurableObjectSqlStorage): Promise<void> {
  const file = nodeFileStorage('/tmp/log.jsonl');
  const idb = indexedDbStorage('log', { indexedDB });
  const dobj = durableObjectStorage(doStorage, { log: 'session-1' });
  const all: SessionStorage[] = [file, idb, dobj];
  const loaded: LoadedLog = await all[0].load();
  const text: string = loaded.text;
  const codes: StorageDiagnostic['code'][] = loaded.diagnostics.map((d) => d.code);
  const r: AppendResult = await file.append(['{"seq":1}']);
  const counts: number = r.written + r.duplicates;
  const where: string = file.path + idb.name + dobj.log;
  const read: number = file.bytesRead;
  void read;
  idb.close();

  const faulty = faultyStorage(file, ['write_failure', { fault: 'torn_write', keepFraction: 0.3 }, null]);
  faulty.plan.push('lost_ack');
  const inner: typeof file = faulty.inner;
  const crashed: boolean = faulty.crashed;
  const first = faulty.injected[0]?.results[0];
  if (first?.ok) void first.value.written;

  try {
    await faulty.append([]);
  } catch (e) {
    if (e instanceof StorageError) {
      const code: StorageErrorCode = e.code;
      void code;
    }
  }

  // @ts-expect-error an unknown fault
  faultyStorage(file, ['disk_on_fire']);
  // @ts-expect-error lines are strings
  await file.append([{ seq: 1 }]);
  // @ts-expect-error the log name is a string
  durableObjectStorage(doStorage, { log: 1 });
  // @ts-expect-error not a StorageErrorCode
  new StorageError('oops', 'message');

  void text, codes, counts, where, inner, crashed;
}

void use;
