import { describe, expect, it } from 'vitest';
import { describeAction, fieldValueText } from '../../../shared/core/action-text';
import { changeReason } from '../../../shared/core/plan';

const change = (field: string, from: unknown, to: unknown) => ({ field, from, to, reason: changeReason(field, from, to) });

describe('one line per action', () => {
  it('a field change reads old -> new: a null (absent) answer as (unset), strings bare, numbers and booleans as they are', () => {
    expect(
      describeAction({
        kind: 'UpdateBackend',
        backend: 'lb-backend-https',
        backendId: 'b-1',
        spec: {} as never,
        options: {},
        passthrough: {},
        changes: [change('maxConnections', undefined, 0), change('onMarkedDownAction', 'on_marked_down_action_none', 'shutdown_sessions')],
      }),
    ).toBe(
      'UpdateBackend lb-backend-https maxConnections: (unset) -> 0, onMarkedDownAction: on_marked_down_action_none -> shutdown_sessions',
    );
    expect(
      describeAction({
        kind: 'UpdateHealthCheck',
        backend: 'lb-backend-https',
        backendId: 'b-1',
        healthCheck: {} as never,
        changes: [
          change('healthCheck.type', 'tcp', 'http'),
          change('healthCheck.http.uri', undefined, '/healthz'),
          change('healthCheck.checkSendProxy', false, true),
        ],
      }),
    ).toBe(
      'UpdateHealthCheck lb-backend-https healthCheck.type: tcp -> http, healthCheck.http.uri: (unset) -> /healthz, healthCheck.checkSendProxy: false -> true',
    );
  });

  it.each([
    [undefined, '(unset)'],
    [null, '(unset)'],
    ['', '(unset)'],
    [0, '0'],
    ['GET', 'GET'],
    [false, 'false'],
  ])('fieldValueText(%j) = %s', (value, text) => {
    expect(fieldValueText(value)).toBe(text);
  });
});
