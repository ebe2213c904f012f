import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { errorHead, failuresOf } from './file-timings-reporter.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** The parts of a TestModule failuresOf reads: its id, project, own errors and tests' results. */
function fakeModule(
  file: string,
  errors: { message: string; stack?: string }[],
  tests: { fullName: string; state: string; errors?: { message: string; stack?: string }[] }[],
): TestModule {
  return {
    moduleId: join(ROOT, file),
    project: { name: 'int' },
    errors: () => errors,
    children: {
      allTests: () =>
        tests.map((t) => ({ fullName: t.fullName, result: () => ({ state: t.state, errors: t.errors }) })),
    },
  } as unknown as TestModule;
}

describe('the timings reporter: failures kept for the end of the log', () => {
  it('keeps an error to its first 12 lines, without colour codes, and says when it cut', () => {
    const stack = ['AssertionError: expected 1 to be 2', ...Array.from({ length: 20 }, (_, i) => `    at frame${i}`)];
    const head = errorHead({ name: 'AssertionError', message: 'expected 1 to be 2', stack: stack.join('\n') });
    expect(head.split('\n')).toEqual([...stack.slice(0, 12), '…']);
    expect(errorHead({ message: '\u001b[31mred\u001b[39m' })).toBe('red');
    // A stack that does not start with the error's name gets the name and message put first.
    expect(errorHead({ name: 'TimeoutError', message: 'late', stack: '    at x' })).toBe(
      'TimeoutError: late\n    at x',
    );
  });

  it('lists failed tests, errors outside a file’s tests and errors after the run; passed tests are not failures', () => {
    const modules = [
      fakeModule(
        'services/a/a.int.spec.ts',
        [],
        [
          { fullName: 'a › passes', state: 'passed' },
          { fullName: 'a › fails', state: 'failed', errors: [{ message: 'boom', stack: 'Error: boom\n    at a' }] },
        ],
      ),
      fakeModule('services/b/b.int.spec.ts', [{ message: 'hook timed out', stack: 'Error: hook timed out' }], []),
    ];
    expect(failuresOf(modules, [{ message: 'unhandled rejection', stack: 'Error: unhandled rejection' }])).toEqual([
      { file: 'services/a/a.int.spec.ts', project: 'int', test: 'a › fails', error: 'Error: boom\n    at a' },
      { file: 'services/b/b.int.spec.ts', project: 'int', error: 'Error: hook timed out' },
      { error: 'Error: unhandled rejection' },
    ]);
    expect(failuresOf([fakeModule('c.int.spec.ts', [], [{ fullName: 'c', state: 'passed' }])], [])).toEqual([]);
  });
});
