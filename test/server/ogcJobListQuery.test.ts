/**
 * The job list's query parameters as a job store filter: RFC 3339 date-times and intervals of `datetime`
 * (/req/job-list/datetime-definition), statuses, durations.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OgcError } from '../../src/server/errors.js';
import { createdBounds, jobListFilter, rfc3339Millis } from '../../src/server/ogc/jobListQuery.js';

const invalidQuery = (detail: RegExp) => (error: unknown) =>
  error instanceof OgcError && error.statusCode === 400 && /invalid-query-parameter-value$/.test(error.type) && detail.test(error.detail);

describe('job list query', () => {
  test('RFC 3339 date-times: offsets, lower case, a space, fractions beyond the millisecond, leap days and seconds', () => {
    const t = Date.parse('2024-03-01T12:00:00.000Z');
    assert.equal(rfc3339Millis('2024-03-01T12:00:00Z', 'floor'), t);
    assert.equal(rfc3339Millis('2024-03-01t12:00:00z', 'floor'), t);
    assert.equal(rfc3339Millis('2024-03-01 12:00:00Z', 'floor'), t);
    assert.equal(rfc3339Millis('2024-03-01T13:30:00+01:30', 'floor'), t);
    assert.equal(rfc3339Millis('2024-03-01T13:30:00 01:30', 'floor'), t, 'a + decoded as a space');
    assert.equal(rfc3339Millis('2024-03-01T10:00:00-02:00', 'floor'), t);
    assert.equal(rfc3339Millis('2024-03-01T12:00:00.5Z', 'floor'), t + 500);
    assert.equal(rfc3339Millis('2024-03-01T12:00:00.123456Z', 'floor'), t + 123);
    assert.equal(rfc3339Millis('2024-03-01T12:00:00.123456Z', 'ceil'), t + 124);
    assert.equal(rfc3339Millis('2024-03-01T12:00:00.123000Z', 'ceil'), t + 123);
    assert.equal(rfc3339Millis('2024-02-29T00:00:00Z', 'floor'), Date.parse('2024-02-29T00:00:00Z'));
    assert.equal(rfc3339Millis('2000-02-29T00:00:00Z', 'floor'), Date.parse('2000-02-29T00:00:00Z'));
    assert.equal(rfc3339Millis('2016-12-31T23:59:60Z', 'floor'), Date.parse('2017-01-01T00:00:00Z'));
    assert.equal(rfc3339Millis('0050-06-01T00:00:00Z', 'floor'), Date.parse('0050-06-01T00:00:00Z'));
    for (const bad of [
      '2024-03-01',
      '2024-03-01T12:00Z',
      '2024-03-01T12:00:00',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-03-01T24:00:00Z',
      '2024-03-01T12:60:00Z',
      '2024-03-01T12:00:61Z',
      '2024-03-01T12:00:00+24:00',
      '2024-03-01T12:00:00.Z',
      '1709294400',
      'now',
    ]) {
      assert.equal(rfc3339Millis(bad, 'floor'), null, bad);
    }
  });

  test('datetime: an instant, closed and half-open intervals, in the store form; bad values are 400', () => {
    assert.deepEqual(createdBounds('2024-03-01T12:00:00Z'), { createdFrom: '2024-03-01T12:00:00.000Z', createdTo: '2024-03-01T12:00:00.000Z' });
    assert.deepEqual(createdBounds('2024-03-01T00:00:00+02:00/2024-03-02T00:00:00Z'), {
      createdFrom: '2024-02-29T22:00:00.000Z',
      createdTo: '2024-03-02T00:00:00.000Z',
    });
    assert.deepEqual(createdBounds('../2024-03-02T00:00:00Z'), { createdTo: '2024-03-02T00:00:00.000Z' });
    assert.deepEqual(createdBounds('/2024-03-02T00:00:00Z'), { createdTo: '2024-03-02T00:00:00.000Z' });
    assert.deepEqual(createdBounds('2024-03-01T00:00:00Z/..'), { createdFrom: '2024-03-01T00:00:00.000Z' });
    assert.deepEqual(createdBounds('2024-03-01T00:00:00Z/'), { createdFrom: '2024-03-01T00:00:00.000Z' });
    // Sub-millisecond bounds round inwards: an instant between two milliseconds matches no job.
    assert.deepEqual(createdBounds('2024-03-01T00:00:00.0001Z/2024-03-01T00:00:01.9999Z'), {
      createdFrom: '2024-03-01T00:00:00.001Z',
      createdTo: '2024-03-01T00:00:01.999Z',
    });
    const between = createdBounds('2024-03-01T00:00:00.0005Z');
    assert.ok(between.createdFrom! > between.createdTo!);
    assert.throws(() => createdBounds('../..'), invalidQuery(/needs at least one end/));
    assert.throws(() => createdBounds('/'), invalidQuery(/needs at least one end/));
    assert.throws(() => createdBounds('2024-03-02T00:00:00Z/2024-03-01T00:00:00Z'), invalidQuery(/ends before it starts/));
    assert.throws(() => createdBounds('2024-03-01T00:00:00Z/2024-03-02T00:00:00Z/2024-03-03T00:00:00Z'), invalidQuery(/interval start\/end/));
    assert.throws(() => createdBounds('yesterday'), invalidQuery(/"yesterday" is not an RFC 3339 date-time/));
    assert.throws(() => createdBounds('2024-03-01/..'), invalidQuery(/"2024-03-01" is not an RFC 3339 date-time/));
  });

  test('statuses, processes and durations become the store filter; minDuration above maxDuration is 400', () => {
    assert.deepEqual(jobListFilter({}), {});
    assert.deepEqual(jobListFilter({ status: ['accepted', 'running', 'successful', 'failed', 'dismissed'], processID: ['sol'], type: ['process'] }), {
      workflowTypes: ['sol'],
      states: ['pending', 'running', 'completed', 'failed', 'cancelled'],
    });
    assert.deepEqual(jobListFilter({ minDuration: 5, maxDuration: 5, datetime: '2024-03-01T00:00:00Z/..' }), {
      createdFrom: '2024-03-01T00:00:00.000Z',
      minDurationSeconds: 5,
      maxDurationSeconds: 5,
    });
    assert.throws(() => jobListFilter({ minDuration: 6, maxDuration: 5 }), invalidQuery(/minDuration must not be greater than maxDuration/));
  });
});
