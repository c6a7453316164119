/**
 * deploy/kubernetes (issue 38, points 1, 2, 4, 5, 6): every overlay and job renders with kubectl's
 * kustomize, every object is valid against the Kubernetes API's schemas with no field the API does
 * not have (test/helpers/kube-manifests.ts), and the rendered manifests hold what the issue asks:
 * RollingUpdate that never drops below the replica count, ≥ 2 replicas spread over nodes, non-root
 * with a read-only root filesystem and nothing else writable but emptyDirs, every capability dropped,
 * RuntimeDefault seccomp, probes on /livez, /readyz as the app serves them, a PodDisruptionBudget that
 * keeps one replica, secrets only as files of the existing Secret, a NetworkPolicy open to DNS,
 * PostgreSQL, Redis and HTTPS only, the metrics port scraped, and a grace period that covers the
 * preStop pause and platdesk's own drain. The ConfigMap each overlay renders is loaded by the app's
 * own loadConfig, with its secret files in place. Running them is test/deploy/kube-play.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHART_RENDERER_DEFAULTS } from '../../src/charts/renderer.js';
import { loadConfig, SECRET_SETTINGS } from '../../src/config.js';
import { CUT_OFF_GRACE_MS, DRAIN_TIMEOUT_MS } from '../../src/shutdown.js';
import { type KubeObject, render, schemaProblems } from '../helpers/kube-manifests.js';

const ROOT = resolve(import.meta.dirname, '../..');
const OVERLAYS = ['overlays/http-mode', 'overlays/socket-mode', 'overlays/dev'] as const;
const JOBS = ['jobs/migrate', 'jobs/rotate-keys'] as const;
const SECRET_MOUNT = '/run/secrets/platdesk';
const MiB = 1024 * 1024;

type Rendered = Record<string, KubeObject[]>;
let rendered: Rendered;
let withServiceMonitor: KubeObject[];

/** The one object of a kind and name in a rendering (a generated ConfigMap's name has a hash suffix). */
function one(objects: KubeObject[], kind: string, name = 'platdesk'): KubeObject {
  const named = (o: KubeObject) =>
    o.metadata.name === name ||
    (kind === 'ConfigMap' && new RegExp(`^${name}-[a-z0-9]{10}$`).test(o.metadata.name));
  const found = objects.filter((o) => o.kind === kind && named(o));
  if (found.length !== 1) throw new Error(`${found.length} ${kind} named ${name}`);
  return found[0] as KubeObject;
}

/** Kubernetes quantities used here: 100m, 1, 256Mi, 1Gi. */
function quantity(q: string | number): number {
  const text = String(q);
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$/.exec(text);
  if (!m) throw new Error(`unexpected quantity ${text}`);
  const unit = { m: 1e-3, Ki: 1024, Mi: MiB, Gi: 1024 * MiB }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

beforeAll(async () => {
  // Kustomize takes relative paths only: the operator's overlay sits inside the repository.
  mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/platdesk-kustomize-'));
  try {
    // An operator's overlay that adds the ServiceMonitor component.
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${relative(dir, join(ROOT, 'deploy/kubernetes/overlays/socket-mode'))}`,
        'components:',
        `  - ${relative(dir, join(ROOT, 'deploy/kubernetes/components/service-monitor'))}`,
        '',
      ].join('\n'),
    );
    const all = await Promise.all([...OVERLAYS, ...JOBS].map((d) => render(`deploy/kubernetes/${d}`)));
    rendered = Object.fromEntries([...OVERLAYS, ...JOBS].map((d, i) => [d, all[i] ?? []]));
    withServiceMonitor = await render(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

describe('deploy/kubernetes renders and is valid', () => {
  it('every overlay and job renders, and every object is valid against the API schemas with no unknown field', async () => {
    const objects = [...Object.values(rendered).flat(), one(withServiceMonitor, 'ServiceMonitor')];
    expect(objects.length).toBeGreaterThan(20);
    expect(await schemaProblems(objects)).toEqual([]);
  }, 120_000);

  it('the validator catches what it should: a wrong type, a missing field, a misspelt one', async () => {
    const deployment = structuredClone(one(rendered['overlays/http-mode'] ?? [], 'Deployment'));
    deployment.spec.replicas = 'two';
    const container = deployment.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    const service = structuredClone(one(rendered['overlays/http-mode'] ?? [], 'Service'));
    delete service.spec.ports[0].port;
    const problems = (await schemaProblems([deployment, service])).join('\n');
    expect(problems).toContain('spec/replicas must be integer');
    expect(problems).toMatch(/'"readinesProbe"' does not exist in type 'IContainer'/);
    expect(problems).toMatch(/Service\/platdesk: .*port/);
  }, 120_000);
});

describe.each(OVERLAYS)('%s', (overlay) => {
  const objects = () => rendered[overlay] ?? [];
  const deployment = () => one(objects(), 'Deployment');
  const pod = () => deployment().spec.template;
  const container = () => pod().spec.containers.find((c: { name: string }) => c.name === 'platdesk');
  const settings = () => one(objects(), 'ConfigMap', 'platdesk-settings').data ?? {};

  it('rolls out without going below its replicas, ≥ 2 of them spread over nodes', () => {
    const spec = deployment().spec;
    expect(spec.replicas).toBeGreaterThanOrEqual(2);
    expect(spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    const spread = pod().spec.topologySpreadConstraints;
    expect(spread).toContainEqual(
      expect.objectContaining({
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: spec.selector.matchLabels },
      }),
    );
  });

  it('runs non-root with a read-only root filesystem, no capability, RuntimeDefault seccomp, no token, and writes only to emptyDirs', () => {
    const podSpec = pod().spec;
    expect(podSpec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(podSpec.securityContext.runAsUser).toBeGreaterThan(0);
    expect(podSpec.automountServiceAccountToken).toBe(false);
    expect(podSpec.enableServiceLinks).toBe(false);
    expect(container().securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    const volumes = new Map(podSpec.volumes.map((v: { name: string }) => [v.name, v]));
    for (const mount of container().volumeMounts) {
      const volume = volumes.get(mount.name) as Record<string, unknown>;
      if (mount.readOnly) expect(volume.secret ?? volume.configMap, mount.name).toBeDefined();
      else expect(Object.keys(volume).sort(), mount.name).toEqual(['emptyDir', 'name']);
    }
    expect(container().volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    expect(container().volumeMounts).toContainEqual({
      name: 'secrets',
      mountPath: SECRET_MOUNT,
      readOnly: true,
    });
    // The existing Secret, group-readable by the pod's fsGroup only.
    expect(volumes.get('secrets')).toEqual({
      name: 'secrets',
      secret: { secretName: 'platdesk', defaultMode: 0o440 },
    });
  });

  it('probes /livez (startup, liveness) and /readyz (readiness) on the port platdesk serves them', () => {
    const c = container();
    const http = c.ports.find((p: { name: string }) => p.name === 'http');
    expect(http.containerPort).toBe(Number(settings().PORT));
    expect(c.startupProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    // /readyz waits up to 1.5 s for the store's ping (src/http-server.ts): the probe waits longer.
    expect(c.readinessProbe.timeoutSeconds).toBeGreaterThanOrEqual(2);
    // Liveness gives a stalled process half a minute, never restarts it on one slow answer.
    expect(c.livenessProbe.periodSeconds * c.livenessProbe.failureThreshold).toBeGreaterThanOrEqual(30);
  });

  it('stops receiving traffic before it drains: preStop pause, then the drain, inside the grace period', () => {
    const c = container();
    const [cmd, seconds] = c.lifecycle.preStop.exec.command;
    expect(cmd).toBe('sleep');
    const pauseS = Number(seconds);
    // Endpoints and Ingress controllers take a few seconds to stop routing to a terminating pod.
    expect(pauseS).toBeGreaterThanOrEqual(5);
    const drainS = (DRAIN_TIMEOUT_MS + CUT_OFF_GRACE_MS) / 1000;
    // …and a few seconds to close the store, Redis and the sockets after the drain.
    expect(pod().spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pauseS + drainS + 5);
  });

  it('asks for resources and caps memory above the app heap plus the chart renderer bound', () => {
    const { requests, limits } = container().resources;
    for (const key of ['cpu', 'memory']) {
      expect(quantity(requests[key]), key).toBeGreaterThan(0);
      expect(quantity(limits[key]), key).toBeGreaterThanOrEqual(quantity(requests[key]));
    }
    const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    const heapMb = Number(/--max-old-space-size=(\d+)/.exec(start)?.[1]);
    expect(heapMb).toBeGreaterThan(0);
    expect(quantity(limits.memory)).toBeGreaterThanOrEqual(
      heapMb * MiB + CHART_RENDERER_DEFAULTS.maxRssBytes,
    );
  });

  it('keeps at least one replica through voluntary disruptions', () => {
    const pdb = one(objects(), 'PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(deployment().spec.selector.matchLabels);
    expect(deployment().spec.replicas - pdb.spec.maxUnavailable).toBeGreaterThanOrEqual(1);
    expect(pdb.spec.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
  });

  it('takes every secret from the existing Secret as a file, never as a value in the ConfigMap', () => {
    const data = settings();
    for (const name of SECRET_SETTINGS) {
      const file = data[`${name}_FILE`];
      if (file) expect(file, name).toMatch(new RegExp(`^${SECRET_MOUNT}/[a-z-]+$`));
      // dev: its in-cluster PostgreSQL and Redis URLs carry no password (PGPASSWORD from a Secret).
      if (data[name])
        expect(data[name], name).toMatch(/^(postgres|redis):\/\/[a-z-]*@?[a-z-]+:\d+(\/[a-z]+)?$/);
    }
    expect(container().env?.filter((e: { value?: string }) => e.value !== undefined) ?? []).toEqual([]);
  });

  it("settings that platdesk's own loadConfig accepts, in the mode the overlay names", () => {
    const dir = mkdtempSync(join(tmpdir(), 'platdesk-secret-files-'));
    try {
      const data = settings();
      const files: Record<string, string> = {
        'slack-bot-token': 'xoxb-test',
        'slack-app-token': 'xapp-test',
        'slack-signing-secret': 'signing',
        'plat-token': 'plat',
        'database-url': 'postgres://platdesk:pw@db:5432/platdesk',
        'redis-url': 'redis://redis:6379',
      };
      for (const [key, value] of Object.entries(files)) writeFileSync(join(dir, key), `${value}\n`);
      const env = Object.fromEntries(
        Object.entries(data).map(([k, v]) => [
          k,
          v.startsWith(`${SECRET_MOUNT}/`) ? join(dir, v.slice(SECRET_MOUNT.length)) : v,
        ]),
      );
      const config = loadConfig(env);
      expect(config.slack.mode).toBe(overlay === 'overlays/http-mode' ? 'http' : 'socket');
      expect(config.database.url).toMatch(/^postgres:\/\//);
      expect(config.redisUrl).toMatch(/^redis:\/\//);
      expect(config.port).toBe(3000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Service, scrape annotations and NetworkPolicy name the ports the pods have', () => {
    const labels = pod().metadata.labels;
    const ports = new Map(
      container().ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort]),
    );
    const service = one(objects(), 'Service');
    expect(labels).toMatchObject(service.spec.selector);
    for (const p of service.spec.ports) expect(ports.has(p.targetPort), p.targetPort).toBe(true);
    const annotations = pod().metadata.annotations;
    expect(annotations['prometheus.io/scrape']).toBe('true');
    expect(annotations['prometheus.io/path']).toBe('/metrics');
    expect(Number(annotations['prometheus.io/port'])).toBe(ports.get('metrics'));
    expect(Number(settings().METRICS_PORT)).toBe(ports.get('metrics'));
    expect(ports.get('metrics')).not.toBe(ports.get('http'));
  });

  it('NetworkPolicy: out only to DNS, PostgreSQL, Redis and HTTPS; in only to metrics (and HTTP mode’s port from the Ingress controller)', () => {
    const policy = one(objects(), 'NetworkPolicy');
    expect(pod().metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels);
    expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    const egressPorts = policy.spec.egress.flatMap(
      (rule: { ports?: { port: number; protocol: string }[] }) => {
        // A rule without ports would allow every port: none may be.
        expect(rule.ports?.length).toBeGreaterThan(0);
        return (rule.ports ?? []).map((p) => `${p.protocol}/${p.port}`);
      },
    );
    expect(egressPorts.sort()).toEqual(
      ['TCP/443', 'TCP/5432', 'TCP/53', 'TCP/6379', 'TCP/6380', 'UDP/53'].sort(),
    );
    const ingressPorts = policy.spec.ingress.flatMap(
      (rule: { from?: unknown[]; ports: { port: string }[] }) => {
        expect(rule.from?.length).toBeGreaterThan(0);
        return rule.ports.map((p) => p.port);
      },
    );
    expect(ingressPorts.sort()).toEqual(overlay === 'overlays/http-mode' ? ['http', 'metrics'] : ['metrics']);
  });
});

describe('overlay specifics', () => {
  it('http-mode: an Ingress with TLS for its host, routing /slack to the Service’s http port only', () => {
    const ingress = one(rendered['overlays/http-mode'] ?? [], 'Ingress');
    const [rule] = ingress.spec.rules;
    expect(ingress.spec.tls).toEqual([{ hosts: [rule.host], secretName: 'platdesk-tls' }]);
    expect(rule.http.paths).toEqual([
      {
        path: '/slack',
        pathType: 'Prefix',
        backend: { service: { name: 'platdesk', port: { name: 'http' } } },
      },
    ]);
    expect(rendered['overlays/socket-mode']?.some((o) => o.kind === 'Ingress')).toBe(false);
  });

  it('dev: PostgreSQL and Redis in the cluster, reachable only from platdesk’s pods, under the same pod security', () => {
    const objects = rendered['overlays/dev'] ?? [];
    for (const name of ['platdesk-postgres', 'platdesk-redis']) {
      const deployment = one(objects, 'Deployment', name);
      const podSpec = deployment.spec.template.spec;
      expect(podSpec.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(podSpec.containers[0].securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const policy = one(objects, 'NetworkPolicy', name);
      expect(policy.spec.ingress).toEqual([
        expect.objectContaining({
          from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'platdesk' } } }],
        }),
      ]);
      expect(policy.spec.egress).toBeUndefined();
      expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    }
    const settings = one(objects, 'ConfigMap', 'platdesk-settings').data ?? {};
    expect(settings.PLAT_SANDBOX).toBe('1');
    expect(
      one(objects, 'Namespace', 'platdesk-dev').metadata.labels?.['pod-security.kubernetes.io/enforce'],
    ).toBe('restricted');
  });

  it('service-monitor component: a ServiceMonitor on the Service’s metrics port', () => {
    const monitor = one(withServiceMonitor, 'ServiceMonitor');
    const service = one(withServiceMonitor, 'Service');
    expect(monitor.spec.selector.matchLabels).toEqual(
      service.metadata.labels && {
        'app.kubernetes.io/name': 'platdesk',
        'app.kubernetes.io/component': 'app',
      },
    );
    expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain(monitor.spec.endpoints[0].port);
  });

  it.each([
    ['jobs/migrate', ['node', 'dist/migrate.js'], ['DATABASE_URL_FILE']],
    [
      'jobs/rotate-keys',
      ['node', 'dist/rotate-keys.js'],
      ['DATABASE_URL_FILE', 'PLATDESK_ENCRYPTION_KEY_FILE'],
    ],
  ])(
    '%s: runs %j from the image under the app’s pod security, reading the Secret’s files',
    (dir, command, env) => {
      const job = one(rendered[dir] ?? [], 'Job', dir.replace('jobs/', 'platdesk-'));
      const podSpec = job.spec.template.spec;
      const [c] = podSpec.containers;
      expect(c.command).toEqual(command);
      expect(podSpec.restartPolicy).toBe('Never');
      expect(job.spec.template.metadata.labels['app.kubernetes.io/name']).toBe('platdesk');
      expect(podSpec.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.env.map((e: { name: string }) => e.name)).toEqual(env);
      for (const e of c.env) expect(e.value).toMatch(new RegExp(`^${SECRET_MOUNT}/`));
      // The same image as the app's Deployment.
      const app = one(rendered['overlays/http-mode'] ?? [], 'Deployment');
      expect(c.image).toBe(app.spec.template.spec.containers[0].image);
    },
  );
});
