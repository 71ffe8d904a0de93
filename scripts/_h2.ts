import { readFileSync } from 'node:fs';
import proto from '@temporalio/proto';

const { temporal } = proto;
const h = temporal.api.history.v1.History.decode(readFileSync(process.argv[2]!));
for (const e of h.events ?? []) {
  const type = temporal.api.enums.v1.EventType[e.eventType as number]!.replace('EVENT_TYPE_', '');
  const size = temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
  let extra = '';
  const a = e.activityTaskScheduledEventAttributes;
  if (a) extra = `${a.activityType?.name} input=${a.input?.payloads?.[0]?.data?.length}`;
  const c = e.activityTaskCompletedEventAttributes;
  if (c) extra = `result=${c.result?.payloads?.[0]?.data?.length}`;
  const m = e.markerRecordedEventAttributes;
  if (m) extra = m.markerName ?? '';
  console.log(String(e.eventId), type, size, extra);
  if (process.argv[3] && a && a.activityType?.name === 'infer')
    console.log(Buffer.from(a.input!.payloads![0]!.data!).toString().slice(0, 3000));
  if (process.argv[3] && c) console.log(Buffer.from(c.result!.payloads![0]!.data!).toString().slice(0, 1500));
}
