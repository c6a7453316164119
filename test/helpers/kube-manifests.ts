/**
 * deploy/kubernetes rendered and checked here, offline (issue 38, point 6):
 * - `render(dir)`: `kubectl kustomize` (kubectl's own kustomize, as an operator runs it), parsed as
 *   Kubernetes reads YAML (1.1: `0440` is octal);
 * - `schemaProblems(objects)`: each object against the Kubernetes API's OpenAPI schemas, as the
 *   `kubernetes-models` package compiles them (Kubernetes 1.34's API; the Prometheus Operator's
 *   CRDs from `@kubernetes-models/prometheus-operator`): types, required fields, enums, formats;
 * - and, since those schemas allow fields they do not name (as the API server's non-strict
 *   decoding does), every object is also type-checked as an object literal of the package's
 *   TypeScript interface of its kind, whose excess-property check rejects a field the API does not
 *   have (a misspelt `readinesProbe` would otherwise be dropped in silence, as `kubectl apply`
 *   without `--validate=strict` does): the strictness of `kubeconform -strict`, offline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');

/** A rendered Kubernetes object, as parsed. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are read field by field by the assertions.
  spec?: any;
  data?: Record<string, string>;
  [key: string]: unknown;
}

/** `kubectl kustomize <dir>` (a path in the repository, or absolute), parsed. */
export async function render(dir: string): Promise<KubeObject[]> {
  const { stdout } = await run('kubectl', ['kustomize', resolve(ROOT, dir)], { maxBuffer: 16 << 20 });
  return parseKube(stdout);
}

/** YAML as Kubernetes reads it (sigs.k8s.io/yaml: YAML 1.1). */
export function parseKube(text: string): KubeObject[] {
  return parseAllDocuments(text, { version: '1.1' })
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(doc.errors.map((e) => e.message).join('\n'));
      return doc.toJS() as KubeObject | null;
    })
    .filter((o): o is KubeObject => o !== null);
}

/** The kubernetes-models module and class of an apiVersion/kind. */
function modelOf(object: KubeObject): { module: string; name: string } {
  const [group, version] = object.apiVersion.includes('/')
    ? (object.apiVersion.split('/') as [string, string])
    : ['', object.apiVersion];
  if (group === 'monitoring.coreos.com')
    return {
      module: `@kubernetes-models/prometheus-operator/${group}/${version}/${object.kind}`,
      name: object.kind,
    };
  return {
    module: `kubernetes-models/${group ? `${group}/` : ''}${version}/${object.kind}`,
    name: object.kind,
  };
}

/** Schema problems of each object ("Kind/name: …"); empty when every object is valid. */
export async function schemaProblems(objects: readonly KubeObject[]): Promise<string[]> {
  const problems: string[] = [];
  for (const object of objects) {
    const { module, name } = modelOf(object);
    const where = `${object.kind}/${object.metadata?.name}`;
    let Model: new (data: unknown) => { validate(): void };
    try {
      Model = (await import(module))[name];
    } catch {
      problems.push(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  problems.push(...unknownFields(objects));
  return problems;
}

/**
 * Fields the API does not have: each object as an object literal typed with its kind's interface
 * (`I<Kind>`), checked by the TypeScript compiler; one problem per excess property or wrong type.
 */
function unknownFields(objects: readonly KubeObject[]): string[] {
  const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/kube-manifests-'));
  try {
    const lines: string[] = [];
    objects.forEach((object, i) => {
      const { module, name } = modelOf(object);
      lines.push(`import type { I${name} as T${i} } from '${module}';`);
      lines.push(`// ${object.kind}/${object.metadata?.name}`);
      lines.push(`export const o${i}: T${i} = ${JSON.stringify(object, null, 1)};`);
    });
    const file = join(dir, 'manifests.ts');
    writeFileSync(file, lines.join('\n'));
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const source = program.getSourceFile(file);
    return ts.getPreEmitDiagnostics(program, source).map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
      if (!d.file || d.start === undefined) return text;
      // The comment above the object's declaration names it.
      const before = d.file.text.slice(0, d.start);
      const named = before.slice(before.lastIndexOf('\n// ') + 4).split('\n')[0];
      return `${named}: ${text}`;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
