#!/usr/bin/env node
// File: gen-k8s-schema.mjs
//
// Regenerates src/apiserver/schema/k8s_schema.json, the field list behind the API server's
// strict field validation (?fieldValidation=Strict:
// `unknown field "spec.tolerations[0].important"`), and beside it k8s_openapi.json, the OpenAPI
// v3 component schemas `kubectl explain` reads (see openApiDefinitions below), from an
// authoritative machine-readable
// description of the Kubernetes API: the models that @kubernetes/client-node generates from
// Kubernetes' OpenAPI document. Nothing here is a hand-typed field list; the one hand-written
// part is KINDS below, which maps each served apiVersion/kind to the name of its model.
//
// What it does:
//   1. `npm install`s the PINNED package (PACKAGE@VERSION) into a fresh temporary directory
//      (--no-save, --ignore-scripts; nothing in the repository is touched), and checks that the
//      tarball npm installed has the pinned integrity hash, so a re-published or substituted
//      package cannot slip in.
//   2. Imports the package's generated models (dist/gen/models/all.js; plain classes with a
//      static attributeTypeMap: [{baseName: JSON name, type: TypeScript type}, ...]) and walks
//      every model reachable from the kinds in KINDS.
//   3. Writes the JSON file (or, with --check, only compares it) and removes the temporary
//      directory.
//
// Output format (compact, keys sorted at every level, one trailing newline; the same bytes on
// every run for the same pinned version):
//   {"kinds":{"apps/v1/Deployment":"V1Deployment",...,"v1/Pod":"V1Pod"},
//    "kubernetes":"v1.32.0",                      // "OpenAPI spec version" of the models
//    "leaves":["Date","IntOrString","V1MicroTime","any","boolean","number","string"],
//    "source":"@kubernetes/client-node@1.1.3",
//    "types":{"V1Pod":{"apiVersion":"string","kind":"string","metadata":"V1ObjectMeta",...},
//             "V1PodSpec":{"containers":"[]V1Container","nodeSelector":"map[string]string",...}}}
// A type reference is one of: a model name (a key of "types"); a leaf name (listed in
// "leaves": values below it are not field-checked: strings, numbers, booleans, times,
// IntOrString, quantities (plain "string" in the models) and free-form objects ("any", e.g.
// RawExtension, FieldsV1)); "[]T" (a JSON array of T); "map[string]T" (a JSON object whose keys
// are free and whose values are T). An unrecognised TypeScript type in a reachable model is
// an error, so a new kind of type cannot silently switch validation off.
//
// Choosing the version: the package's README compatibility table marks client-node 1.0.x and
// 1.1.x as the releases for Kubernetes 1.32 (1.2.x/1.3.x are 1.33, 1.4.x is 1.34); 1.1.3 is
// the newest 1.1.x, and its models say "OpenAPI spec version: v1.32.0". The script refuses a
// package whose models report another Kubernetes minor than EXPECTED_KUBERNETES_MINOR.
//
// Usage: node scripts/gen-k8s-schema.mjs [--out FILE] [--check]
//   --out FILE  write FILE instead of src/apiserver/schema/k8s_schema.json
//   --check     do not write; exit 1 when either file differs from what would be generated
// Needs node >= 18, npm and access to the npm registry (the build itself never does: CMake
// embeds the committed JSON file).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = '@kubernetes/client-node';
const VERSION = '1.1.3';
// `npm view @kubernetes/client-node@1.1.3 dist.integrity`
const INTEGRITY =
  'sha512-0JekGlhf0A6Jvd1s9tXdSkRlkNrx/O+53IzecvaXr9yXtTTJyoXbSoS4Jf6XCBr6SSAcL1nLRFQ7AgMBZtP3mQ==';
const EXPECTED_KUBERNETES_MINOR = 'v1.32';

// apiVersion/kind -> generated model. A mapping, not a field list. Core kinds have the
// apiVersion "v1"; so has DeleteOptions (meta.k8s.io), as clients send it in DELETE and
// eviction bodies.
const KINDS = {
  'v1/Pod': 'V1Pod',
  'v1/Node': 'V1Node',
  'v1/ConfigMap': 'V1ConfigMap',
  'v1/Secret': 'V1Secret',
  'v1/ResourceQuota': 'V1ResourceQuota',
  'v1/LimitRange': 'V1LimitRange',
  'v1/Namespace': 'V1Namespace',
  'v1/Event': 'CoreV1Event',
  'v1/Service': 'V1Service',
  'v1/ServiceAccount': 'V1ServiceAccount',
  'v1/Endpoints': 'V1Endpoints',
  'discovery.k8s.io/v1/EndpointSlice': 'V1EndpointSlice',
  'authentication.k8s.io/v1/TokenRequest': 'AuthenticationV1TokenRequest',
  'v1/PersistentVolumeClaim': 'V1PersistentVolumeClaim',
  'v1/PersistentVolume': 'V1PersistentVolume',
  'v1/PodTemplate': 'V1PodTemplate',
  'v1/ReplicationController': 'V1ReplicationController',
  'v1/DeleteOptions': 'V1DeleteOptions',
  'apps/v1/Deployment': 'V1Deployment',
  'apps/v1/ControllerRevision': 'V1ControllerRevision',
  'apps/v1/DaemonSet': 'V1DaemonSet',
  'apps/v1/ReplicaSet': 'V1ReplicaSet',
  'apps/v1/StatefulSet': 'V1StatefulSet',
  'batch/v1/Job': 'V1Job',
  'batch/v1/CronJob': 'V1CronJob',
  'autoscaling/v1/HorizontalPodAutoscaler': 'V1HorizontalPodAutoscaler',
  'autoscaling/v2/HorizontalPodAutoscaler': 'V2HorizontalPodAutoscaler',
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'V1SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'V1SubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'V1LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'V1SelfSubjectRulesReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'V1SelfSubjectReview',
  'apiextensions.k8s.io/v1/CustomResourceDefinition': 'V1CustomResourceDefinition',
  'certificates.k8s.io/v1/CertificateSigningRequest': 'V1CertificateSigningRequest',
  'policy/v1/PodDisruptionBudget': 'V1PodDisruptionBudget',
  'policy/v1/Eviction': 'V1Eviction',
  'coordination.k8s.io/v1/Lease': 'V1Lease',
  'networking.k8s.io/v1/Ingress': 'V1Ingress',
  'networking.k8s.io/v1/IngressClass': 'V1IngressClass',
  'events.k8s.io/v1/Event': 'EventsV1Event',
  'rbac.authorization.k8s.io/v1/Role': 'V1Role',
  'rbac.authorization.k8s.io/v1/RoleBinding': 'V1RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRole': 'V1ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': 'V1ClusterRoleBinding',
  'scheduling.k8s.io/v1/PriorityClass': 'V1PriorityClass',
  'storage.k8s.io/v1/StorageClass': 'V1StorageClass',
  'storage.k8s.io/v1/CSIDriver': 'V1CSIDriver',
  'storage.k8s.io/v1/CSINode': 'V1CSINode',
  'storage.k8s.io/v1/CSIStorageCapacity': 'V1CSIStorageCapacity',
};

// TypeScript types in the models whose values are not field-checked.
// V1MicroTime is the package's own Date subclass (dist/types.js), IntOrString its number | string.
const LEAVES = new Set([
  'string', 'number', 'boolean', 'Date', 'V1MicroTime', 'any', 'IntOrString',
]);

// The second pinned package: kubernetes-models, whose typings (v1/ResourceRequirements.d.ts...)
// name resource.Quantity where the first one has a plain string. Only its .d.ts files are read
// (`npm pack`, no install, nothing executed). Which fields are quantities is all it is used for.
const QUANTITY_PACKAGE = 'kubernetes-models';
const QUANTITY_VERSION = '5.1.0';
// `npm view kubernetes-models@5.1.0 dist.integrity`
const QUANTITY_INTEGRITY =
  'sha512-ym4Kiyr8BzGIWj4f853ytVYES1B8C1BdONRP5zodItPD1o//OEKuTwC5nFV3ZJtFGeMqOFbIYkpunSVXSlHS8g==';
const QUANTITY_TYPE = 'IIoK8sApimachineryPkgApiResourceQuantity';

// The leaf a model attribute's TypeScript type and OpenAPI format map to: what the API server's
// decoder accepts there (schema.h, "Types").
function leafOf(ts, format, quantity) {
  if (quantity) return 'Quantity';
  if (ts === 'number') {
    if (format === 'int32' || format === 'int64' || format === 'double') return format;
    fail(`number with format "${format}"`);
  }
  if (ts === 'string') return format === 'byte' ? 'bytes' : 'string';
  if (ts === 'Date') return 'Time';
  if (ts === 'V1MicroTime') return 'MicroTime';
  return ts;  // boolean, any, IntOrString
}

const ARRAY_PREFIX = 'Array<';
const ARRAY_SUFFIX = '>';
const MAP_PREFIX = '{ [key: string]: ';
const MAP_SUFFIX = '; }';

class GenError extends Error {}

// Throws; main() reports it after the temporary directory is removed.
function fail(message) {
  throw new GenError(message);
}

function parseArgs(argv) {
  const scriptDir = path.dirname(fileURLToPath(import.meta.url));
  const args = {
    out: path.resolve(scriptDir, '..', 'src', 'apiserver', 'schema', 'k8s_schema.json'),
    check: false,
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--check') {
      args.check = true;
    } else if (argv[i] === '--out' && i + 1 < argv.length) {
      args.out = path.resolve(argv[++i]);
    } else {
      fail(`usage: node scripts/gen-k8s-schema.mjs [--out FILE] [--check] ` +
           `(unexpected "${argv[i]}")`);
    }
  }
  return args;
}

// Installs PACKAGE@VERSION under `dir` and returns the package's directory.
function installPinned(dir) {
  execFileSync(
    'npm',
    ['install', '--prefix', dir, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund',
     '--loglevel=error', `${PACKAGE}@${VERSION}`],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const pkgDir = path.join(dir, 'node_modules', ...PACKAGE.split('/'));
  const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  if (pkg.version !== VERSION) fail(`installed ${PACKAGE}@${pkg.version}, wanted ${VERSION}`);
  const lockFile = path.join(dir, 'node_modules', '.package-lock.json');
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  const entry = lock.packages?.[`node_modules/${PACKAGE}`];
  if (!entry || entry.integrity !== INTEGRITY) {
    fail(`${PACKAGE}@${VERSION} has integrity ${entry?.integrity}, pinned ${INTEGRITY}`);
  }
  return pkgDir;
}

// "Array<V1Toleration>" -> "[]V1Toleration", "{ [key: string]: string; }" -> "map[string]string",
// a leaf to its decoder type (leafOf). Calls `onModel` for every model name referenced.
function convertType(ts, format, quantity, models, onModel, where) {
  if (ts.startsWith(ARRAY_PREFIX) && ts.endsWith(ARRAY_SUFFIX)) {
    const element = ts.slice(ARRAY_PREFIX.length, -ARRAY_SUFFIX.length);
    return '[]' + convertType(element, format, quantity, models, onModel, where);
  }
  if (ts.startsWith(MAP_PREFIX) && ts.endsWith(MAP_SUFFIX)) {
    const element = ts.slice(MAP_PREFIX.length, -MAP_SUFFIX.length);
    return 'map[string]' + convertType(element, format, quantity, models, onModel, where);
  }
  if (LEAVES.has(ts)) return leafOf(ts, format, quantity);
  if (typeof models[ts]?.getAttributeTypeMap === 'function') {
    onModel(ts);
    return ts;
  }
  fail(`${where}: unrecognised type "${ts}"`);
}

// JSON with the keys of every object sorted, no whitespace.
function stableStringify(value) {
  if (Array.isArray(value)) return '[' + value.map(stableStringify).join(',') + ']';
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value).sort()
      .map((k) => JSON.stringify(k) + ':' + stableStringify(value[k]));
    return '{' + members.join(',') + '}';
  }
  return JSON.stringify(value);
}

// "V1ResourceRequirements" -> "ResourceRequirements", "CoreV1Event" -> "Event": the Go type's
// name, which is also the interface name (less its "I") in kubernetes-models' typings.
function bareName(model) {
  return model.replace(/^[A-Z][a-z]*V1(?=[A-Z])|^V1(?=[A-Z])/, '');
}

// Fetches the pinned kubernetes-models tarball into `dir` (npm pack: no install, no scripts),
// checks its integrity, unpacks it and returns the set of "<Interface>.<field>" whose type
// names resource.Quantity (directly, or as the values of a map).
function quantityFields(dir) {
  const out = execFileSync(
    'npm', ['pack', '--json', '--pack-destination', dir, '--loglevel=error',
            `${QUANTITY_PACKAGE}@${QUANTITY_VERSION}`],
    { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const info = JSON.parse(out)[0];
  if (info.integrity !== QUANTITY_INTEGRITY) {
    fail(`${QUANTITY_PACKAGE}@${QUANTITY_VERSION} has integrity ${info.integrity}, ` +
         `pinned ${QUANTITY_INTEGRITY}`);
  }
  const unpacked = path.join(dir, 'quantity-package');
  fs.mkdirSync(unpacked);
  execFileSync('tar', ['xzf', path.join(dir, info.filename), '-C', unpacked]);
  const fields = new Set();
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.d.ts')) collectQuantities(fs.readFileSync(p, 'utf8'), fields);
    }
  };
  walk(path.join(unpacked, 'package'));
  if (fields.size === 0) fail(`no quantity field found in ${QUANTITY_PACKAGE}`);
  fields.packageDir = path.join(unpacked, 'package');
  return fields;
}

// Adds "<Interface>.<field>" for each field of each `export interface IName {...}` in a .d.ts
// text whose type mentions QUANTITY_TYPE.
function collectQuantities(text, out) {
  const plain = text.replace(/\/\*[\s\S]*?\*\//g, '');
  const re = /export interface I(\w+) \{\n([\s\S]*?)\n\}/g;
  for (let m; (m = re.exec(plain)) !== null;) {
    const body = m[2];
    const fieldRe = /^    "([^"]+)"\??: /gm;
    const starts = [];
    for (let f; (f = fieldRe.exec(body)) !== null;) starts.push([f[1], f.index]);
    starts.forEach(([field, at], i) => {
      const type = body.slice(at, i + 1 < starts.length ? starts[i + 1][1] : body.length);
      if (type.includes(QUANTITY_TYPE)) out.add(`${m[1]}.${field}`);
    });
  }
}

// ---- OpenAPI v3 component schemas (k8s_openapi.json) ------------------------------------------
//
// What `kubectl explain` reads: for every model reachable from KINDS, an OpenAPI v3 schema in
// kube-apiserver's shape, named as kube names its definitions (io.k8s.api.core.v1.PodSpec; kubectl
// shows the last segment as the field's type). Types, formats and which fields are required come
// from the pinned client-node models (Kubernetes 1.32); descriptions from their typings (the
// JSDoc of each class and field), and for a field whose type is another model (which the
// OpenAPI generator writes without one) from kubernetes-models' typings of the same type.

const META_MODELS = new Set([
  'V1ObjectMeta', 'V1ListMeta', 'V1LabelSelector', 'V1LabelSelectorRequirement',
  'V1OwnerReference', 'V1ManagedFieldsEntry', 'V1Condition', 'V1Status', 'V1StatusDetails',
  'V1StatusCause', 'V1DeleteOptions', 'V1Preconditions',
]);
const META_PKG = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const REF = '#/components/schemas/';
const FIXED_DEFINITIONS = {
  [`${META_PKG}.Time`]: {
    description: 'Time is a wrapper around time.Time which supports correct marshaling to YAML ' +
        'and JSON.  Wrappers are provided for many of the factory methods that the time package ' +
        'offers.',
    type: 'string', format: 'date-time',
  },
  [`${META_PKG}.MicroTime`]: {
    description: 'MicroTime is version of Time with microsecond level precision.',
    type: 'string', format: 'date-time',
  },
  [`${META_PKG}.Patch`]: {
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH ' +
        'request body.',
    type: 'object',
  },
  'io.k8s.apimachinery.pkg.api.resource.Quantity': {
    description: 'Quantity is a fixed-point representation of a number. It provides convenient ' +
        'marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() ' +
        'accessors.',
    oneOf: [{ type: 'string' }, { type: 'number' }],
  },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': {
    description: 'IntOrString is a type that can hold an int32 or a string.  When used in JSON ' +
        'or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This ' +
        'allows you to have, for example, a JSON field that can accept a name or number.',
    format: 'int-or-string',
    oneOf: [{ type: 'integer' }, { type: 'string' }],
  },
};

// 'apps/v1/Deployment' -> the definitions' package and kubernetes-models' folder of its group.
function packageOf(gvk) {
  const parts = gvk.split('/');
  parts.pop();
  const version = parts.pop();
  const group = parts.join('/');
  if (group === '') return { pkg: `io.k8s.api.core.${version}`, dir: version };
  if (group === 'apiextensions.k8s.io') {
    return { pkg: `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`,
             dir: `${group}/${version}` };
  }
  const short = group === 'rbac.authorization.k8s.io' ? 'rbac' : group.replace(/\.k8s\.io$/, '');
  return { pkg: `io.k8s.api.${short}.${version}`, dir: `${group}/${version}` };
}

// The JSDoc descriptions of a client-node model typing: the class's and each field's, and
// which fields are required (no "?").
function parseClientNodeTypings(text) {
  const unescape = (t) => t.replace(/\\(['"])/g, '$1');
  const comment = (c) => unescape(c.split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim());
  const at = text.indexOf('export declare class');
  const head = /\/\*\*\n([\s\S]*?)\*\/\s*$/.exec(text.slice(text.lastIndexOf('/**', at), at));
  const out = { description: head ? comment(head[1]) : '', fields: {} };
  const body = text.slice(at);
  const re = /(?:\/\*\*\n([\s\S]*?)\*\/\n)?\s*'([^']+)'(\??): /g;
  for (let m; (m = re.exec(body)) !== null;) {
    out.fields[m[2]] = { description: m[1] ? comment(m[1]) : '', required: m[3] !== '?' };
  }
  return out;
}

// Field descriptions of kubernetes-models' `export interface I<Name>` in one typing file.
function parseModelsTypings(text, name) {
  const m = new RegExp(`export interface I${name}(?: extends [\\w, ]+)? \\{\\n([\\s\\S]*?)\\n\\}`).exec(text);
  const fields = {};
  if (!m) return fields;
  const re = /\/\*\*\n([\s\S]*?)\*\/\n\s*"([^"]+)"\??: /g;
  for (let f; (f = re.exec(m[1])) !== null;) {
    fields[f[2]] = f[1].split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim();
  }
  return fields;
}

// `allKinds`: KINDS and the list kinds (apiVersion/kind -> model), each named in its model's
// x-kubernetes-group-version-kind and in the output's "kinds".
function openApiDefinitions(models, modelsDir, types, quantities, origin, allKinds) {
  // The Go type's name: the model's less its group-and-version prefix (V2MetricSpec, CoreV1Event).
  const goName = (model) => model.replace(/^(?:[A-Z][a-z]*)?V[0-9]+(?=[A-Z])/, '');
  const defName = (model) => (META_MODELS.has(model) ? META_PKG : packageOf(origin[model]).pkg) +
      '.' + goName(model);
  const schemaOf = (ts, format, quantity) => {
    if (ts.startsWith(ARRAY_PREFIX) && ts.endsWith(ARRAY_SUFFIX)) {
      return { type: 'array',
               items: schemaOf(ts.slice(ARRAY_PREFIX.length, -ARRAY_SUFFIX.length), format, quantity) };
    }
    if (ts.startsWith(MAP_PREFIX) && ts.endsWith(MAP_SUFFIX)) {
      return { type: 'object',
               additionalProperties: schemaOf(ts.slice(MAP_PREFIX.length, -MAP_SUFFIX.length), format, quantity) };
    }
    if (quantity) return { $ref: REF + 'io.k8s.apimachinery.pkg.api.resource.Quantity' };
    if (ts === 'string') return format === 'byte' ? { type: 'string', format } : { type: 'string' };
    if (ts === 'number') {
      return format === 'double' ? { type: 'number', format } : { type: 'integer', format };
    }
    if (ts === 'boolean') return { type: 'boolean' };
    if (ts === 'Date') return { $ref: REF + `${META_PKG}.Time` };
    if (ts === 'V1MicroTime') return { $ref: REF + `${META_PKG}.MicroTime` };
    if (ts === 'IntOrString') return { $ref: REF + 'io.k8s.apimachinery.pkg.util.intstr.IntOrString' };
    if (ts === 'any') return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    return { $ref: REF + defName(ts) };
  };
  const kindOf = {};
  for (const [gvk, model] of Object.entries(allKinds)) {
    if (gvk.endsWith('/DeleteOptions')) continue;
    const parts = gvk.split('/');
    const kind = parts.pop();
    const version = parts.pop();
    (kindOf[model] ??= []).push({ group: parts.join('/'), kind, version });
  }
  const definitions = { ...FIXED_DEFINITIONS };
  const kinds = {};
  for (const model of Object.keys(types).sort()) {
    const typings = parseClientNodeTypings(
        fs.readFileSync(path.join(modelsDir, `${model}.d.ts`), 'utf8'));
    let fallback = {};
    if (!META_MODELS.has(model) && quantities.packageDir) {
      const file = path.join(quantities.packageDir, packageOf(origin[model]).dir,
                             `${goName(model)}.d.ts`);
      if (fs.existsSync(file)) fallback = parseModelsTypings(fs.readFileSync(file, 'utf8'), goName(model));
    }
    const properties = {};
    const required = [];
    for (const attr of models[model].getAttributeTypeMap()) {
      const quantity = quantities.has(`${bareName(model)}.${attr.baseName}`);
      let s = schemaOf(attr.type, attr.format ?? '', quantity);
      const doc = typings.fields[attr.baseName]?.description || fallback[attr.baseName] || '';
      if (s.$ref) s = { allOf: [s] };
      if (doc) s.description = doc;
      properties[attr.baseName] = s;
      if (typings.fields[attr.baseName]?.required) required.push(attr.baseName);
    }
    const def = { type: 'object', properties };
    if (typings.description) def.description = typings.description;
    if (required.length > 0) def.required = required;
    if (kindOf[model]) def['x-kubernetes-group-version-kind'] = kindOf[model];
    const name = defName(model);
    if (name in definitions) fail(`two models are named ${name}`);
    definitions[name] = def;
  }
  for (const [gvk, model] of Object.entries(allKinds)) kinds[gvk] = defName(model);
  return { definitions, kinds };
}

async function generate(pkgDir, quantities) {
  const modelsDir = path.join(pkgDir, 'dist', 'gen', 'models');
  const header = fs.readFileSync(path.join(modelsDir, 'V1Pod.js'), 'utf8');
  const specVersion = /OpenAPI spec version:\s*(v[0-9][0-9.]*)/.exec(header)?.[1];
  if (!specVersion) fail('cannot find "OpenAPI spec version" in V1Pod.js');
  if (!specVersion.startsWith(EXPECTED_KUBERNETES_MINOR + '.')) {
    fail(`models are from Kubernetes ${specVersion}, expected ${EXPECTED_KUBERNETES_MINOR}.x`);
  }
  const models = await import(pathToFileURL(path.join(modelsDir, 'all.js')).href);

  const types = {};
  const origin = {};  // model -> the first kind (in KINDS order) that reaches it
  let pending = [];
  let current = '';
  const want = (name) => {
    if (!(name in types)) {
      types[name] = null;
      origin[name] = current;
      pending.push(name);
    }
  };
  for (const [gvk, model] of Object.entries(KINDS)) {
    if (typeof models[model]?.getAttributeTypeMap !== 'function') fail(`${gvk}: no model ${model}`);
    current = gvk;
    want(model);
    // Each kind's models are walked before the next kind's: a model belongs to the first.
    walkPending();
  }
  function walkPending() {
  while (pending.length > 0) {
    const name = pending.pop();
    const cls = models[name];
    if (cls.discriminator !== undefined && cls.discriminator !== null) {
      fail(`${name} has a discriminator; polymorphic models are not supported`);
    }
    const fields = {};
    for (const attr of cls.getAttributeTypeMap()) {
      if (typeof attr.baseName !== 'string' || typeof attr.type !== 'string') {
        fail(`${name}: malformed attributeTypeMap entry ${JSON.stringify(attr)}`);
      }
      if (attr.baseName in fields) fail(`${name}: duplicate field ${attr.baseName}`);
      const where = `${name}.${attr.baseName}`;
      const quantity = quantities.has(`${bareName(name)}.${attr.baseName}`);
      if (quantity && !/^(string|\{ \[key: string\]: string; \})$/.test(attr.type)) {
        fail(`${where}: a quantity in ${QUANTITY_PACKAGE} but "${attr.type}" here`);
      }
      fields[attr.baseName] =
          convertType(attr.type, attr.format ?? '', quantity, models, want, where);
    }
    types[name] = fields;
  }
  }

  // The list kinds of the served kinds (v1/PodList: V1PodList, where the models have one),
  // Status and Scale, for the OpenAPI definitions only (what /openapi/v2's operations answer with): their
  // models are walked after every kind's, so no kind's models change package, and
  // k8s_schema.json keeps the kinds' types alone.
  const kindTypes = new Set(Object.keys(types));
  const lists = {};
  for (const [gvk, model] of Object.entries(KINDS)) {
    const list = `${model}List`;
    if (gvk.endsWith('/DeleteOptions') || typeof models[list]?.getAttributeTypeMap !== 'function') {
      continue;
    }
    lists[`${gvk}List`] = list;
    current = gvk;
    want(list);
    walkPending();
  }
  // meta.k8s.io's Status (what deletions answer) and the /scale subresources' Scale.
  for (const [gvk, model] of [['v1/Status', 'V1Status'], ['autoscaling/v1/Scale', 'V1Scale']]) {
    lists[gvk] = model;
    current = gvk;
    want(model);
    walkPending();
  }
  const schemaTypes = Object.fromEntries(Object.entries(types).filter(([t]) => kindTypes.has(t)));

  const leaves = new Set();
  for (const fields of Object.values(schemaTypes)) {
    for (const t of Object.values(fields)) {
      const base = t.replace(/^(\[\]|map\[string\])+/, '');
      if (!(base in types)) leaves.add(base);
    }
  }
  const schemaText = stableStringify({
    source: `${PACKAGE}@${VERSION}`,
    quantities: `${QUANTITY_PACKAGE}@${QUANTITY_VERSION}`,
    kubernetes: specVersion,
    kinds: KINDS,
    leaves: [...leaves].sort(),
    types: schemaTypes,
  }) + '\n';
  const openapi =
      openApiDefinitions(models, modelsDir, types, quantities, origin, { ...KINDS, ...lists });
  const openapiText = stableStringify({
    source: `${PACKAGE}@${VERSION}`,
    descriptions: `${PACKAGE}@${VERSION}, ${QUANTITY_PACKAGE}@${QUANTITY_VERSION}`,
    kubernetes: specVersion,
    ...openapi,
  }) + '\n';
  return { schemaText, openapiText };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tidepool-k8s-schema-'));
  let generated;
  try {
    generated = await generate(installPinned(tmp), quantityFields(tmp));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const outputs = [[args.out, generated.schemaText],
                   [path.join(path.dirname(args.out), 'k8s_openapi.json'), generated.openapiText]];
  for (const [file, text] of outputs) {
    if (args.check) {
      const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (current !== text) fail(`${file} is out of date; run node scripts/gen-k8s-schema.mjs`);
      console.log(`${file} is up to date (${PACKAGE}@${VERSION})`);
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    console.log(`wrote ${file}: ${Object.keys(KINDS).length} kinds, ` +
                `${text.length} bytes, ${PACKAGE}@${VERSION}`);
  }
}

try {
  await main();
} catch (e) {
  console.error(`gen-k8s-schema: ${e instanceof GenError ? e.message : e.stack}`);
  process.exitCode = 1;
}
