// Checkpoints and sessions opened from a log's tail, as a host types them (compiled by
// `tsc -p tests/types`): every call typed precisely, misuse a type error.
import { Session, durableObjectStorage, openSession, type DurableObjectSqlStorage, type SessionSnapshot } from 'contextview';

async function use(doStorage: DurableObjectSqlStorage, log: string): Promise<void> {
  const session = Session.fromLog(log);
  session.setCheckpointEvery(4 << 20);
  session.setCheckpointEvery(null);
  const seq: number | null = session.checkpoint();
  const storage = durableObjectStorage(doStorage, { log: 'session-1' });
  const tail = await storage.loadTail();
  if (tail) {
    const { head, tail: lines, through }: { head: string; tail: string; through: number } = tail;
    const opened: Session | null = Session.fromTail(head, lines);
    if (opened && opened.needsHistory()) opened.provideHistory(await storage.loadHistory());
    void through;
  }
  session.setReleaseStored(true);
  const through: number | null = session.historyThrough();
  if (through !== null) session.provideHistory(await storage.loadHistory(through));
  const durable = await openSession(storage, { sessionId: 'session-1', releaseStored: false });
  const snapshot: SessionSnapshot = await durable.snapshot();
  void seq;
  void snapshot;
  // @ts-expect-error a size is a number
  session.setCheckpointEvery('4MB');
  // @ts-expect-error releasing is on or off
  session.setReleaseStored('yes');
  // @ts-expect-error a history ends at a seq
  await storage.loadHistory('7');
  // @ts-expect-error fromTail takes the header line and the tail
  Session.fromTail(log);
}
void use;
