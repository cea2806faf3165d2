import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors, ApiError, successStatus } from './api-error.ts';

const cm = { group: '', plural: 'configmaps' };
const sc = { group: 'storage.cluster.io', plural: 'storageclasses' };

describe('Status rendering', () => {
  const cases: [string, { err: ApiError; json: string }][] = [
    [
      'NotFound (core)',
      {
        err: ApiError.notFound(cm, 'x'),
        json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"x\\" not found","reason":"NotFound","details":{"name":"x","kind":"configmaps"},"code":404}',
      },
    ],
    [
      'AlreadyExists (group)',
      {
        err: ApiError.alreadyExists(sc, 'fast'),
        json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storageclasses.storage.cluster.io \\"fast\\" already exists","reason":"AlreadyExists","details":{"name":"fast","group":"storage.cluster.io","kind":"storageclasses"},"code":409}',
      },
    ],
    [
      'Conflict for a stale resourceVersion',
      {
        err: ApiError.staleConflict(cm, 'c'),
        json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \\"c\\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"c","kind":"configmaps"},"code":409}',
      },
    ],
    [
      'Invalid with one cause',
      {
        err: ApiError.invalid({ group: '', kind: 'ConfigMap' }, 'cfg', [{ field: 'data', reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set' }]),
        json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \\"cfg\\" is invalid: data: Forbidden: field is immutable when `immutable` is set","reason":"Invalid","details":{"name":"cfg","kind":"ConfigMap","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: field is immutable when `immutable` is set","field":"data"}]},"code":422}',
      },
    ],
    ['Unauthorized', { err: ApiError.unauthorized(), json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}' }],
    [
      'Forbidden without a name',
      { err: ApiError.forbidden(cm, '', 'nope'), json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps is forbidden: nope","reason":"Forbidden","details":{"kind":"configmaps"},"code":403}' },
    ],
    [
      'RequestEntityTooLarge',
      { err: ApiError.requestEntityTooLarge('limit is 3145728'), json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}' },
    ],
    [
      'InternalError',
      { err: ApiError.internal(new Error('boom')), json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}' },
    ],
    [
      'Invalid options',
      {
        err: ApiError.invalidOptions('DeleteOptions', [{ field: 'propagationPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "x": supported values: "Foreground", "Background", "Orphan", "nil"' }]),
        json: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"DeleteOptions.meta.cluster.io \\"\\" is invalid: propagationPolicy: Unsupported value: \\"x\\": supported values: \\"Foreground\\", \\"Background\\", \\"Orphan\\", \\"nil\\"","reason":"Invalid","details":{"group":"meta.cluster.io","kind":"DeleteOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \\"x\\": supported values: \\"Foreground\\", \\"Background\\", \\"Orphan\\", \\"nil\\"","field":"propagationPolicy"}]},"code":422}',
      },
    ],
  ];
  it.each(cases)('%s', (_n, { err, json }) => {
    expect(JSON.stringify(err.toStatus())).toBe(json);
  });

  it('renders a Success Status without a code', () => {
    expect(JSON.stringify(successStatus(cm, 'cfg', 'u1'))).toBe('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"cfg","kind":"configmaps","uid":"u1"}}');
  });
});

describe('field error aggregation', () => {
  const e = (field: string, message: string) => ({ field, reason: 'FieldValueInvalid' as const, message });
  it.each([
    ['one error prints bare', [e('a', 'Invalid value: 1: x')], 'a: Invalid value: 1: x'],
    ['several print in brackets', [e('a', 'm1'), e('b', 'm2')], '[a: m1, b: m2]'],
    ['identical texts are deduplicated', [e('a', 'm1'), e('a', 'm1')], 'a: m1'],
  ] as const)('%s', (_n, errs, want) => {
    expect(aggregateFieldErrors(errs)).toBe(want);
  });
});
