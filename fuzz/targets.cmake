# The libFuzzer targets of fuzz/ (one per decoder), read by fuzz/CMakeLists.txt (the fuzz build)
# and by the top-level CMakeLists.txt (the short run of each in the test suite). scripts/fuzz.sh
# runs every <name>_fuzzer it finds in build-fuzz/fuzz/.
set(TIDEPOOL_FUZZ_TARGETS
  json            # apiserver/json_io Parse + Dump, api/codec ParseJson (JSON bodies)
  codec           # api/codec PodFromJson, NodeFromJson, LabelSelectorFromJson
  object          # the generic object path: StoredView, printers, field selectors' values
  yaml            # api/codec ParseYamlDocuments
  quantity        # api Quantity::Parse
  label_selector  # apiserver/selectors LabelSelector::Parse
  field_selector  # apiserver/selectors FieldSelector::Parse
  patch           # apiserver/patch: strategic merge, JSON merge, JSON patch, server-side apply
  protobuf        # apiserver/protobuf DecodeObject
  scenario        # sim ParseScenario
  trace           # sim ParseTrace (trace files: dlrm, openb, generic CSV) and TracePod
  kubeconfig      # client ParseKubeconfig
  gke_api         # cloud/gke GkeApi::Handle: container, compute and serviceusage requests
  apiserver_http  # ApiServer::Handle: whole requests on an in-memory store
)
