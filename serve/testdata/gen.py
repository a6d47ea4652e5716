# Writes serve/testdata/catalog, the hand-made catalog of the serve goldens:
#   python3 serve/testdata/gen.py serve/testdata/catalog
# Every edge case opm serve answers in a particular way is in it once.
import base64, json, os, sys
out = sys.argv[1]
os.makedirs(out + "/alpha-operator", exist_ok=True)
os.makedirs(out + "/beta-operator", exist_ok=True)
os.makedirs(out + "/gamma-operator", exist_ok=True)
b64 = lambda s: base64.b64encode(s.encode()).decode()
icon = b64('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>')

def csv_json(name, version, extra=None):
    csv = {"apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
           "metadata": {"name": name, "annotations": {"olm.skipRange": "<1.0.0", "description": "A & B <c>"}},
           "spec": {"version": version, "displayName": "Alpha Operator", "description": "Alpha does <things> & more",
                    "install": {"strategy": "deployment", "spec": {"deployments": [{"name": "alpha", "spec": {"replicas": 1, "ratio": 1.50, "big": 12345678901234567890}}]}},
                    "customresourcedefinitions": {"owned": [{"name": "widgets.example.com", "version": "v1", "kind": "Widget"}]}}}
    if extra: csv["spec"].update(extra)
    return json.dumps(csv)

crd_yaml = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-count: 3, x-ratio: 2.0}
"""
csv_yaml = """apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: alpha-operator.v1.2.0
  annotations:
    capabilities: Basic Install
spec:
  version: 1.2.0
  displayName: Alpha Operator
  replaces: alpha-operator.v1.1.0
  install:
    strategy: deployment
"""
def obj(data): return {"type": "olm.bundle.object", "value": {"data": b64(data)}}
def pkgprop(name, v): return {"type": "olm.package", "value": {"packageName": name, "version": v}}
def gvk(g, v, k): return {"type": "olm.gvk", "value": {"group": g, "kind": k, "version": v}}

csvmeta_11 = {"type": "olm.csv.metadata", "value": {
    "annotations": {"alm-examples": "[{\"kind\":\"Widget\"}]", "containerImage": "quay.io/example/alpha:v1.1.0", "zeta": "<z>", "capabilities": "Seamless Upgrades"},
    "apiServiceDefinitions": {},
    "crdDescriptions": {"owned": [{"name": "widgets.example.com", "version": "v1", "kind": "Widget", "displayName": "Widget",
        "description": "A widget & more", "resources": [{"kind": "Deployment", "name": "", "version": "v1"}],
        "specDescriptors": [{"path": "size", "displayName": "Size", "x-descriptors": ["urn:alm:descriptor:com.tectonic.ui:podCount"], "value": {"b": 2, "a": 1}}],
        "statusDescriptors": [{"path": "nodes", "description": "pods"}]}],
        "required": [{"name": "gadgets.other.example.com", "version": "v1alpha1", "kind": "Gadget"}]},
    "displayName": "Alpha Operator",
    "installModes": [{"type": "OwnNamespace", "supported": True}, {"type": "AllNamespaces", "supported": False}],
    "keywords": ["widgets", "alpha"],
    "labels": {"operatorframework.io/arch.amd64": "supported", "operatorframework.io/os.linux": "supported"},
    "links": [{"name": "Docs", "url": "https://example.com/docs"}],
    "maintainers": [{"name": "Alpha Team", "email": "alpha@example.com"}],
    "maturity": "stable",
    "minKubeVersion": "1.25.0",
    "nativeAPIs": [{"group": "", "version": "v1", "kind": "ConfigMap"}],
    "provider": {"name": "Example, Inc."},
    "unknownField": "dropped"}}

alpha = [
 {"schema": "olm.package", "name": "alpha-operator", "defaultChannel": "stable",
  "description": "Alpha operator: widgets <b>done right</b> & fast.", "icon": {"base64data": icon, "mediatype": "image/svg+xml"}},
 {"schema": "olm.channel", "package": "alpha-operator", "name": "stable", "entries": [
   {"name": "alpha-operator.v1.0.0"},
   {"name": "alpha-operator.v1.1.0", "replaces": "alpha-operator.v1.0.0"},
   {"name": "alpha-operator.v1.2.0", "replaces": "alpha-operator.v1.1.0", "skips": ["alpha-operator.v1.0.0", "alpha-operator.v0.9.0"]},
   {"name": "alpha-operator.v1.3.0", "replaces": "alpha-operator.v1.2.0", "skipRange": ">=1.0.0 <1.3.0"}]},
 {"schema": "olm.channel", "package": "alpha-operator", "name": "fast", "entries": [
   {"name": "alpha-operator.v1.2.0", "replaces": "alpha-operator.v1.1.0"},
   {"name": "alpha-operator.v2.0.0", "replaces": "alpha-operator.v1.2.0", "skips": ["alpha-operator.v1.2.0", "alpha-operator.v1.0.0"]}]},
 {"schema": "olm.bundle", "package": "alpha-operator", "name": "alpha-operator.v1.0.0", "image": "quay.io/example/alpha-operator-bundle:v1.0.0",
  "properties": [pkgprop("alpha-operator", "1.0.0"), gvk("example.com", "v1", "Widget"), obj(csv_json("alpha-operator.v1.0.0", "1.0.0")), obj(crd_yaml)],
  "relatedImages": [{"name": "operator", "image": "quay.io/example/alpha:v1.0.0"}, {"name": "", "image": "quay.io/example/alpha-operator-bundle:v1.0.0"}]},
 {"schema": "olm.bundle", "package": "alpha-operator", "name": "alpha-operator.v1.1.0", "image": "quay.io/example/alpha-operator-bundle:v1.1.0",
  "properties": [pkgprop("alpha-operator", "1.1.0"), gvk("example.com", "v1", "Widget"),
    {"type": "olm.gvk.required", "value": {"group": "other.example.com", "kind": "Gadget", "version": "v1alpha1"}},
    {"type": "olm.package.required", "value": {"packageName": "beta-operator", "versionRange": ">=0.1.0 <2.0.0"}},
    {"type": "olm.constraint", "value": {"failureMessage": "needs <beta>", "cel": {"rule": "properties.exists(p, p.type == 'olm.label')"}}},
    "CUSTOM", csvmeta_11],
  "relatedImages": [{"name": "operator", "image": "quay.io/example/alpha:v1.1.0"}]},
 {"schema": "olm.bundle", "package": "alpha-operator", "name": "alpha-operator.v1.2.0", "image": "quay.io/example/alpha-operator-bundle:v1.2.0",
  "properties": [pkgprop("alpha-operator", "1.2.0"), gvk("example.com", "v1", "Widget"), gvk("example.com", "v1beta1", "Widget"), obj(csv_yaml)]},
 {"schema": "olm.bundle", "package": "alpha-operator", "name": "alpha-operator.v1.3.0", "image": "quay.io/example/alpha-operator-bundle:v1.3.0",
  "properties": [pkgprop("alpha-operator", "1.3.0"), gvk("example.com", "v1", "Widget"),
    {"type": "olm.csv.metadata", "value": {"displayName": "Alpha Operator", "description": "Own description of 1.3.0", "provider": {"name": "Example", "url": "https://example.com"}}}]},
 {"schema": "olm.bundle", "package": "alpha-operator", "name": "alpha-operator.v2.0.0", "image": "",
  "properties": [pkgprop("alpha-operator", "2.0.0"), gvk("example.com", "v2", "Widget"), obj(csv_json("alpha-operator.v2.0.0", "2.0.0"))]},
 {"schema": "olm.deprecations", "package": "alpha-operator", "entries": [
   {"reference": {"schema": "olm.channel", "name": "fast"}, "message": "fast is going away; use stable"},
   {"reference": {"schema": "olm.bundle", "name": "alpha-operator.v1.0.0"}, "message": "1.0.0 has a CVE"}]},
]
text = "\n".join(json.dumps(b, indent=4) for b in alpha)
# a property value written with spaces, keys out of order and HTML characters:
# opm serves it compacted, key order kept, nothing escaped.
text = text.replace('"CUSTOM"', '{"type": "fbc.test/annotation", "value": {  "z" : 1, "a": "x<y & z>w",   "n": 1.50, "nested": {"b": [1, 2], "a": null}}}')
open(out + "/alpha-operator/catalog.json", "w").write(text + "\n")

beta = """---
schema: olm.package
name: beta-operator
defaultChannel: alpha
---
schema: olm.channel
package: beta-operator
name: alpha
entries:
  - name: beta-operator.v0.1.0
  - name: beta-operator.v0.2.0
    replaces: beta-operator.v0.1.0
---
schema: olm.channel
package: beta-operator
name: beta
entries:
  - name: beta-operator.v0.3.0
    replaces: beta-operator.v0.2.0
    skipRange: <0.3.0
---
schema: olm.bundle
package: beta-operator
name: beta-operator.v0.1.0
image: quay.io/example/beta-operator-bundle:v0.1.0
properties:
  - type: olm.package
    value:
      packageName: beta-operator
      version: 0.1.0
---
schema: olm.bundle
package: beta-operator
name: beta-operator.v0.2.0
image: quay.io/example/beta-operator-bundle@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
properties:
  - type: olm.package
    value: {packageName: beta-operator, version: 0.2.0}
  - type: olm.gvk
    value: {group: example.com, kind: Widget, version: v1}
  - type: olm.label
    value: {label: "tier=backend"}
---
schema: olm.bundle
package: beta-operator
name: beta-operator.v0.3.0
image: quay.io/example/beta-operator-bundle:v0.3.0
properties:
  - type: olm.package
    value: {packageName: beta-operator, version: 0.3.0}
  - type: olm.gvk
    value: {group: example.com, kind: Sprocket, version: v1}
  - type: olm.gvk.required
    value: {group: example.com, kind: Widget, version: v1}
---
schema: olm.deprecations
package: beta-operator
entries:
  - reference: {schema: olm.package}
    message: beta-operator is retired
  - reference: {schema: olm.bundle, name: beta-operator.v0.1.0}
    message: "0.1.0: do not install"
---
schema: fbc.test.note
package: beta-operator
name: note-1
text: a custom blob
weight: 10
"""
open(out + "/beta-operator/catalog.yaml", "w").write(beta)

cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gamma-config\ndata:\n  key: value\n"
gamma = [
 {"schema": "olm.package", "name": "gamma-operator", "defaultChannel": "stable"},
 {"schema": "olm.channel", "package": "gamma-operator", "name": "stable", "entries": [{"name": "gamma-operator.v3.0.0-rc.1"}]},
 {"schema": "olm.bundle", "package": "gamma-operator", "name": "gamma-operator.v3.0.0-rc.1", "image": "quay.io/example/gamma-operator-bundle:v3.0.0-rc.1",
  "properties": [pkgprop("gamma-operator", "3.0.0-rc.1"), obj(cm),
     {"type": "olm.csv.metadata", "value": {"displayName": "Gamma", "keywords": ["gamma"], "installModes": [{"type": "AllNamespaces", "supported": True}]}}],
  "relatedImages": [{"name": "gamma", "image": "quay.io/example/gamma:v3"}]},
 {"schema": "fbc.test.note", "package": "gamma-operator", "name": "note-2", "text": "second", "flag": True},
 {"schema": "fbc.test.note", "package": "gamma-operator", "name": "note-3", "text": "third"},
]
with open(out + "/gamma-operator/catalog.json", "w") as f:
    for b in gamma: f.write(json.dumps(b) + "\n")
open(out + "/notes.yaml", "w").write("schema: fbc.test.note\nname: catalog-wide\ntext: no package\n")
