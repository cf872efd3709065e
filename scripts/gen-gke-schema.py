#!/usr/bin/python3
# File: gen-gke-schema.py
#
# Regenerates src/cloud/gke/gke_request_schema.json: the message types of the request bodies the
# emulated GKE and Compute Engine APIs take (cloud/gke/request_schema.h), read from the
# apitools message classes that the Google Cloud SDK generates from Google's discovery
# documents and ships (lib/googlecloudsdk/generated_clients/apis/{container,compute}/...). No
# field list is typed by hand: the one hand-written part is REQUESTS below, which names the
# request message of each body the emulation accepts.
#
# Output (compact, keys sorted, one trailing newline; the same bytes for the same SDK):
#   {"source": "google-cloud-sdk 528.0.0",
#    "apis": {"container/v1": {"package": "google.container.v1",
#                              "requests": ["CreateNodePoolRequest", ...]}, ...},
#    "types": {"container/v1/NodeTaint": {"effect": "enum:container/v1/NodeTaint.Effect",
#                                          "key": "string", ...}, ...},
#    "enums": {"container/v1/NodeTaint.Effect": {"EFFECT_UNSPECIFIED": 0, "NO_SCHEDULE": 1, ...}}}
# A field type is a scalar (string, bool, bytes, int32, int64, uint32, uint64, double, float),
# "any" (a free JSON value), "enum:<enum>", "msg:<type>", "[]T" (repeated) or
# "map[string]T" (apitools' additionalProperties messages, a JSON object on the wire).
#
# Usage: /usr/bin/python3 scripts/gen-gke-schema.py [--sdk DIR] [--out FILE] [--check]
import argparse
import json
import os
import sys

# api -> (apitools module, proto package, request messages the emulation accepts).
REQUESTS = {
    'container/v1': ('googlecloudsdk.generated_clients.apis.container.v1.container_v1_messages',
                     'google.container.v1',
                     ['CreateClusterRequest', 'UpdateClusterRequest', 'CreateNodePoolRequest',
                      'UpdateNodePoolRequest', 'SetNodePoolSizeRequest',
                      'SetNodePoolAutoscalingRequest']),
    'container/v1beta1': (
        'googlecloudsdk.generated_clients.apis.container.v1beta1.container_v1beta1_messages',
        'google.container.v1beta1',
        ['CreateClusterRequest', 'UpdateClusterRequest', 'CreateNodePoolRequest',
         'UpdateNodePoolRequest', 'SetNodePoolSizeRequest', 'SetNodePoolAutoscalingRequest']),
    'compute/v1': ('googlecloudsdk.generated_clients.apis.compute.v1.compute_v1_messages',
                   'google.cloud.compute.v1',
                   ['InstanceGroupManagersDeleteInstancesRequest']),
}

SCALARS = {
    'STRING': 'string', 'BOOL': 'bool', 'BYTES': 'bytes', 'INT32': 'int32', 'SINT32': 'int32',
    'INT64': 'int64', 'SINT64': 'int64', 'UINT32': 'uint32', 'UINT64': 'uint64',
    'DOUBLE': 'double', 'FLOAT': 'float',
}


def enum_name(cls):
    # apitools names a proto enum Effect of NodeTaint "NodeTaint.EffectValueValuesEnum".
    parts = cls.__qualname__.split('.')
    last = parts[-1]
    for suffix in ('ValueValuesEnum', 'ValuesEnum'):
        if last.endswith(suffix):
            last = last[:-len(suffix)]
    return '.'.join(parts[:-1] + [last])


def is_map(cls):
    fields = list(cls.all_fields())
    if len(fields) != 1 or fields[0].name != 'additionalProperties' or not fields[0].repeated:
        return None
    entry = fields[0].type
    names = {f.name: f for f in entry.all_fields()}
    if set(names) != {'key', 'value'}:
        return None
    return names['value']


class Generator:
    def __init__(self, api, module):
        self.api = api
        self.module = module
        self.types = {}
        self.enums = {}

    def field_type(self, f, where):
        kind = type(f).__name__
        if kind == 'MessageField':
            if f.type.__module__.endswith('extra_types'):
                base = 'any'  # JsonValue, JsonObject, DateTime: free JSON
            else:
                base = self.message(f.type, where)
        elif kind == 'EnumField':
            name = f'{self.api}/{enum_name(f.type)}'
            self.enums[name] = {n: f.type(n).number for n in f.type.names()}
            base = 'enum:' + name
        else:
            variant = f.variant.name
            if variant not in SCALARS:
                sys.exit(f'gen-gke-schema: {where}: unknown variant {variant}')
            base = SCALARS[variant]
        return '[]' + base if f.repeated else base

    def message(self, cls, where):
        value = is_map(cls)
        if value is not None:
            return 'map[string]' + self.field_type(value, where + '{}')
        name = f'{self.api}/{cls.__qualname__}'
        if name in self.types:
            return 'msg:' + name
        self.types[name] = None  # recursion guard
        fields = {}
        for f in cls.all_fields():
            fields[f.name] = self.field_type(f, f'{name}.{f.name}')
        self.types[name] = fields
        return 'msg:' + name


def generate(sdk):
    sys.path.insert(0, os.path.join(sdk, 'lib'))
    sys.path.insert(0, os.path.join(sdk, 'lib', 'third_party'))
    import importlib
    with open(os.path.join(sdk, 'VERSION')) as v:
        version = v.read().strip()
    out = {'source': f'google-cloud-sdk {version}', 'apis': {}, 'types': {}, 'enums': {}}
    for api, (module_name, package, requests) in sorted(REQUESTS.items()):
        module = importlib.import_module(module_name)
        g = Generator(api, module)
        for r in requests:
            g.message(getattr(module, r), r)
        out['apis'][api] = {'package': package, 'requests': sorted(requests)}
        out['types'].update(g.types)
        out['enums'].update(g.enums)
    return json.dumps(out, sort_keys=True, separators=(',', ':')) + '\n'


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser()
    p.add_argument('--sdk', default='/usr/lib/google-cloud-sdk')
    p.add_argument('--out', default=os.path.join(here, '..', 'src', 'cloud', 'gke',
                                                 'gke_request_schema.json'))
    p.add_argument('--check', action='store_true')
    a = p.parse_args()
    text = generate(a.sdk)
    if a.check:
        current = open(a.out).read() if os.path.exists(a.out) else ''
        if current != text:
            sys.exit(f'{a.out} is out of date; run scripts/gen-gke-schema.py')
        print(f'{a.out} is up to date')
        return
    with open(a.out, 'w') as f:
        f.write(text)
    print(f'wrote {a.out}: {len(text)} bytes')


if __name__ == '__main__':
    main()
