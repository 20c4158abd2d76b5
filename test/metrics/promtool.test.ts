/**
 * The metrics endpoint passes Prometheus's own check of the exposition format and its naming rules
 * (`promtool check metrics`, Debian's `prometheus` package): a real scrape of a router that has
 * issued a certificate, built a CRL, answered OCSP and refused a login — every family with samples —
 * and prom-client's default process metrics, which docs/operations/metrics.md says are served by default.
 */
import { spawnSync } from 'child_process';
import request from 'supertest';
import { API, issueThroughApi, opensslCsr, setupApi, type ApiFixture } from '../api/fixture';
import { describeWith } from '../helpers/binaries';
import { basicAuth } from '../helpers/http';

describeWith(['promtool'], 'promtool check metrics on a scrape', () => {
  let f: ApiFixture;

  beforeAll(async () => {
    f = await setupApi(undefined, { metrics: { enabled: true, eventPollMs: 0 } });
    const { csr } = opensslCsr('EC', 'promtool.example.com');
    await issueThroughApi(f, csr);
    expect((await request(f.app).get(`/django_ca/crl/${f.ca.serial}/`)).status).toBe(200);
    await request(f.app)
      .post(`/django_ca/ocsp/${f.ca.serial}/cert/`)
      .set('Content-Type', 'application/ocsp-request')
      .send(Buffer.from('x'));
    expect((await request(f.app).get(`${API}/ca/`).set('Authorization', basicAuth('alice', 'wrong'))).status).toBe(401);
  });

  afterAll(async () => {
    await f?.close();
  });

  test('the scrape, default process metrics included, passes promtool check metrics', async () => {
    const res = await request(f.app).get('/metrics');
    expect(res.status).toBe(200);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: res.text, encoding: 'utf8' });
    expect({ status: check.status, output: `${check.stdout}${check.stderr}` }).toEqual({ status: 0, output: '' });
    // What this test is about is in the scrape: the REST API's counts and prom-client's defaults.
    expect(res.text).toMatch(/^ca_api_certificates_issued_total\{.*\} 1$/m);
    expect(res.text).toMatch(/^ca_api_login_failures_total 1$/m);
    expect(res.text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
    // prom-client's gauges named like counters are left out; the per-type gauges they sum are served
    // (adapters/metrics/process-metrics.ts).
    expect(res.text).not.toMatch(/^nodejs_active_\w+_total/m);
    expect(res.text).toMatch(/^# TYPE nodejs_active_handles gauge$/m);
  });
});
