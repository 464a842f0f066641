import { crashed, portTaken, stopReason } from '../../scripts/stopReason';

describe('why a local service stopped', () => {
  const dump = [
    'time=2026-11-28T23:00:00Z level=WARN msg="dynamic config override"',
    'panic: listen tcp 127.0.0.1:41877: bind: address already in use',
    '',
    'goroutine 2431 [running]:',
    'google.golang.org/grpc.(*Server).Serve(0xc000a1c000, {0x0, 0x0})',
    '\t/home/runner/go/pkg/mod/google.golang.org/grpc@v1.83.2/server.go:913 +0x14c',
    'go.temporal.io/server/service/worker.(*Service).Start.func1()',
    '\t/home/runner/go/pkg/mod/go.temporal.io/server@v1.32.0/service/worker/service.go:281 +0x6b',
    'created by go.temporal.io/server/service/worker.(*Service).Start in goroutine 2429',
    '\t/home/runner/go/pkg/mod/go.temporal.io/server@v1.32.0/service/worker/service.go:279 +0x287',
  ].join('\n');

  test("a crash's cause is kept above its goroutine dump's last lines", () => {
    const reason = stopReason(dump);
    const lines = reason.split('\n');
    expect(lines[0]).toBe('panic: listen tcp 127.0.0.1:41877: bind: address already in use');
    expect(lines[1]).toBe('…');
    expect(lines.slice(2)).toEqual(dump.split('\n').slice(-5));
    expect(portTaken(reason)).toBe(true);
    expect(crashed(reason)).toBe(true);
  });

  test('a short log is given whole, with nothing added', () => {
    expect(stopReason('one\ntwo\n')).toBe('one\ntwo');
  });

  test('a log without a named cause gives its last lines only', () => {
    const log = Array.from({ length: 9 }, (_, i) => `line ${i}`).join('\n');
    expect(stopReason(log)).toBe('line 4\nline 5\nline 6\nline 7\nline 8');
    expect(portTaken(stopReason(log))).toBe(false);
    expect(crashed(stopReason(log))).toBe(false);
  });

  test('error lines of text and JSON logs count as causes; at most three are kept', () => {
    const log = [
      'level=ERROR msg="one"',
      '{"level":"error","msg":"two"}',
      'level=fatal msg="three"',
      'level=error msg="four"',
      ...Array.from({ length: 5 }, (_, i) => `frame ${i}`),
    ].join('\n');
    expect(stopReason(log).split('\n').slice(0, 4)).toEqual(['level=ERROR msg="one"', '{"level":"error","msg":"two"}', 'level=fatal msg="three"', '…']);
  });
});
